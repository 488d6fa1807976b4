wasm:opcode:call(res0: i32):after { }
wasm:begin { }
