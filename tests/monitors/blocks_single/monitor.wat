;; One probe per basic block (`block:end`, as whamm's basic-block profiling
;; script): a straight-line block of the woven code holds one countable
;; probe, and the JIT still counts it through a block counter rather than
;; inlining it. The counter is a `u32` in an 8-byte slot, zero-extended (how
;; whamm keeps `report var count: u32`); each slot's upper half starts
;; non-zero (0x5eed), so the exit shows which sites ran at all. The app
;; traps in the middle of a block (before its `block:end` site): that last
;; execution must not be counted.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  ;; records from 0x100: (fid i32, pc i32, count u32 in an 8-byte slot)
  (global $next (mut i32) (i32.const 0x100))
  (func $site (export "site") (param $fid i32) (param $pc i32) (result i32) (local $a i32)
    (local.set $a (global.get $next))
    (i32.store (local.get $a) (local.get $fid))
    (i32.store offset=4 (local.get $a) (local.get $pc))
    (i32.store offset=12 (local.get $a) (i32.const 0x5eed))
    (global.set $next (i32.add (local.get $a) (i32.const 16)))
    (i32.add (local.get $a) (i32.const 8)))
  (func (export "wasm:block:end($site(fid, pc))") (param $c i32)
    (i64.store (local.get $c)
      (i64.extend_i32_u (i32.add (i32.load (local.get $c)) (i32.const 1)))))
  (func (export "wasm:exit") (local $a i32)
    (local.set $a (i32.const 0x100))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (call $puti (i32.load (local.get $a))) (call $putc (i32.const 58))
      (call $puti (i32.load offset=4 (local.get $a))) (call $putc (i32.const 61))
      (call $puti (i32.load offset=8 (local.get $a))) (call $putc (i32.const 47))
      (call $puti (i32.load offset=12 (local.get $a))) (call $putc (i32.const 10))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (br $l))))
)
