;; Probes small enough to be inlined by the JIT: globals, the monitor's own
;; memory, a nested call to a helper, `return`, a loop, and a per-site counter
;; address from a static call. Output must not depend on tier or inlining.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (global $calls (mut i32) (i32.const 0))
  (global $sum (mut i64) (i64.const 0))
  (global $next (mut i32) (i32.const 64))
  (func (export "slot") (param i32 i32) (result i32) (global.set $next (i32.add (global.get $next) (i32.const 8))) (global.get $next))
  (func $bump (param $a i32) (param $by i64)
    (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (local.get $by))))
  ;; per-site counter (static call result is the address)
  (func (export "wasm:opcode:*(slot(fid, pc))") (param $a i32) (call $bump (local.get $a) (i64.const 1)))
  ;; early return and a loop in a probe
  (func (export "wasm:opcode:i32.rem_u(arg0, arg1)") (param $d i32) (param $n i32) (local $i i32)
    (if (i32.eqz (local.get $d)) (then (return)))
    (loop $l
      (global.set $sum (i64.add (global.get $sum) (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n)))))
  (func (export "wasm:opcode:call") (global.set $calls (i32.add (global.get $calls) (i32.const 1))))
  (func (export "wasm:exit") (local $a i32) (local $t i64)
    (local.set $a (i32.const 72))
    (block $d (loop $l (br_if $d (i32.gt_u (local.get $a) (global.get $next)))
      (local.set $t (i64.add (local.get $t) (i64.load (local.get $a))))
      (local.set $a (i32.add (local.get $a) (i32.const 8))) (br $l)))
    (call $puti (global.get $calls)) (call $putc (i32.const 32))
    (call $puti (i32.wrap_i64 (global.get $sum))) (call $putc (i32.const 32))
    (call $puti (i32.wrap_i64 (local.get $t))) (call $putc (i32.const 10)))
)
