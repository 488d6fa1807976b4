wasm:opcode:a[b:before { }
wasm:opcode:call||return_call:before { }
wasm:opcode:call(arg0 i32):before { }
wasm:opcode:call(arg0: int):before { }
