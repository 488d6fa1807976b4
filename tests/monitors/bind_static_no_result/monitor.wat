;; A static call whose function returns no value is a bind error (exit 3),
;; as in Wizard (exactly one result).
(module
  (func $f (export "f") (param i32))
  (func (export "wasm:opcode:call(f(fid))") (param i32)))
