// Engine target (Part B): after mode and wasm:begin.
var r: map<u32, i64>;
wasm:begin { println("start"); }
wasm:opcode:call(res0: i64):after { r[fid] = res0; }
wasm:opcode:memory.grow:after { if (failed) { println("grow failed"); } }
wasm:end { println("{}", r); }
