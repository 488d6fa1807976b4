;; The second monitor: its probe on `call` fires after the first monitor's.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func (export "wasm:opcode:call(pc)") (param i32)
    (call $putc (i32.const 50)) (call $putc (i32.const 32))
    (call $puti (local.get 0)) (call $putc (i32.const 10))))
