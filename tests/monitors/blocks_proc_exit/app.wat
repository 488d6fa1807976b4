;; proc_exit in the middle of a function (in a callee, inside a loop): the
;; instructions after the call never run and must not be counted.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func $maybe_exit (param $i i32)
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (if (i32.eq (local.get $i) (i32.const 4))
      (then (call $exit (i32.const 7)) (local.set $i (i32.const 0)) (drop (i32.const 1))))
    (local.set $i (i32.mul (local.get $i) (i32.const 2))))
  (func (export "_start") (local $i i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (call $maybe_exit (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 0)))
      (br $l)))
)
