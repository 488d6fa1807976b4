// Instruction coverage in whamm's style: every instruction but a block's
// `end` is covered before it runs; an `end` is covered after it, whether
// control falls into it or a branch arrives. Every site gets a row, also
// those no path reaches (`false`); the function's final `end` has no
// `after` site, so `at_func_end` ends are covered before.
wasm:opcode:*:before / at_func_end || opname != "end" / {
    report unshared var hit: bool;
    hit = true;
}

wasm:opcode:end:after / !at_func_end / {
    report unshared var hit: bool;
    hit = true;
}
