;; `wizeng:app.memory_size`/`page_size`: in a static call at match time the
;; app is not instantiated (its declared sizes), in a probe its live sizes;
;; -1 for a memory the app does not have. Prints "pc: size_at_match
;; size_now page_size(1) page_size(0) page_size(2)" per memory.size.
(module
  (import "wizeng:app" "memory_size" (func $size (param i32) (result i32)))
  (import "wizeng:app" "page_size" (func $page (param i32) (result i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func $sp (call $putc (i32.const 32)))
  (func (export "declared") (result i32) (call $size (i32.const 1)))
  (func (export "wasm:opcode:memory.size(pc, declared())") (param i32 i32)
    (call $puti (local.get 0)) (call $putc (i32.const 58)) (call $sp)
    (call $puti (local.get 1)) (call $sp)
    (call $puti (call $size (i32.const 1))) (call $sp)
    (call $puti (call $page (i32.const 1))) (call $sp)
    (call $puti (call $page (i32.const 0))) (call $sp)
    (call $puti (call $page (i32.const 2))) (call $putc (i32.const 10))))
