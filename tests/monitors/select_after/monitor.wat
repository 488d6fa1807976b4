;; `:after` binds argN to the results; for `select` the result type comes from its operands.
(module (import "wizeng" "puti" (func $puti (param i32))) (import "wizeng" "putc" (func $putc (param i32)))
  (func (export "wasm:opcode:select:after(pc, arg0)") (param i32 i32) (call $puti (local.get 0)) (call $putc (i32.const 32)) (call $puti (local.get 1)) (call $putc (i32.const 10))))
