;; Several rules on one site and one function under several exports: each
;; export fires with its own arguments, in Wizard's order (export order per
;; site, `*` rules among them); the second monitor's probes come after this
;; one's. Each line: the tag, then the arguments.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (func $line (param $tag i32) (param $a i32) (param $b i32)
    (call $putc (local.get $tag)) (call $putc (i32.const 32))
    (call $puti (local.get $a)) (call $putc (i32.const 32))
    (call $puti (local.get $b)) (call $putc (i32.const 10)))
  ;; one function, two exports with different arguments
  (func $two (param i32 i32) (call $line (i32.const 84) (local.get 0) (local.get 1)))
  (export "wasm:opcode:call(imm0, pc)" (func $two))
  (func (export "wasm:opcode:*(fid, pc)") (param i32 i32)
    (call $line (i32.const 42) (local.get 0) (local.get 1)))
  (export "wasm:opcode:call(pc, fid)" (func $two))
  (func (export "wasm:opcode:end(fid, pc)") (param i32 i32)
    (call $line (i32.const 69) (local.get 0) (local.get 1))))
