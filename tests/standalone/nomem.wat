;; An app without memory or imports (for tests/standalone/cases.txt): the
;; merged module's WASI output then goes through the helper memory, exported
;; as `memory`.
(module
  (func $fib (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
      (then (local.get 0))
      (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                     (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
  (func (export "_start") (drop (call $fib (i32.const 15)))))
