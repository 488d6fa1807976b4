;; Per-site flags, as whamm keeps `reached = true` (an 8-byte slot), which the
;; JIT folds per block as one store when the block ran. The app traps in the
;; middle of a block (mode 1): the sites after the trap did not run that last
;; time, and their flags must say so if it was their only one.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  ;; records from 0x100: (fid i32, pc i32, flag in an 8-byte slot)
  (global $next (mut i32) (i32.const 0x100))
  (func $site (export "site") (param $fid i32) (param $pc i32) (result i32) (local $a i32)
    (local.set $a (global.get $next))
    (if (i32.gt_u (i32.add (local.get $a) (i32.const 16)) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.const 1)))))
    (i32.store (local.get $a) (local.get $fid))
    (i32.store offset=4 (local.get $a) (local.get $pc))
    (global.set $next (i32.add (local.get $a) (i32.const 16)))
    (i32.add (local.get $a) (i32.const 8)))
  (func (export "wasm:opcode:*($site(fid, pc))") (param $c i32)
    (i64.store (local.get $c) (i64.extend_i32_u (i32.const 1))))
  (func (export "wasm:opcode:i32.load:after($site(fid, pc))") (param $c i32)
    (i64.store (local.get $c) (i64.const 2)))
  (func (export "wasm:exit") (local $a i32)
    (call $puti (i32.load8_u (i32.const 0x80))) (call $putc (i32.const 10))
    (local.set $a (i32.const 0x100))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (call $puti (i32.load (local.get $a))) (call $putc (i32.const 58))
      (call $puti (i32.load offset=4 (local.get $a))) (call $putc (i32.const 61))
      (call $puti (i32.wrap_i64 (i64.load offset=8 (local.get $a)))) (call $putc (i32.const 10))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (br $l))))
)
