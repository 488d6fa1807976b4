;; Dynamic probes and the consistency rules of ABI B3.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:dyninstr" "insert_new_probe" (func $insert (param i32 i32 funcref) (result i32)))
  (import "whamm:dyninstr" "remove_probe" (func $remove (param i32)))
  (memory (export "memory") 1)
  (global $idA (mut i32) (i32.const 0))
  (global $idC (mut i32) (i32.const 0))
  (global $nA (mut i32) (i32.const 0))
  (global $nB (mut i32) (i32.const 0))
  (elem declare func $A $B $C $D)
  (func $say (param i32) (call $putc (local.get 0)) (call $putc (i32.const 32)))
  (func $A (call $say (i32.const 65))
    (global.set $nA (i32.add (global.get $nA) (i32.const 1)))
    (if (i32.eq (global.get $nA) (i32.const 1)) (then
      ;; inserted while this site fires: not on this occurrence
      (global.set $idC (call $insert (i32.const 1) (i32.const 5) (ref.func $C)))
      ;; into main, whose frame is running: takes effect in that frame
      (drop (call $insert (i32.const 3) (i32.const 39) (ref.func $D))))))
  (func $B (call $say (i32.const 66))
    (global.set $nB (i32.add (global.get $nB) (i32.const 1)))
    (if (i32.eq (global.get $nB) (i32.const 2)) (then
      ;; removed while this site fires: A already fired, C still fires now, neither later
      (call $remove (global.get $idA))
      (call $remove (global.get $idC)))))
  (func $C (call $say (i32.const 67)))
  (func $D (call $say (i32.const 68)) (call $putc (i32.const 10)))
  (func (export "wasm:begin")
    ;; error codes: bad fid, bad pc, null function
    (call $puti (call $insert (i32.const 99) (i32.const 5) (ref.func $A))) (call $putc (i32.const 32))
    (call $puti (call $insert (i32.const 1) (i32.const 2) (ref.func $A))) (call $putc (i32.const 32))
    (call $puti (call $insert (i32.const 1) (i32.const 5) (ref.null func))) (call $putc (i32.const 10))
    (global.set $idA (call $insert (i32.const 1) (i32.const 5) (ref.func $A)))
    (drop (call $insert (i32.const 1) (i32.const 5) (ref.func $B))))
)
