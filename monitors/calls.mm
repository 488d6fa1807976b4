// calls: the call graph with counts.
//
// A direct call's callee is known when the site is matched (`imm0`, kept in
// a per-site variable); its counter is a pure increment. An indirect call's
// callee is read from the table when it runs (`resolved_fid`, -1 when the
// entry is null, out of bounds or not a function of the app) and tallied in
// a per-site map.
wasm:opcode:call|return_call:before {
    report unshared var callee: u32 = imm0;
    report unshared var count: u64;
    count++;
}

wasm:opcode:call_indirect|return_call_indirect:before {
    report unshared var callees: map<i32, u64>;
    callees[resolved_fid]++;
}
