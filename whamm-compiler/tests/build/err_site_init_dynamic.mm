wasm:opcode:br_if(arg0: i32):before { unshared var x: i32 = arg0; x++; }
