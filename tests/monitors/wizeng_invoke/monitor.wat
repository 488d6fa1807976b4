;; Wizard's wizeng.invoke0 and tail_invoke0 call a function without
;; parameters or results (here a probe counts the calls it makes); force_gc
;; has nothing to do; a function of another type traps (null too).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng" "invoke0" (func $invoke0 (param funcref)))
  (import "wizeng" "tail_invoke0" (func $tail_invoke0 (param funcref)))
  (import "wizeng" "force_gc" (func $force_gc))
  (global $n (mut i32) (i32.const 0))
  (func $tick (global.set $n (i32.add (global.get $n) (i32.const 1))))
  (func $two (param i32) (result i32) (local.get 0))
  (elem declare func $tick $two)
  (func (export "wasm:opcode:call")
    (call $invoke0 (ref.func $tick))
    (call $tail_invoke0 (ref.func $tick)))
  (func (export "wasm:exit")
    (call $force_gc)
    (call $puti (global.get $n)) (call $putc (i32.const 10))
    (call $invoke0 (ref.func $two))))
