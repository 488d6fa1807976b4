;; A small probe with a v128 local of its own (not a parameter): the JIT
;; inlines it into woven code, which must zero-initialise that local.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (global $last (mut i32) (i32.const 0))
  (global $sum (mut i32) (i32.const 0))
  (func (export "wasm:opcode:i32x4.add:after(arg0)") (param v128) (local $t v128)
    ;; $t starts as zero on every call
    (global.set $sum (i32.add (global.get $sum) (i32x4.extract_lane 3 (local.get $t))))
    (local.set $t (local.get 0))
    (global.set $last (i32x4.extract_lane 3 (local.get $t))))
  (func (export "wasm:exit")
    (call $puti (global.get $last)) (call $putc (i32.const 32))
    (call $puti (global.get $sum)) (call $putc (i32.const 10)))
)
