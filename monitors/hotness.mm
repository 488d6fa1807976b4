// hotness: how often every instruction ran.
//
// One counter per instruction site (`report unshared var`), incremented each
// time the instruction executes: a pure increment, which the JIT counts once
// per straight-line block and the interpreter performs without a call.
//
// `wizeng --monitors=hotness app.wasm` prints the hottest sites first.
wasm:opcode:*:before {
    report unshared var count: u64;
    count++;
}
