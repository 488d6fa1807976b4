// Per-site branch tallies (the probe-language version of examples/branches.wat):
// for every `if` and `br_if`, how often it was taken and not taken, and for
// every `br_table`, how often each index was used. `unshared` gives each
// matched site its own variables, allocated at match time: the `if`/`br_if`
// probes only test `arg0` against zero, so the JIT inlines them with a fixed
// counter address on each side and the interpreter performs them directly.
wasm:opcode:if|br_if:before {
    report unshared var taken: u64;
    report unshared var not_taken: u64;
    if (arg0 != 0) {
        taken++;
    } else {
        not_taken++;
    }
}

wasm:opcode:br_table:before {
    report unshared var index: map<u32, u64>;
    index[arg0 as u32]++;
}
