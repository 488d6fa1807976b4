;; args: --invoke=main
;; A trap is never caught: catch_all does not take `unreachable` from a
;; (compiled, in the JIT tiers) callee.
(module
  (func $boom (unreachable))
  (func $mid (call $boom))
  (func (export "main") (result i32)
    (block $h
      (try_table (catch_all $h) (call $mid)))
    (i32.const -1))
)
