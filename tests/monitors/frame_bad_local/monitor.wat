(module
  (import "wizeng:frame_accessor" "get_local_i64" (func $l (param externref i32) (result i64)))
  (func (export "wasm:opcode:br_if(frame)") (param externref) (drop (call $l (local.get 0) (i32.const 0))))
)
