;; `ref_func_before` (Part B): N where the instruction just before is
;; `ref.func N`, else -1; whamm's `resolved_fid` at call_ref and table.set.
;; Prints "opcode fid:pc value" per execution.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func $line (param i32 i32 i32 i32)
    (call $putc (local.get 0)) (call $putc (i32.const 32))
    (call $puti (local.get 3)) (call $putc (i32.const 58))
    (call $puti (local.get 1)) (call $putc (i32.const 32))
    (call $puti (local.get 2)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:call_ref(pc, ref_func_before, fid)") (param i32 i32 i32)
    (call $line (i32.const 99) (local.get 0) (local.get 1) (local.get 2)))
  (func (export "wasm:opcode:table.set(pc, ref_func_before, fid)") (param i32 i32 i32)
    (call $line (i32.const 115) (local.get 0) (local.get 1) (local.get 2))))
