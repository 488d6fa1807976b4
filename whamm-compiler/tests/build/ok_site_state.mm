// Per-site state: a static call allocates each site's record at match time.
wasm:opcode:call(arg0: i32):before {
    report var count: u32;
    report unshared var args: map<i32, u32> ;
    unshared var first: u32 = pc;
    count++;
    args[arg0]++;
    if (first != pc) { println("impossible"); }
}
wasm:opcode:br_table:before { println("{} {}", fname, num_targets); }
