;; A run of a few microseconds: its loop reaches the dyn threshold (1000
;; iterations) five times, but the run never lasts long enough to pay for a
;; compile (engine/tests/compile_budget.rs).
(module
  (func (export "run") (result i32)
    (local $i i32) (local $sum i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 5000))))
    (local.get $sum)))
