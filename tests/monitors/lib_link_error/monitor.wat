(module (import "bad" "f" (func $f)) (func (export "wasm:opcode:call") (call $f)))
