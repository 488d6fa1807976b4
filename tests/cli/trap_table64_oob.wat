;; args: --invoke=call 4294967296
(module
  (type $t (func (result i32)))
  (table i64 1 funcref)
  (func $f (type $t) (i32.const 7))
  (elem (i64.const 0) func $f)
  (func (export "call") (param i64) (result i32)
    (call_indirect (type $t) (local.get 0))))
