;; A loop of 20 million iterations: interpreted, it would run for about a
;; tenth of a second, so its entry is compiled after well under a
;; millisecond (engine/tests/compile_budget.rs).
(module
  (func (export "run") (result i32)
    (local $i i32) (local $sum i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum) (i32.xor (local.get $i) (i32.const 0x55))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 20000000))))
    (local.get $sum)))
