;; args: --invoke=run 5
(module
  (memory 1)
  ;; An out-of-bounds store after some iterations of an inner loop: the trap
  ;; must name the original function and pc, whichever tier runs the loop.
  (func $fill (export "run") (param $k i32) (result i32) (local $i i32) (local $p i32)
    (loop $outer
      (local.set $i (i32.const 0))
      (block $done
        (loop $inner
          (br_if $done (i32.ge_u (local.get $i) (i32.const 10)))
          (local.set $p (i32.add (i32.mul (local.get $k) (i32.const 16000)) (i32.mul (local.get $i) (i32.const 4))))
          (i32.store (local.get $p) (local.get $i))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $inner)))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $outer (i32.lt_u (local.get $k) (i32.const 100))))
    (local.get $k)))
