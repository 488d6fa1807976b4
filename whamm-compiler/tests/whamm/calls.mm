report var calls: u32;
var seen: map<(u32, u32), u32>;
wasm:opcode:call(arg0: i32):before {
    report var here: u32;
    here++;
    calls++;
    seen[(fid, pc)]++;
    if (arg0 == 1) { println("call at {}:{} in {} arg0={}", fid, pc, fname, arg0); }
}
wasm:opcode:br_if(arg0: i32):before / fid == 1 / {
    println("br_if {}", arg0 != 0);
}
wasm:begin { println("begin"); }
wasm:end { println("seen = {}", seen); println(1000.18); println(-0.0015); println((1, "a", true)); }
