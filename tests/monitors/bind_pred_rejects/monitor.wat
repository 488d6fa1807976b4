;; A parameter that cannot be bound in the probe (`opname` outside a static
;; call) is no error where the predicate rejects every site: the monitor runs.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (global $n (mut i32) (i32.const 0))
  (func $never (export "never") (param i32) (result i32)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (i32.const 0))
  (func (export "wasm:opcode:call / never(fid) / (opname)") (param i32 i32) unreachable)
  ;; how many `call` sites the predicate saw
  (func (export "wasm:exit") (call $puti (global.get $n)) (call $putc (i32.const 10))))
