;; Frame accessors with an index that is not a constant (a global): no
;; intrinsic, so the app runs in the interpreter, with the same effect as
;; frame_write's constant-index `br_if` probe (i += 1: the loop runs every
;; other i).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng:frame_accessor" "get_local_i32" (func $get_local_i32 (param externref i32) (result i32)))
  (import "wizeng:frame_accessor" "set_local_i32" (func $set_local_i32 (param externref i32 i32)))
  (global $k (mut i32) (i32.const 0))
  (global $n (mut i32) (i32.const 0))
  (func (export "wasm:opcode:br_if(frame)") (param $f externref)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (call $set_local_i32 (local.get $f) (global.get $k)
      (i32.add (call $get_local_i32 (local.get $f) (global.get $k)) (i32.const 1))))
  (func (export "wasm:exit") (call $puti (global.get $n)))
)
