// coverage: which instructions and which basic blocks ran.
//
// Every instruction gets its own counter and every basic block another
// (`report unshared var`: one variable per matched site, allocated at match
// time). Both probes are pure increments, so the JIT counts them once per
// straight-line block and the interpreter performs them without calling the
// monitor. A site counts as covered when its counter is not zero.
//
// `wizeng --monitors=coverage app.wasm` prints a per-function summary; with
// `whamm build` this script prints whamm's CSV report (one row per site).
wasm:opcode:*:before {
    report unshared var count: u64;
    count++;
}

wasm:block:start {
    report unshared var block: u64;
    block++;
}
