;; An operand beyond a return_call's is a bind error, as in Wizard (no match only at call and call_indirect).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func (export "wasm:opcode:return_call(pc, arg1)") (param i32 i32)
    (call $puti (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 1)) (call $putc (i32.const 10))))
