;; `br_on_cast` has no immediates a monitor can bind, as in Wizard (which
;; reads none for it): imm0 is out of range, a bind error (exit 3).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (func (export "wasm:opcode:br_on_cast(imm0)") (param i32) (call $puti (local.get 0))))
