;; args: --mode=jit --invoke=rmw 2
(module (memory 1 1 shared)
  (func $rmw (export "rmw") (param i32) (result i32)
    (i32.atomic.rmw.add (local.get 0) (i32.const 1))))
