;; A static call with fewer arguments than its function has parameters is a
;; bind error (exit 3), as in Wizard.
(module
  (func $f (export "f") (param i32 i32) (result i32) (local.get 0))
  (func (export "wasm:opcode:call(f(fid))") (param i32)))
