(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "br_if count: ")
  (func (export "print") (param i32)
    ;; one digit, then a newline
    (i32.store8 (i32.const 13) (i32.add (i32.const 48) (local.get 0)))
    (i32.store8 (i32.const 14) (i32.const 10))
    ;; argc (the app's arguments: just its name) as a digit too
    (drop (call $args (i32.const 64) (i32.const 68)))
    (i32.store8 (i32.const 15) (i32.add (i32.const 48) (i32.load (i32.const 64))))
    (i32.store8 (i32.const 16) (i32.const 10))
    (i32.store (i32.const 100) (i32.const 0))
    (i32.store (i32.const 104) (i32.const 17))
    (drop (call $fd_write (i32.const 1) (i32.const 100) (i32.const 1) (i32.const 108)))))
