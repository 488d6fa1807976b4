;; args: --invoke=peek 65534
(module (memory 1) (func $peek (export "peek") (param i32) (result i32) (i32.load offset=0 (local.get 0))))
