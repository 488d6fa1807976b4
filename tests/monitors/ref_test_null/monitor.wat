;; Wizard's names: the nullable ref.test and ref.cast are events of their
;; own, `ref.test null` and `ref.cast null` (a space in the export name), and
;; that is their opname; `ref.test`/`ref.cast` match the non-null forms only.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (memory (export "whamm_buffer") 1)
  (global (export "whamm_buffer:start") i32 (i32.const 0))
  (global (export "whamm_buffer:max") i32 (i32.const 64))
  (data (i32.const 0) "test cast test_null cast_null ")
  (global $at (mut i32) (i32.const 0))
  ;; at match time: the site's pc and opname, copied from whamm_buffer
  (func (export "$name") (param $pc i32) (param $p i32) (param $n i32) (result i32)
    (call $puti (local.get $pc)) (call $putc (i32.const 32))
    (memory.copy 0 1 (i32.const 100) (local.get $p) (local.get $n))
    (call $puts (i32.const 100) (local.get $n)) (call $putc (i32.const 10))
    (i32.const 1))
  (func (export "wasm:opcode:ref.test / $name(pc, opname) /(pc)") (param i32)
    (call $puts (i32.const 0) (i32.const 5)) (call $puti (local.get 0)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:ref.cast / $name(pc, opname) /(pc)") (param i32)
    (call $puts (i32.const 5) (i32.const 5)) (call $puti (local.get 0)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:ref.test null / $name(pc, opname) /(pc)") (param i32)
    (call $puts (i32.const 10) (i32.const 10)) (call $puti (local.get 0)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:ref.cast null / $name(pc, opname) /(pc)") (param i32)
    (call $puts (i32.const 20) (i32.const 10)) (call $puti (local.get 0)) (call $putc (i32.const 10))))
