;; wizeng.rdtsc is a monotonic counter: the value read at exit is not smaller
;; than the one read at begin, and the counter moves across the run.
(module
  (import "wizeng" "rdtsc" (func $rdtsc (result i64)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (global $t0 (mut i64) (i64.const 0))
  (global $last (mut i64) (i64.const 0))
  (global $bad (mut i32) (i32.const 0))
  (func (export "wasm:begin") (global.set $t0 (call $rdtsc)) (global.set $last (global.get $t0)))
  (func (export "wasm:opcode:call") (local $t i64)
    (local.set $t (call $rdtsc))
    (if (i64.lt_u (local.get $t) (global.get $last)) (then (global.set $bad (i32.add (global.get $bad) (i32.const 1)))))
    (global.set $last (local.get $t)))
  (func (export "wasm:exit")
    ;; prints 0 (no time went backwards) then 1 (time advanced)
    (call $puti (global.get $bad))
    (call $puti (i64.gt_u (call $rdtsc) (global.get $t0))))
)
