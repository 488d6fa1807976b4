;; args: --invoke=get 5
(module (table 2 funcref) (func $get (export "get") (param i32) (result funcref) (table.get (local.get 0))))
