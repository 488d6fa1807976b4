wasm:opcode:call(arg0: i32):after { println("{}", arg0); }
