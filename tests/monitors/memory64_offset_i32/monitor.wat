;; A memarg offset above 4 GiB (on a 64-bit memory) does not fit an i32
;; `imm2` parameter: a bind error that says to declare it i64.
(module
  (func (export "wasm:opcode:i64.load(imm2)") (param i32)))
