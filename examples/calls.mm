// Call counts (the probe-language version of examples/calls.wat): per site,
// how often each direct call ran, and for each `call_indirect`, how often
// each table index was called through it.
wasm:opcode:call:before {
    report unshared var count: u64;
    count++;
}

wasm:opcode:call_indirect:before {
    report unshared var targets: map<u32, u64>;
    targets[arg0 as u32]++;
}
