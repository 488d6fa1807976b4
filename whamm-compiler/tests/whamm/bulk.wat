;; App for `dup_at`: memory.init from a passive segment, memory.copy and
;; memory.fill.
(module
  (memory 1)
  (data $greet "hello, bulk\n")
  (func $main (export "main")
    (memory.init $greet (i32.const 100) (i32.const 0) (i32.const 12))
    (memory.copy (i32.const 200) (i32.const 100) (i32.const 6))
    (memory.fill (i32.const 300) (i32.const 0x2a) (i32.const 4))))
