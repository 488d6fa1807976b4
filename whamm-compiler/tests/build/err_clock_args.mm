// `rdtsc` takes no argument and is not a user function name.
fn rdtsc() -> u64 { return 0; }
wasm:func:entry { var t: u64 = rdtsc(1); }
