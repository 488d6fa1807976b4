;; Hotness: one counter per instruction site, incremented every time the
;; instruction executes. The static call `$site(fid, pc)` runs once per site at
;; load time and returns the address of that site's counter, so the probe is a
;; pure increment. At exit it prints the number of sites, the total count and
;; the hottest site.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "hotness: sites=")
  (data (i32.const 16) " total=")
  (data (i32.const 24) " hottest=")
  ;; site records from 0x100: (fid i32, pc i32, count i64) = 16 bytes
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
    (i64.store (local.get $c) (i64.add (i64.load (local.get $c)) (i64.const 1))))
  ;; print a u64 in decimal
  (func $putu64 (param $v i64) (local $buf i32) (local $n i32)
    (local.set $buf (i32.const 96))
    (loop $l
      (local.set $buf (i32.sub (local.get $buf) (i32.const 1)))
      (i32.store8 (local.get $buf) (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $l (i64.ne (local.get $v) (i64.const 0))))
    (call $puts (local.get $buf) (i32.sub (i32.const 96) (local.get $buf))))
  (func (export "wasm:exit") (local $a i32) (local $total i64) (local $best i32) (local $c i64)
    (local.set $a (i32.const 0x100))
    (local.set $best (i32.const 0x100))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (local.set $c (i64.load offset=8 (local.get $a)))
      (local.set $total (i64.add (local.get $total) (local.get $c)))
      (if (i64.gt_u (local.get $c) (i64.load offset=8 (local.get $best))) (then (local.set $best (local.get $a))))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (br $l)))
    (call $puts (i32.const 0) (i32.const 15))
    (call $puti (i32.shr_u (i32.sub (global.get $next) (i32.const 0x100)) (i32.const 4)))
    (call $puts (i32.const 16) (i32.const 7))
    (call $putu64 (local.get $total))
    (call $puts (i32.const 24) (i32.const 9))
    (call $puti (i32.load (local.get $best))) (call $putc (i32.const 58)) (call $puti (i32.load offset=4 (local.get $best)))
    (call $putc (i32.const 61)) (call $putu64 (i64.load offset=8 (local.get $best)))
    (call $putc (i32.const 10)))
)
