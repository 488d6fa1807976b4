(module
  (type $s (struct (field i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $main (export "_start") (local $r (ref null $s)) (local $n i32)
    (local.set $r (struct.new $s (i32.const 7)))
    ;; ref.test (non-null), ref.test null, on an object and on null
    (local.set $n (ref.test (ref $s) (local.get $r)))
    (local.set $n (i32.add (local.get $n) (ref.test (ref null $s) (local.get $r))))
    (local.set $n (i32.add (local.get $n) (ref.test (ref null $s) (ref.null $s))))
    (local.set $n (i32.add (local.get $n) (ref.test (ref $s) (ref.null $s))))
    ;; ref.cast null of null succeeds; ref.cast of an object
    (drop (ref.cast (ref null $s) (ref.null $s)))
    (drop (struct.get $s 0 (ref.cast (ref $s) (local.get $r))))
    ;; print n (3) as a digit
    (i32.store8 (i32.const 100) (i32.add (i32.const 48) (local.get $n)))
    (i32.store8 (i32.const 101) (i32.const 10))
    (i32.store (i32.const 200) (i32.const 100))
    (i32.store (i32.const 204) (i32.const 2))
    (drop (call $fd_write (i32.const 1) (i32.const 200) (i32.const 1) (i32.const 208)))))
