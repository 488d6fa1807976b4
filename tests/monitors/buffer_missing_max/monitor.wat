;; A string parameter needs all three whamm_buffer exports; this monitor
;; names its bound `whamm_buffer:maximum`: bind error, exit 3.
(module
  (memory (export "whamm_buffer") 1)
  (global (export "whamm_buffer:start") i32 (i32.const 16))
  (global (export "whamm_buffer:maximum") i32 (i32.const 8))
  (func $s (export "s") (param i32 i32) (result i32) (local.get 1))
  (func (export "wasm:opcode:call(s(fname))") (param i32)))
