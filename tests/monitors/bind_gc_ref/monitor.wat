(module
  (func (export "wasm:opcode:array.len(arg0)") (param externref)))
