;; atomic.fence's reserved zero byte is its imm0, as in Wizard; an atomic
;; store's memarg is imm0..imm2.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func (export "wasm:opcode:atomic.fence(pc, imm0)") (param i32 i32)
    (call $puti (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 1)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:i32.atomic.store8(imm0, imm1, imm2)") (param i32 i32 i32)
    (call $puti (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 1)) (call $putc (i32.const 32))
    (call $puti (local.get 2)) (call $putc (i32.const 10))))
