;; A GC reference binds only to an externref parameter (an opaque app
;; reference, docs/monitor-abi.md); an i32 parameter is a type mismatch.
(module
  (func (export "wasm:opcode:array.len(arg0)") (param i32)))
