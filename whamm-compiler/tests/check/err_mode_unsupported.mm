wasm:opcode:call:alt { }
wasm:opcode:block:entry { }
wasm:opcode:br_if:at_target { }
wasm:opcode:call:* { }
