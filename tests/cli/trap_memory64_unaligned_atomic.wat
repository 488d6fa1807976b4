;; args: --invoke=add 4294967296
(module (memory i64 1 1 shared)
  ;; effective address 2^32 + 1: unaligned (checked first) and out of bounds
  (func $add (export "add") (param i64) (result i64)
    (i64.atomic.rmw.add offset=1 (local.get 0) (i64.const 1))))
