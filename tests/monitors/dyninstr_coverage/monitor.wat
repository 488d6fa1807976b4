;; A coverage monitor that removes its own probes, as whamm's coverage
;; scripts do on Wizard: each static probe (a `probe_id` per site) records
;; its site and removes itself, so it fires once per site however often the
;; site runs. Then a dynamic probe inserted at a covered site gets the next
;; id after the static ones (Wizard's single id space).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:dyninstr" "insert_new_probe" (func $insert (param i32 i32 funcref) (result i32)))
  (import "whamm:dyninstr" "remove_probe" (func $remove (param i32)))
  (global $fires (mut i32) (i32.const 0))
  (global $max_id (mut i32) (i32.const -1))
  (elem declare func $later)
  (func $later (call $putc (i32.const 76)))
  (func (export "wasm:opcode:*(probe_id, fid, pc)") (param $id i32) (param $fid i32) (param $pc i32)
    (global.set $fires (i32.add (global.get $fires) (i32.const 1)))
    (if (i32.gt_s (local.get $id) (global.get $max_id)) (then (global.set $max_id (local.get $id))))
    (call $puti (local.get $fid)) (call $putc (i32.const 58))
    (call $puti (local.get $pc)) (call $putc (i32.const 32))
    (call $remove (local.get $id)))
  (func (export "wasm:exit")
    (call $putc (i32.const 10))
    (call $puti (global.get $fires)) (call $putc (i32.const 32))
    (call $puti (global.get $max_id)) (call $putc (i32.const 32))
    (call $puti (call $insert (i32.const 1) (i32.const 3) (ref.func $later)))
    (call $putc (i32.const 10))))
