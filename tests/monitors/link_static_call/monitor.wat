;; A static call among the probe's parameters that a library answers: the
;; monitor re-exports the library's `alloc`, called once per matched site
;; at match time (printing the site), and the probe counts into that slot.
(module
  (import "lib" "alloc" (func $alloc (param i32 i32) (result i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory 1)
  (export "alloc" (func $alloc))
  (func (export "wasm:opcode:call(alloc(fid, pc))") (param $slot i32)
    (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1))))
  (func (export "wasm:exit") (local $a i32)
    (call $putc (i32.const 10))
    (local.set $a (i32.const 4))
    (loop $l
      (call $puti (i32.load (local.get $a))) (call $putc (i32.const 32))
      (local.set $a (i32.add (local.get $a) (i32.const 4)))
      (br_if $l (i32.load (local.get $a))))
    (call $putc (i32.const 10))))
