;; A static call of site facts whose function takes other parameters than
;; the facts give (here one `i32` too few for fid and fname's pointer and
;; length) is the same bind error as any static call's mismatch (exit 3).
(module
  (memory (export "whamm_buffer") 1)
  (global (export "whamm_buffer:start") i32 (i32.const 16))
  (global (export "whamm_buffer:max") i32 (i32.const 64))
  (func $f (export "f") (param i32 i32) (result i32) (local.get 0))
  (func (export "wasm:opcode:call(f(fid, fname))") (param i32)))
