;; args: --invoke=call 7
(module (type $t (func)) (table 2 funcref)
  (func $call (export "call") (param i32) (call_indirect (type $t) (local.get 0))))
