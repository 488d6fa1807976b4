;; `wizeng:lib.memory_read(name_ptr, name_len, src, dst, len)`: bytes of
;; the memory a library of this monitor exports, copied into the monitor's
;; memory 0; -1 for a name that is not a library with a memory, and for a
;; range out of bounds. Read in the start function too: libraries are
;; linked before their monitor starts.
(module
  (import "wizeng:lib" "memory_read" (func $read (param i32 i32 i32 i32 i32) (result i32)))
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "textlib")
  (data (i32.const 8) "nolib")
  (global $at_start (mut i32) (i32.const 7))
  (func $start
    (global.set $at_start
      (call $read (i32.const 0) (i32.const 7) (i32.const 16) (i32.const 100) (i32.const 22))))
  (start $start)
  (func (export "wasm:exit")
    (call $puti (global.get $at_start)) (call $putc (i32.const 32))
    (call $puts (i32.const 100) (i32.const 22)) (call $putc (i32.const 10))
    (call $puti (call $read (i32.const 8) (i32.const 5) (i32.const 16) (i32.const 200) (i32.const 4)))
    (call $putc (i32.const 32))
    (call $puti (call $read (i32.const 0) (i32.const 7) (i32.const 65530) (i32.const 200) (i32.const 10)))
    (call $putc (i32.const 10))))
