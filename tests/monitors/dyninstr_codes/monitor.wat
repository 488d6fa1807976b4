;; insert_new_probe's error codes, Wizard's, checked in this order: null
;; function -6, fid out of range -1, imported function -2, pc not an
;; instruction -3, function with params -4, with results -5.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:dyninstr" "insert_new_probe" (func $insert (param i32 i32 funcref) (result i32)))
  (elem declare func $ok $p $r)
  (func $ok)
  (func $p (param i32))
  (func $r (result i32) (i32.const 0))
  (func $show (param i32) (call $puti (local.get 0)) (call $putc (i32.const 32)))
  (func (export "wasm:begin")
    ;; null beats a bad fid
    (call $show (call $insert (i32.const 99) (i32.const 5) (ref.null func)))
    (call $show (call $insert (i32.const 99) (i32.const 5) (ref.func $ok)))
    (call $show (call $insert (i32.const -1) (i32.const 5) (ref.func $ok)))
    ;; func 0 is the app's fd_write import
    (call $show (call $insert (i32.const 0) (i32.const 5) (ref.func $ok)))
    ;; pc 2 is inside `local.get 0` of $inc (pc 1); the bad pc beats the bad type
    (call $show (call $insert (i32.const 1) (i32.const 2) (ref.func $p)))
    (call $show (call $insert (i32.const 1) (i32.const 1) (ref.func $p)))
    (call $show (call $insert (i32.const 1) (i32.const 1) (ref.func $r)))
    (call $putc (i32.const 10))))
