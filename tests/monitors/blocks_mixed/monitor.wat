;; Pure per-site counters (at every local.get) mixed with probes that read
;; them: before every call, and at every i32.mul (mid-block), print the total
;; of all counters so far. They must see exact counts: the JIT does not
;; block-count a memory that such a probe can reach. Run beside the per-site
;; monitor of blocks_trap_load, whose counters are block-counted: this
;; monitor's probes cannot read them, but they split its blocks.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (global $next (mut i32) (i32.const 0x100))
  (func $site (export "site") (param $fid i32) (param $pc i32) (result i32) (local $a i32)
    (local.set $a (global.get $next))
    (global.set $next (i32.add (local.get $a) (i32.const 8)))
    (local.get $a))
  (func (export "wasm:opcode:local.get($site(fid, pc))") (param $c i32)
    (i64.store (local.get $c) (i64.add (i64.load (local.get $c)) (i64.const 1))))
  (func $total (param $tag i32) (param $pc i32) (local $a i32) (local $t i64)
    (local.set $a (i32.const 0x100))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (local.set $t (i64.add (local.get $t) (i64.load (local.get $a))))
      (local.set $a (i32.add (local.get $a) (i32.const 8)))
      (br $l)))
    (call $putc (local.get $tag)) (call $puti (local.get $pc)) (call $putc (i32.const 61))
    (call $puti (i32.wrap_i64 (local.get $t))) (call $putc (i32.const 10)))
  (func (export "wasm:opcode:call(pc)") (param $pc i32) (call $total (i32.const 99) (local.get $pc)))
  (func (export "wasm:opcode:i32.mul(pc)") (param $pc i32) (call $total (i32.const 109) (local.get $pc)))
  (func (export "wasm:exit") (call $total (i32.const 120) (i32.const 0)))
)
