(module
  (import "wizeng:frame_accessor" "get_pc" (func $pc (param externref) (result i32)))
  (global $h (mut externref) (ref.null extern))
  (func (export "is_inc") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 1)))
  (func (export "wasm:opcode:i32.add/is_inc(fid)/(frame)") (param externref) (global.set $h (local.get 0)))
  ;; after $inc returned, its handle dangles
  (func (export "wasm:opcode:br_if") (drop (call $pc (global.get $h))))
)
