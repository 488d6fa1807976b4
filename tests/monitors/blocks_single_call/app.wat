;; A loop whose straight-line body traps in its middle (mode 1: an
;; out-of-bounds load at the 5th iteration; mode 2: a divide by zero in the
;; middle of a callee at the 6th call; mode 3: no trap). The sites after the
;; trapping instruction in its block must not be counted.
(module
  (memory 1)
  (func $div (param $x i32) (param $y i32) (result i32) (local $r i32)
    (local.set $r (i32.const 7))
    (local.set $r (i32.div_u (local.get $x) (local.get $y)))
    (local.set $r (i32.add (local.get $r) (i32.const 1)))
    (i32.mul (local.get $r) (i32.const 2)))
  (func (export "run") (param $mode i32) (result i32) (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc
        (i32.add (local.get $acc)
          (i32.load (i32.mul (i32.mul (local.get $i) (i32.and (local.get $mode) (i32.const 1))) (i32.const 16384)))))
      (local.set $acc (i32.xor (local.get $acc) (local.get $i)))
      (if (i32.eq (local.get $mode) (i32.const 2))
        (then (local.set $acc (i32.add (local.get $acc)
          (call $div (i32.const 10) (i32.sub (i32.const 5) (local.get $i)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (local.get $acc))
)
