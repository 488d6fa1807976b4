wasm:opcode:call:alt { }
