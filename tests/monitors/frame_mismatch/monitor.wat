;; set_local_i64 of local 1 after every `local.set`: local 1 is an i64 in $f
;; but an i32 in $main, so the JIT cannot make it an intrinsic there; the app
;; runs in the interpreter, whose accessor traps at the first mismatch (in
;; every tier: the ABI's behaviour, not a silent write).
(module
  (import "wizeng:frame_accessor" "set_local_i64" (func $set_local_i64 (param externref i32 i64)))
  (func (export "wasm:opcode:local.set:after(frame)") (param $f externref)
    (call $set_local_i64 (local.get $f) (i32.const 1) (i64.const 7)))
)
