;; A dynamic value (localN) passed to a static call among the probe's
;; parameters cannot be bound: a bind error (exit 3), as in Wizard.
(module
  (func $f (export "f") (param i32) (result i32) (local.get 0))
  (func (export "wasm:opcode:call(f(local0))") (param i32)))
