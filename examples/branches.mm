// Per-site branch tallies (the probe-language version of examples/branches.wat):
// for every br_if, how often it was taken and not taken, printed in the report.
report var taken: map<(u32, u32), u64>;
report var not_taken: map<(u32, u32), u64>;

wasm:opcode:br_if:before {
    if (arg0 != 0) {
        taken[(fid, pc)]++;
    } else {
        not_taken[(fid, pc)]++;
    }
}
