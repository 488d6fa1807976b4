;; v128 values in params, locals (slots shifted by an earlier v128) and
;; operands, for probes that bind them (monitor.wat).
(module
  (func $mix (param $a v128) (param $n i32) (result v128) (local $t v128)
    (local.set $t (i32x4.add (local.get $a) (v128.const i32x4 1 2 3 4)))
    (i32x4.mul (local.get $t) (i32x4.splat (local.get $n))))
  (func (export "_start") (local $i i32) (local $acc v128)
    (local.set $acc (v128.const i32x4 10 20 30 40))
    (loop $l
      (local.set $acc (call $mix (local.get $acc) (i32.const 2)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 2))))
    (drop (i32x4.extract_lane 3 (local.get $acc))))
)
