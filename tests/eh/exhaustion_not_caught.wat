;; args: --invoke=main
;; Stack exhaustion is a trap: catch_all does not take it.
(module
  (func $deep (param i32) (result i32) (call $deep (i32.add (local.get 0) (i32.const 1))))
  (func (export "main") (result i32)
    (block $h
      (try_table (catch_all $h)
        (drop (call $deep (i32.const 0)))))
    (i32.const -1))
)
