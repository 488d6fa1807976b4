// branches: for every conditional branch, how often it was taken and not
// taken; for every `br_table`, how often each index was used.
//
// The `if`/`br_if` and `select` probes only test `arg0` against zero and
// increment one counter either way, so the compiled tiers weave each site as
// that test and a fixed counter address on each side (a branch tally), and
// the interpreter performs the increment itself. `br_if` is taken when its operand is not zero; an
// `if` "taken" means its then-arm ran.
wasm:opcode:if|br_if:before {
    report unshared var taken: u64;
    report unshared var not_taken: u64;
    if (arg0 != 0) {
        taken++;
    } else {
        not_taken++;
    }
}

wasm:opcode:select:before {
    report unshared var first: u64;
    report unshared var second: u64;
    if (arg0 != 0) {
        first++;
    } else {
        second++;
    }
}

// `target` is the index used; `num_targets` stands for the default label.
wasm:opcode:br_table:before {
    report unshared var index: map<u32, u64>;
    index[target]++;
}
