;; A static call's result must have the type of the probe parameter it
;; fills: an i64 result for an i32 parameter is a bind error (exit 3).
(module
  (func $f (export "f") (param i32) (result i64) (i64.extend_i32_u (local.get 0)))
  (func (export "wasm:opcode:call(f(fid))") (param i32)))
