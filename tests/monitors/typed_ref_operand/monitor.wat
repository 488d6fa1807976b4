;; Reads a typed function reference operand ((ref $bin), at the local.set of
;; a non-nullable local): the woven code saves it in a scratch local of its
;; declared type and pushes it back, so the local.set still validates.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (func (export "wasm:opcode:local.set(arg0)") (param funcref)
    (call $puti (ref.is_null (local.get 0)))))
