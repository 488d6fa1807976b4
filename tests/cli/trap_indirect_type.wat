;; args: --invoke=call 0
(module (type $t (func)) (table 2 funcref) (func $f (param i32)) (elem (i32.const 0) $f)
  (func $call (export "call") (param i32) (call_indirect (type $t) (local.get 0))))
