// --portable: only ABI Part A (no begin, no after).
report var loads: map<(u32, u32), u32>;
wasm:opcode:*load*:before { loads[(fid, pc)]++; }
wasm:block:end { var c: u32 = instr_count; }
wasm:end { println("done"); }
