;; `fname` among the probe's own parameters (not in a static call) cannot be
;; bound: a bind error at the first `call` the predicate accepts (see
;; bind_pred_rejects for a predicate that accepts none).
(module
  (memory (export "whamm_buffer") 1)
  (global (export "whamm_buffer:start") i32 (i32.const 0))
  (global (export "whamm_buffer:max") i32 (i32.const 64))
  (func $pred (export "pred") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 3)))
  (func (export "wasm:opcode:call / pred(fid) / (fname)") (param i32 i32)))
