// `wasm:report` replaces the default report (L6); `wasm:end` bodies run
// first, in script order; report variables are still declared as usual.
report var calls: u32;
report var last: (u32, u32);
wasm:opcode:call:before { calls++; last = (fid, pc); }
wasm:end { println("end 1"); }
wasm:report { println("custom report: {} calls, last {}", calls, last); }
wasm:end { println("end 2"); }
wasm:report / calls > 100 / { println("never printed"); }
