;; Wizard skips a site, without an error, where a call's argument (`call`,
;; `call_indirect`) or a local has another type than the probe's parameter:
;; the i32 probes on arg1 (an i64 there) and on local0 (an f32) never attach,
;; those on arg0 and local1 do. Elsewhere an operand type mismatch is a bind
;; error (tests/monitors/type_mismatch).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (func $show (param $tag i32) (param $v i32)
    (call $putc (local.get $tag)) (call $putc (i32.const 32))
    (call $puti (local.get $v)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:call(arg1)") (param i32) (call $show (i32.const 97) (local.get 0)))
  (func (export "wasm:opcode:call(arg0)") (param i32) (call $show (i32.const 98) (local.get 0)))
  (func (export "wasm:opcode:call_indirect(arg2)") (param i32) (call $show (i32.const 99) (local.get 0)))
  (func (export "wasm:opcode:call_indirect(arg1)") (param i32) (call $show (i32.const 100) (local.get 0)))
  (func (export "wasm:opcode:drop(local0)") (param i32) (call $show (i32.const 101) (local.get 0)))
  (func (export "wasm:opcode:drop(local1)") (param i32) (call $show (i32.const 102) (local.get 0))))
