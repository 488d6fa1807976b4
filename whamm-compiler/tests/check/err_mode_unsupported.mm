wasm:opcode:call:alt { }
wasm:opcode:block:entry { }
wasm:opcode:br_if:at_target { }
wasm:opcode:call:* { }
wasm:opcode:loop:exit { }
wasm:opcode:if:semantic_after { }
