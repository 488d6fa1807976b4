// Hotness (the probe-language version of examples/hotness.wat): one counter
// per instruction site, incremented every time the instruction executes.
// `unshared` gives each matched site its own counter, allocated at match
// time, so the probe is a pure increment: the JIT counts it once per
// straight-line block and the interpreter performs it without a call.
wasm:opcode:*:before {
    report unshared var count: u64;
    count++;
}
