// loops: how often each loop header was reached.
//
// A probe on `loop` fires on every arrival: once when the loop is entered
// and once per branch back to its header, so the count is the number of
// iterations started. The pure increment is counted per straight-line block
// by the JIT and performed directly by the interpreter.
wasm:opcode:loop:before {
    report unshared var iterations: u64;
    iterations++;
}
