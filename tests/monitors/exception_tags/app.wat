;; An app with a tag of its own, thrown and caught with try_table (the
;; standardised form, which Wasmtime runs too), and a second tag it throws
;; out of a callee.
(module
  (type $print_t (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (type $print_t)))
  (tag $small (param i32))
  (tag $big (param i32 i32))
  (memory (export "memory") 1)
  (func $check (param $v i32)
    (if (i32.gt_u (local.get $v) (i32.const 5))
      (then (throw $big (local.get $v) (i32.const 2))))
    (if (i32.gt_u (local.get $v) (i32.const 2))
      (then (throw $small (local.get $v)))))
  ;; 0: passed, 1: small, 2: big
  (func $classify (param $v i32) (result i32)
    (block $on_big (result i32 i32)
      (block $on_small (result i32)
        (try_table (catch $small $on_small) (catch $big $on_big)
          (call $check (local.get $v)))
        (return (i32.const 0)))
      (drop) (return (i32.const 1)))
    (drop) (drop) (i32.const 2))
  (func $main (export "_start") (local $i i32)
    (loop $l
      (i32.store8 (local.get $i) (i32.add (i32.const 48) (call $classify (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 8))))
    (i32.store8 (i32.const 8) (i32.const 10))
    (i32.store (i32.const 100) (i32.const 0))
    (i32.store (i32.const 104) (i32.const 9))
    (drop (call $fd_write (i32.const 1) (i32.const 100) (i32.const 1) (i32.const 108)))))
