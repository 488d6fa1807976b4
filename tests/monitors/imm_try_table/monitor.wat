;; try_table's immediates as Wizard binds them: imm0 is the block type (-1:
;; i32), and there is no other (the catch clauses are not bound), so imm1 is
;; no match, not an error, as beyond br_table's labels.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func $line (param i32 i32)
    (call $puti (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 1)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:try_table(pc, imm0)") (param i32 i32)
    (call $line (local.get 0) (local.get 1)))
  (func (export "wasm:opcode:try_table(pc, imm1)") (param i32 i32)
    (call $line (local.get 0) (i32.const 999))))
