/* Branch monitor: taken / not-taken counts for every br_if and if,
   and the distribution of br_table targets. */
var taken: map<(u32, u32), u64>;
var not_taken: map<(u32, u32), u64>;
report var table_hits: map<(u32, u32, u32), u32>;

wasm:opcode:br_if|if(arg0: i32):before {
    if (arg0 != 0) {
        taken[(fid, pc)]++;
    } else {
        not_taken[(fid, pc)]++;
    }
}

wasm:opcode:br_table(arg0: i32):before {
    var t: u32 = arg0 as u32;
    if (t > num_targets) { t = num_targets; }
    table_hits[(fid, pc, t)]++;
}

wasm:opcode:br:before / fid == 3 && pc != 2 / {
    taken[(fid, pc)] = taken[(fid, pc)] + 1;
}
