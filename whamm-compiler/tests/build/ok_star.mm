// Probes on every opcode whose code is the same for each: one
// `wasm:opcode:*` export each. The allocators take the site's `opcode` to
// find its probe id; the second probe's predicate and initializer read
// per-opcode constants by it too; the third has no per-site state (no
// allocator), the fourth is an `:after` probe.
report var total: u64;

wasm:opcode:*:before {
    report unshared var count: u64;
    count++;
}

wasm:opcode:*:before / at_func_end || opname != "end" / {
    report unshared var cat: u32 = category_id;
    report unshared var reached: bool;
    reached = true;
}

wasm:opcode:*:before {
    total++;
}

wasm:opcode:*:after / fid == 1 / {
    report unshared var done: u32;
    done++;
}
