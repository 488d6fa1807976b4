;; Two monitors bind probe_id at the same sites: as in Wizard each gets its
;; own ids, so this one removing its probe by id (a coverage monitor) leaves
;; the other's probe there (second.wat counts every call).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:dyninstr" "remove_probe" (func $remove (param i32)))
  (global $fired (mut i32) (i32.const 0))
  (func (export "wasm:opcode:call(probe_id)") (param i32)
    (global.set $fired (i32.add (global.get $fired) (i32.const 1)))
    (call $remove (local.get 0)))
  (func (export "wasm:exit")
    (call $puti (global.get $fired)) (call $putc (i32.const 10))))
