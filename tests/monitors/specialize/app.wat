;; Operands 0, 1, 2, -1, 0x80000000 and others reach br_if, if, i32.and,
;; i32.or and i32.xor.
(module
  (func $step (param $i i32) (result i32)
    (local $v i32)
    ;; v = one of 0, 1, 2, -1, 0x80000000, 0, 7 by i mod 7
    (local.set $v
      (block $b (result i32)
        (block $six (block $five (block $four (block $three (block $two (block $one (block $zero
          (br_table $zero $one $two $three $four $five $six (i32.rem_u (local.get $i) (i32.const 7))))
          (br $b (i32.const 0)))
          (br $b (i32.const 1)))
          (br $b (i32.const 2)))
          (br $b (i32.const -1)))
          (br $b (i32.const 0x80000000)))
          (br $b (i32.const 0)))
        (i32.const 7)))
    (if (local.get $v) (then (drop (i32.or (i32.const 1) (local.get $v)))))
    (drop (i32.and (local.get $i) (local.get $v)))
    (drop (i32.xor (local.get $i) (local.get $v)))
    (block $out (br_if $out (local.get $v)) (return (i32.const 3)))
    (local.get $v))
  (func (export "_start") (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc (i32.add (local.get $acc) (call $step (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 100)))))
)
