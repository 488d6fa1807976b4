;; `opname` among the probe's own parameters (not in a static call) cannot be
;; bound (Wizard: "not supported dynamically"): a bind error (exit 3).
(module
  (memory (export "whamm_buffer") 1)
  (global (export "whamm_buffer:start") i32 (i32.const 0))
  (global (export "whamm_buffer:max") i32 (i32.const 64))
  (func (export "wasm:opcode:call(opname)") (param i32 i32)))
