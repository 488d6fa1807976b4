wasm:opcode:nosuch:before { }
wasm:opcode:call { }
wasm:opcode:call:during { }
wasm:func:entry:before { }
wasm:funk:entry { }
js:opcode:call:before { }
wasm:opcode:call(fid: i64):before { }
wasm:opcode:call(nosuch: i32):before { }
