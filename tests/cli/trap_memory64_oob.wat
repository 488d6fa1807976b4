;; args: --invoke=peek 4294967312
(module (memory i64 1)
  (func $peek (export "peek") (param i64) (result i32)
    (i32.load offset=8 (local.get 0))))
