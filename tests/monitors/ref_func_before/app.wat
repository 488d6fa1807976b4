;; Funcref operands made by `ref.func` just before the instruction, and
;; others (a local, a table entry).
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (type $t (func (result i32)))
  (table 4 funcref)
  (elem declare func $a $b)
  (func $a (result i32) (i32.const 1))
  (func $b (result i32) (i32.const 2))
  (func $store (param funcref) (table.set (i32.const 0) (local.get 0)))
  (func (export "_start")
    (table.set (i32.const 1) (ref.func $b))       ;; 2
    (call $store (ref.func $a))                  ;; -1 (a local)
    (drop (call_ref $t (ref.func $a)))           ;; 1
    (drop (call_ref $t (ref.cast (ref $t) (table.get (i32.const 1)))))  ;; -1
    (call $exit (i32.const 0))))
