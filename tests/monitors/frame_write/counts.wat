;; Per-site execution counts (pure increments: the JIT counts them per block)
;; beside frame-modifying probes of another monitor.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory 1)
  (global $next (mut i32) (i32.const 0))
  (func (export "slot") (param i32 i32) (result i32)
    (global.set $next (i32.add (global.get $next) (i32.const 8))) (global.get $next))
  (func (export "wasm:opcode:*(slot(fid, pc))") (param $a i32)
    (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (i64.const 1))))
  ;; executions, and executions weighted by site number
  (func (export "wasm:exit") (local $a i32) (local $n i64) (local $w i64)
    (block $d (loop $l
      (local.set $a (i32.add (local.get $a) (i32.const 8)))
      (br_if $d (i32.gt_u (local.get $a) (global.get $next)))
      (local.set $n (i64.add (local.get $n) (i64.load (local.get $a))))
      (local.set $w (i64.add (local.get $w)
        (i64.mul (i64.load (local.get $a)) (i64.extend_i32_u (local.get $a)))))
      (br $l)))
    (call $puti (i32.wrap_i64 (local.get $n))) (call $putc (i32.const 32))
    (call $puti (i32.wrap_i64 (local.get $w))) (call $putc (i32.const 10)))
)
