(module
  (import "monitor" "say" (func $say))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  ;; only the calls in $main (func 3)
  (func (export "pred") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 3)))
  (func (export "probe") (param i32 i32)
    (call $say) (call $puti (local.get 0)) (call $putc (i32.const 43))
    (call $puti (local.get 1)) (call $putc (i32.const 10))))
