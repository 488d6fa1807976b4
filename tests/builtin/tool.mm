// A probe script given to wizeng directly: count the calls at each call site.
wasm:opcode:call:before {
    report unshared var count: u64;
    count++;
}

wasm:exit {
    println("tool.mm done");
}
