;; Branches: per-site outcome tallies for `if`, `br_if` and `br_table`, using
;; the condition / index on top of the stack (`arg0`, read before the
;; instruction executes).
;;
;; Each site gets a record at match time from a static call (`$site_*`), which
;; returns the address of the site's counters, so every probe is a few
;; branch-free instructions the JIT can inline:
;;   if, br_if : counters [taken (arg0 != 0), not taken (arg0 == 0)]
;;   br_table  : counters [target 0, ..., target n-1, default]; the index is
;;               clamped to the default (n = num_targets)
;; Record: fid i32, pc i32, kind i32 (0 if, 1 br_if, 2 br_table), number of
;; counters i32, then the i64 counters.
;;
;; At exit it prints one line:
;;   branches: sites=S if=SITES:TAKEN/NOT br_if=SITES:TAKEN/NOT br_table=SITES:EXECS/DEFAULTS checksum=HEX
;; The checksum is a sum over sites of a hash of (fid, pc, kind, every counter),
;; so it does not depend on the order sites were matched in, and two runs
;; agree on it only if every per-site count agrees.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "branches: sites=")    ;; 16
  (data (i32.const 32) " if=")               ;; 4
  (data (i32.const 48) " br_if=")            ;; 7
  (data (i32.const 64) " br_table=")         ;; 10
  (data (i32.const 80) " checksum=")         ;; 10
  (data (i32.const 96) "0123456789abcdef")
  ;; 0x80..0xc0: scratch for number printing
  (global $next (mut i32) (i32.const 0x100))

  ;; Allocate a record with `n` counters; returns the address of the counters.
  (func $alloc (param $fid i32) (param $pc i32) (param $kind i32) (param $n i32) (result i32)
    (local $a i32) (local $end i32)
    (local.set $a (global.get $next))
    (local.set $end (i32.add (i32.add (local.get $a) (i32.const 16)) (i32.shl (local.get $n) (i32.const 3))))
    (block $ok (loop $grow
      (br_if $ok (i32.le_u (local.get $end) (i32.mul (memory.size) (i32.const 65536))))
      (if (i32.lt_s (memory.grow (i32.const 16)) (i32.const 0)) (then unreachable))
      (br $grow)))
    (i32.store (local.get $a) (local.get $fid))
    (i32.store offset=4 (local.get $a) (local.get $pc))
    (i32.store offset=8 (local.get $a) (local.get $kind))
    (i32.store offset=12 (local.get $a) (local.get $n))
    (global.set $next (local.get $end))
    (i32.add (local.get $a) (i32.const 16)))
  (func (export "site_if") (param i32 i32) (result i32)
    (call $alloc (local.get 0) (local.get 1) (i32.const 0) (i32.const 2)))
  (func (export "site_br_if") (param i32 i32) (result i32)
    (call $alloc (local.get 0) (local.get 1) (i32.const 1) (i32.const 2)))
  (func (export "site_br_table") (param i32 i32 i32) (result i32)
    (call $alloc (local.get 0) (local.get 1) (i32.const 2) (i32.add (local.get 2) (i32.const 1))))

  ;; if / br_if: counter 0 when the condition is non-zero (taken), else counter 1.
  (func $cond (param $c i32) (param $v i32) (local $a i32)
    (local.set $a (i32.add (local.get $c) (i32.shl (i32.eqz (local.get $v)) (i32.const 3))))
    (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (i64.const 1))))
  (export "wasm:opcode:if($site_if(fid, pc), arg0)" (func $cond))
  (export "wasm:opcode:br_if($site_br_if(fid, pc), arg0)" (func $cond))
  ;; br_table: counter min(index, n); counter n is the default.
  (func (export "wasm:opcode:br_table($site_br_table(fid, pc, num_targets), num_targets, arg0)")
    (param $c i32) (param $n i32) (param $v i32) (local $a i32)
    (local.set $a (i32.add (local.get $c)
      (i32.shl (select (local.get $v) (local.get $n) (i32.lt_u (local.get $v) (local.get $n))) (i32.const 3))))
    (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (i64.const 1))))

  ;; splitmix64 finalizer
  (func $mix (param $z i64) (result i64)
    (local.set $z (i64.mul (i64.xor (local.get $z) (i64.shr_u (local.get $z) (i64.const 30))) (i64.const 0xbf58476d1ce4e5b9)))
    (local.set $z (i64.mul (i64.xor (local.get $z) (i64.shr_u (local.get $z) (i64.const 27))) (i64.const 0x94d049bb133111eb)))
    (i64.xor (local.get $z) (i64.shr_u (local.get $z) (i64.const 31))))
  ;; print a u64 in decimal
  (func $putu64 (param $v i64) (local $buf i32)
    (local.set $buf (i32.const 0xc0))
    (loop $l
      (local.set $buf (i32.sub (local.get $buf) (i32.const 1)))
      (i32.store8 (local.get $buf) (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $l (i64.ne (local.get $v) (i64.const 0))))
    (call $puts (local.get $buf) (i32.sub (i32.const 0xc0) (local.get $buf))))
  ;; print a u64 as 16 hex digits
  (func $puthex (param $v i64) (local $i i32)
    (local.set $i (i32.const 60))
    (loop $l
      (call $putc (i32.load8_u offset=96 (i32.wrap_i64 (i64.and (i64.shr_u (local.get $v) (i64.extend_i32_u (local.get $i))) (i64.const 15)))))
      (local.set $i (i32.sub (local.get $i) (i32.const 4)))
      (br_if $l (i32.ge_s (local.get $i) (i32.const 0)))))
  (func $pair (param $sites i32) (param $x i64) (param $y i64)
    (call $putu64 (i64.extend_i32_u (local.get $sites))) (call $putc (i32.const 58))
    (call $putu64 (local.get $x)) (call $putc (i32.const 47)) (call $putu64 (local.get $y)))

  (func (export "wasm:exit")
    (local $a i32) (local $kind i32) (local $n i32) (local $i i32) (local $c i64) (local $h i64) (local $sum i64)
    (local $sites i32) (local $s0 i32) (local $s1 i32) (local $s2 i32)
    (local $t0 i64) (local $f0 i64) (local $t1 i64) (local $f1 i64) (local $ex2 i64) (local $def2 i64)
    (local.set $a (i32.const 0x100))
    (block $done (loop $sites_l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (local.set $kind (i32.load offset=8 (local.get $a)))
      (local.set $n (i32.load offset=12 (local.get $a)))
      (local.set $sites (i32.add (local.get $sites) (i32.const 1)))
      (local.set $h (call $mix (i64.xor
        (i64.or (i64.shl (i64.extend_i32_u (i32.load (local.get $a))) (i64.const 32)) (i64.extend_i32_u (i32.load offset=4 (local.get $a))))
        (i64.extend_i32_u (local.get $kind)))))
      (local.set $i (i32.const 0))
      (loop $cnt_l
        (local.set $c (i64.load offset=16 (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $h (call $mix (i64.add (local.get $h) (local.get $c))))
        (if (i32.eq (local.get $kind) (i32.const 2))
          (then
            (local.set $ex2 (i64.add (local.get $ex2) (local.get $c)))
            (if (i32.eq (local.get $i) (i32.sub (local.get $n) (i32.const 1)))
              (then (local.set $def2 (i64.add (local.get $def2) (local.get $c)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $cnt_l (i32.lt_u (local.get $i) (local.get $n))))
      (local.set $sum (i64.add (local.get $sum) (local.get $h)))
      (if (i32.eqz (local.get $kind))
        (then
          (local.set $s0 (i32.add (local.get $s0) (i32.const 1)))
          (local.set $t0 (i64.add (local.get $t0) (i64.load offset=16 (local.get $a))))
          (local.set $f0 (i64.add (local.get $f0) (i64.load offset=24 (local.get $a))))))
      (if (i32.eq (local.get $kind) (i32.const 1))
        (then
          (local.set $s1 (i32.add (local.get $s1) (i32.const 1)))
          (local.set $t1 (i64.add (local.get $t1) (i64.load offset=16 (local.get $a))))
          (local.set $f1 (i64.add (local.get $f1) (i64.load offset=24 (local.get $a))))))
      (if (i32.eq (local.get $kind) (i32.const 2))
        (then (local.set $s2 (i32.add (local.get $s2) (i32.const 1)))))
      (local.set $a (i32.add (i32.add (local.get $a) (i32.const 16)) (i32.shl (local.get $n) (i32.const 3))))
      (br $sites_l)))
    (call $puts (i32.const 0) (i32.const 16))
    (call $putu64 (i64.extend_i32_u (local.get $sites)))
    (call $puts (i32.const 32) (i32.const 4))
    (call $pair (local.get $s0) (local.get $t0) (local.get $f0))
    (call $puts (i32.const 48) (i32.const 7))
    (call $pair (local.get $s1) (local.get $t1) (local.get $f1))
    (call $puts (i32.const 64) (i32.const 10))
    (call $pair (local.get $s2) (local.get $ex2) (local.get $def2))
    (call $puts (i32.const 80) (i32.const 10))
    (call $puthex (local.get $sum))
    (call $putc (i32.const 10)))
)
