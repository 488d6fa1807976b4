;; Throws and catches across several frames, with try_table and the legacy
;; form; prints what it caught.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (tag $e (param i32))
  (func $print_digit (param i32)
    (i32.store8 (i32.const 16) (i32.add (i32.const 48) (local.get 0)))
    (i32.store8 (i32.const 17) (i32.const 10))
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 2))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func $thrower (param i32) (throw $e (local.get 0)))
  (func $a (param i32) (call $b (local.get 0)))
  (func $b (param i32) (call $thrower (local.get 0)))
  (func $catch_once (param i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (call $a (local.get 0))
        (i32.const 0))))
  (func $legacy (param i32) (result i32)
    try (result i32)
      try (result i32)
        (call $a (local.get 0))
        (i32.const 0)
      catch $e
        drop
        rethrow 0
      end
    catch $e
    end)
  (func (export "_start") (local $i i32)
    (loop $l
      (call $print_digit (call $catch_once (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 3))))
    (call $print_digit (call $legacy (i32.const 9))))
)
