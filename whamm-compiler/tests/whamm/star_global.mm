// Rules on every opcode without per-site state: one `wasm:opcode:*`
// export each, without an allocator; the second with a match-time
// predicate (`$pred_N(fid)`).
report var total: u64;
report var in_add: u64;

wasm:opcode:*:before {
    total++;
}

wasm:opcode:*:before / fid == 0 / {
    in_add++;
}
