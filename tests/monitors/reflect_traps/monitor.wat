;; whamm:reflect traps on an index out of range, as Wizard's reflector does:
;; get_import_index of a section without imported entries (the export
;; section, 7) is out of range, as is the function after the last.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:reflect" "get_num_functions" (func $nfuncs (result i32)))
  (import "whamm:reflect" "get_import_index" (func $import_index (param i32 i32) (result i32)))
  (import "whamm:reflect" "read_function_body" (func $body (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $first (mut i32) (i32.const 1))
  ;; the first call site: the import index of the export section's entry 0
  (func (export "wasm:opcode:call") (local $r i32)
    (if (global.get $first) (then
      (global.set $first (i32.const 0))
      (local.set $r (call $import_index (i32.const 7) (i32.const 0)))
      (call $puti (local.get $r)) (call $putc (i32.const 10)))))
  (func (export "wasm:exit")
    (call $puti (call $body (i32.const 0) (i32.const 0) (i32.const 0)))
    (call $putc (i32.const 10))
    (drop (call $body (call $nfuncs) (i32.const 0) (i32.const 0)))))
