;; Every site's own counter (pure increments, counted per block in the JIT),
;; printed at exit as fid:pc=count, one line per probe rule and site. Used by
;; the blocks_* cases and engine/tests/block_counts.rs: any count folded
;; wrongly shows up as a different line.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  ;; records from 0x100: (fid i32, pc i32, count i64)
  (global $next (mut i32) (i32.const 0x100))
  (func $site (export "site") (param $fid i32) (param $pc i32) (result i32) (local $a i32)
    (local.set $a (global.get $next))
    (if (i32.gt_u (i32.add (local.get $a) (i32.const 16)) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.const 1)))))
    (i32.store (local.get $a) (local.get $fid))
    (i32.store offset=4 (local.get $a) (local.get $pc))
    (global.set $next (i32.add (local.get $a) (i32.const 16)))
    (i32.add (local.get $a) (i32.const 8)))
  (func $inc (param $c i32)
    (i64.store (local.get $c) (i64.add (i64.load (local.get $c)) (i64.const 1))))
  (func (export "wasm:func:entry($site(fid, pc))") (param $c i32) (call $inc (local.get $c)))
  (func (export "wasm:opcode:*($site(fid, pc))") (param $c i32)
    (i64.store (local.get $c) (i64.add (i64.load (local.get $c)) (i64.const 1))))
  ;; after-probes: must not count when the instruction traps
  (func (export "wasm:opcode:i32.load:after($site(fid, pc))") (param $c i32) (call $inc (local.get $c)))
  (func (export "wasm:opcode:i32.div_u:after($site(fid, pc))") (param $c i32) (call $inc (local.get $c)))
  (func (export "wasm:opcode:call:after($site(fid, pc))") (param $c i32) (call $inc (local.get $c)))
  (func (export "wasm:exit") (local $a i32)
    (local.set $a (i32.const 0x100))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (call $puti (i32.load (local.get $a))) (call $putc (i32.const 58))
      (call $puti (i32.load offset=4 (local.get $a))) (call $putc (i32.const 61))
      (call $puti (i32.wrap_i64 (i64.load offset=8 (local.get $a)))) (call $putc (i32.const 10))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (br $l))))
)
