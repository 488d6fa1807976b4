;; args: --mode=jit --invoke=cas 65536
(module (memory 1 1 shared)
  (func $cas (export "cas") (param i32) (result i64)
    (i64.atomic.rmw.cmpxchg (local.get 0) (i64.const 0) (i64.const 1))))
