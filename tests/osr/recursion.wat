;; args: --invoke=run 12
(module
  ;; A loop in a recursive function: OSR in one activation while others are
  ;; still interpreted below it; the callees tier up by call count meanwhile.
  (func $f (param $n i32) (result i64) (local $i i32) (local $s i64)
    (if (i32.le_s (local.get $n) (i32.const 1)) (then (return (i64.const 1))))
    (loop $l
      (local.set $s (i64.add (local.get $s) (i64.extend_i32_s (i32.mul (local.get $i) (local.get $n)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (i64.add (local.get $s)
      (i64.add (call $f (i32.sub (local.get $n) (i32.const 1))) (call $f (i32.sub (local.get $n) (i32.const 2))))))
  (func (export "run") (param i32) (result i64) (call $f (local.get 0))))
