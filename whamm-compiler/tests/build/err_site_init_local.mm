wasm:opcode:call:before { var here: u32 = pc; report var at: u32 = here; }
