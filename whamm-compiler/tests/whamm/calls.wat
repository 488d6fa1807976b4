;; A small app: main calls add 5 times, with a loop and a br_if.
(module
  (func $add (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
  (func $main (export "main")
    (local i32)
    (loop $l
      (drop (call $add (local.get 0) (i32.const 1)))
      (local.set 0 (i32.add (local.get 0) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get 0) (i32.const 5))))))
