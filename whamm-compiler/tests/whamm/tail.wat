;; Tail calls: a recursive `return_call` and a `return_call_indirect`.
(module
  (type $ii (func (param i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $count)
  (func $count (type $ii)
    (if (result i32) (i32.eqz (local.get 0))
      (then (i32.const 100))
      (else (return_call $count (i32.sub (local.get 0) (i32.const 1))))))
  (func $via_table (type $ii)
    (return_call_indirect (type $ii) (local.get 0) (i32.const 0)))
  (func $main (export "main")
    (drop (call $count (i32.const 2)))
    (drop (call $via_table (i32.const 1)))))
