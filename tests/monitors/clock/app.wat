;; A function called 200 times, so that in jit and dyn the monitor's probe
;; (and its clock reads) run compiled.
(module
  (func $work (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func (export "_start") (local $i i32)
    (loop $l
      (drop (call $work (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 200))))))
