;; Per-site counters kept as whamm keeps a `u32` report variable: 4 bytes
;; loaded, incremented, and stored back as 8, zero-extended. The JIT counts
;; such a probe per block (a 4-byte increment whose upper 4 bytes become zero
;; once it has run). Each record's upper half starts non-zero (0x5eed), so a
;; site that never ran keeps it and one that ran has it cleared: the exit
;; prints both halves. The app traps in the middle of a block (mode 1).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  ;; records from 0x100: (fid i32, pc i32, count u32 in an 8-byte slot)
  (global $next (mut i32) (i32.const 0x100))
  (func $site (export "site") (param $fid i32) (param $pc i32) (result i32) (local $a i32)
    (local.set $a (global.get $next))
    (if (i32.gt_u (i32.add (local.get $a) (i32.const 16)) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.const 1)))))
    (i32.store (local.get $a) (local.get $fid))
    (i32.store offset=4 (local.get $a) (local.get $pc))
    (i32.store offset=12 (local.get $a) (i32.const 0x5eed))
    (global.set $next (i32.add (local.get $a) (i32.const 16)))
    (i32.add (local.get $a) (i32.const 8)))
  (func (export "wasm:opcode:*($site(fid, pc))") (param $c i32)
    (i64.store (local.get $c)
      (i64.extend_i32_u (i32.add (i32.load (local.get $c)) (i32.const 1)))))
  ;; after-probes: must not count when the instruction traps
  (func (export "wasm:opcode:i32.load:after($site(fid, pc))") (param $c i32)
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
