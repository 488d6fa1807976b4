;; As in Wizard, `wasm:opcode:select` names the untyped `select` only (a
;; typed `select t` is matched by `wasm:opcode:*` alone). Each line: the
;; rule (S or *), then the pc.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func $line (param i32 i32)
    (call $putc (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 1)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:select(pc)") (param i32) (call $line (i32.const 83) (local.get 0)))
  (func (export "wasm:opcode:*(pc)") (param i32) (call $line (i32.const 42) (local.get 0))))
