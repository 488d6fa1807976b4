(module
  (func (export "wasm:opcode:i32.add") unreachable))
