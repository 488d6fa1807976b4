;; Two rules storing different constants into one shared byte: their order
;; matters, so they stay calls at their sites (with flags.wat, whose per-site
;; flags are folded per block, beside them).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (func (export "wasm:opcode:i32.xor") (i32.store8 (i32.const 0x80) (i32.const 7)))
  (func (export "wasm:opcode:local.set") (i32.store8 (i32.const 0x80) (i32.const 9)))
  (func (export "wasm:exit")
    (call $puti (i32.load8_u (i32.const 0x80))) (call $putc (i32.const 10)))
)
