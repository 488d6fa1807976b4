;; A static call inside a static call is a bind error (exit 3), also when the
;; call is among the probe's parameters; local0 in a static call likewise
;; (the second rule, which never gets that far).
(module
  (func $f (export "f") (param i32) (result i32) (local.get 0))
  (func (export "wasm:opcode:call(f(f(fid)))") (param i32))
  (func (export "wasm:opcode:call(f(local0))") (param i32)))
