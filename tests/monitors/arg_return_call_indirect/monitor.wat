;; An operand beyond a return_call_indirect's (argument, table index) is a bind error, as in Wizard.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func (export "wasm:opcode:return_call_indirect(pc, arg2)") (param i32 i32)
    (call $puti (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 1)) (call $putc (i32.const 10))))
