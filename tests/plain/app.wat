;; The dyn tier with monitors runs a function from its plain body (the app's
;; code, its probes fired beside it) until it compiles it from its woven
;; body: `engine/tests/plain_bodies.rs`.
(module
  (memory 1)
  ;; Called on every iteration: hot at a call, then compiled (woven).
  (func $leaf (param i32) (result i32)
    (if (result i32) (i32.and (local.get 0) (i32.const 1))
      (then (i32.const 3))
      (else (i32.const 5))))
  ;; Called once: only ever interpreted (never woven).
  (func $once (param i32) (result i32)
    (br_if 0 (i32.const 7) (i32.eqz (local.get 0)))
    drop
    (br_table 0 0 (i32.const 9) (i32.and (local.get 0) (i32.const 1))))
  ;; A hot loop in one call: entered in its woven code by OSR.
  (func $run (export "run") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $leaf (local.get $i))))
      (if (i32.eqz (i32.rem_u (local.get $i) (i32.const 7)))
        (then (local.set $s (i32.add (local.get $s) (i32.const 1)))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i32.add (local.get $s) (call $once (local.get $n))))
  ;; Stores out of bounds after `$k` iterations: the trap names the original
  ;; function and pc whichever tier runs it, and counts stop there.
  (func $fill (export "trap") (param $k i32) (result i32) (local $i i32)
    (loop $l
      (br_if 1 (i32.const -1) (i32.gt_u (local.get $i) (i32.const 100000)))
      (i32.store
        (i32.add (i32.mul (local.get $i) (i32.const 4))
          (select (i32.const 70000) (i32.const 0) (i32.ge_u (local.get $i) (local.get $k))))
        (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l))
    (unreachable)))
