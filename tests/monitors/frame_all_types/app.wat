;; Locals and operands of every numeric type, for the frame accessors.
(module
  (func $f (param $a i32) (param $b i64) (param $c f32) (param $d f64) (result f64)
    (f64.add (f64.add (f64.convert_i32_s (local.get $a)) (f64.convert_i64_s (local.get $b)))
             (f64.add (f64.promote_f32 (local.get $c)) (local.get $d))))
  (func (export "_start") (local $r f64)
    (local.set $r (call $f (i32.const 1) (i64.const 20) (f32.const 300) (f64.const 4000)))
    ;; the monitor doubles every local at the final f64.add: 2+40+600+8000
    (if (f64.ne (local.get $r) (f64.const 8642)) (then unreachable)))
)
