// Count every executed instruction, per opcode name and per site.
report var total: u64;
report var per_op: map<str, u64>;

wasm:opcode:*:before {
    total++;
    per_op[opname]++;
    report unshared var here: u32;
    here++;
}

wasm:end {
    println("executed {} instructions", total);
}
