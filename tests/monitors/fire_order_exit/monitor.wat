;; `func:exit` at a `return` fires among the `return` and `*` rules in export
;; order (Wizard registers it as a `return` rule); at the final `end`, after
;; the opcode rules. Each line: the tag, fid and pc.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func $line (param $tag i32) (param $a i32) (param $b i32)
    (call $putc (local.get $tag)) (call $putc (i32.const 32))
    (call $puti (local.get $a)) (call $putc (i32.const 32))
    (call $puti (local.get $b)) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:return(fid, pc)") (param i32 i32)
    (call $line (i32.const 82) (local.get 0) (local.get 1)))
  (func (export "wasm:func:exit(fid, pc)") (param i32 i32)
    (call $line (i32.const 88) (local.get 0) (local.get 1)))
  (func (export "wasm:opcode:*(fid, pc)") (param i32 i32)
    (if (i32.eqz (local.get 0))
      (then (call $line (i32.const 42) (local.get 0) (local.get 1))))))
