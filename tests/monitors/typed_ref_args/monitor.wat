;; Binds the operands of the typed-reference instructions: call_ref's
;; reference and arguments, br_on_null's reference before it and (not
;; taken) after it, br_on_non_null's reference.
(module
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (func $p (param i32) (call $puti (local.get 0)) (call $putc (i32.const 32)))
  ;; call_ref $bin: arg0 the reference, arg1 and arg2 the i32 arguments
  (func (export "wasm:opcode:call_ref(arg2, arg1, arg0)") (param i32 i32 funcref)
    (call $p (local.get 0)) (call $p (local.get 1))
    (call $p (ref.is_null (local.get 2))) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:br_on_null(arg0)") (param funcref)
    (call $putc (i32.const 110)) (call $p (ref.is_null (local.get 0))))
  (func (export "wasm:opcode:br_on_null:after(arg0)") (param funcref)
    (call $putc (i32.const 97)) (call $p (ref.is_null (local.get 0))))
  (func (export "wasm:opcode:br_on_non_null(arg0)") (param funcref)
    (call $putc (i32.const 115)) (call $p (ref.is_null (local.get 0))) (call $putc (i32.const 10)))
)
