// The builtin clock: `rdtsc()` is u64 nanoseconds, imported as wizeng.rdtsc.
var start: u64;
var spent: u64;
wasm:begin { start = rdtsc(); }
wasm:func:entry {
    var t: u64 = rdtsc();
    spent = spent + (rdtsc() - t);
}
wasm:exit { println("{}", rdtsc() >= start); }
