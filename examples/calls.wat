;; Calls: per-site counts of direct calls, and per (site, table index) counts
;; of `call_indirect` (`arg0` is the table index operand, read before the call;
;; an index that then traps is counted too). `return_call` and
;; `return_call_indirect` count like `call` and `call_indirect`.
;;
;; Direct sites: a 24-byte record (fid i32, pc i32, callee i32, pad, count i64) from a
;; static call at match time; the probe increments the count.
;; Indirect sites: the static call gives each site an id (1, 2, ...) and notes
;; its (fid, pc); the probe counts in an open-addressing hash table in monitor
;; memory keyed by (site id << 32 | table index), linear probing, 2^14 slots of
;; (key i64, count i64). The table is never more than half full: once 8192
;; (site, index) pairs exist, events of new pairs are only counted as
;; `overflow` (deterministic, so outputs still compare).
;;
;; At exit it prints one line:
;;   calls: direct=SITES:CALLS indirect=SITES:PAIRS:CALLS overflow=N checksum=HEX
;; The checksum is a sum over direct sites of a hash of (fid, pc, callee,
;; count) plus over indirect pairs of a hash of (fid, pc, index, count), so it
;; does not depend on matching or insertion order.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  ;; 0x00000: strings, scratch
  ;; 0x10000: hash table, 2^14 * 16 bytes = 0x40000
  ;; 0x50000: indirect sites (fid i32, pc i32) by id, up to 0x10000 ids
  ;; 0xd0000: direct call records, 24 bytes each, growing
  (memory (export "memory") 14)
  (data (i32.const 0) "calls: direct=")      ;; 14
  (data (i32.const 16) " indirect=")         ;; 10
  (data (i32.const 32) " overflow=")         ;; 10
  (data (i32.const 48) " checksum=")         ;; 10
  (data (i32.const 96) "0123456789abcdef")
  (global $next (mut i32) (i32.const 0xd0000))
  (global $nind (mut i32) (i32.const 0))
  (global $used (mut i32) (i32.const 0))
  (global $overflow (mut i64) (i64.const 0))

  (func (export "site_call") (param $fid i32) (param $pc i32) (param $callee i32) (result i32) (local $a i32)
    (local.set $a (global.get $next))
    (if (i32.gt_u (i32.add (local.get $a) (i32.const 24)) (i32.mul (memory.size) (i32.const 65536)))
      (then (if (i32.lt_s (memory.grow (i32.const 16)) (i32.const 0)) (then unreachable))))
    (i32.store (local.get $a) (local.get $fid))
    (i32.store offset=4 (local.get $a) (local.get $pc))
    (i32.store offset=8 (local.get $a) (local.get $callee))
    (global.set $next (i32.add (local.get $a) (i32.const 24)))
    (i32.add (local.get $a) (i32.const 16)))
  (func (export "site_call_indirect") (param $fid i32) (param $pc i32) (result i32) (local $id i32)
    (local.set $id (i32.add (global.get $nind) (i32.const 1)))
    (if (i32.ge_u (local.get $id) (i32.const 0x10000)) (then unreachable))
    (global.set $nind (local.get $id))
    (i32.store offset=0x50000 (i32.shl (local.get $id) (i32.const 3)) (local.get $fid))
    (i32.store offset=0x50004 (i32.shl (local.get $id) (i32.const 3)) (local.get $pc))
    (local.get $id))

  ;; $c: the address of the site's count
  (func $direct (param $c i32)
    (i64.store (local.get $c) (i64.add (i64.load (local.get $c)) (i64.const 1))))
  (export "wasm:opcode:call($site_call(fid, pc, imm0))" (func $direct))
  (export "wasm:opcode:return_call($site_call(fid, pc, imm0))" (func $direct))

  ;; first event of a (site, index) pair: claim the empty slot at $a
  (func $insert (param $a i32) (param $k i64)
    (if (i32.ge_u (global.get $used) (i32.const 8192))
      (then (global.set $overflow (i64.add (global.get $overflow) (i64.const 1))) (return)))
    (global.set $used (i32.add (global.get $used) (i32.const 1)))
    (i64.store (local.get $a) (local.get $k))
    (i64.store offset=8 (local.get $a) (i64.const 1)))
  (func $indirect (param $site i32) (param $idx i32) (local $k i64) (local $s i32) (local $a i32) (local $cur i64)
    (local.set $k (i64.or (i64.shl (i64.extend_i32_u (local.get $site)) (i64.const 32)) (i64.extend_i32_u (local.get $idx))))
    (local.set $s (i32.wrap_i64 (i64.shr_u (i64.mul (local.get $k) (i64.const 0x9e3779b97f4a7c15)) (i64.const 50))))
    (loop $probe
      (local.set $a (i32.add (i32.const 0x10000) (i32.shl (local.get $s) (i32.const 4))))
      (local.set $cur (i64.load (local.get $a)))
      (if (i64.eq (local.get $cur) (local.get $k))
        (then (i64.store offset=8 (local.get $a) (i64.add (i64.load offset=8 (local.get $a)) (i64.const 1))) (return)))
      (if (i64.eqz (local.get $cur)) (then (call $insert (local.get $a) (local.get $k)) (return)))
      (local.set $s (i32.and (i32.add (local.get $s) (i32.const 1)) (i32.const 0x3fff)))
      (br $probe)))
  (export "wasm:opcode:call_indirect($site_call_indirect(fid, pc), arg0)" (func $indirect))
  (export "wasm:opcode:return_call_indirect($site_call_indirect(fid, pc), arg0)" (func $indirect))

  ;; splitmix64 finalizer
  (func $mix (param $z i64) (result i64)
    (local.set $z (i64.mul (i64.xor (local.get $z) (i64.shr_u (local.get $z) (i64.const 30))) (i64.const 0xbf58476d1ce4e5b9)))
    (local.set $z (i64.mul (i64.xor (local.get $z) (i64.shr_u (local.get $z) (i64.const 27))) (i64.const 0x94d049bb133111eb)))
    (i64.xor (local.get $z) (i64.shr_u (local.get $z) (i64.const 31))))
  ;; hash of (fid, pc, x, count)
  (func $h4 (param $fid i32) (param $pc i32) (param $x i32) (param $c i64) (result i64)
    (call $mix (i64.add
      (call $mix (i64.xor
        (i64.or (i64.shl (i64.extend_i32_u (local.get $fid)) (i64.const 32)) (i64.extend_i32_u (local.get $pc)))
        (call $mix (i64.extend_i32_u (local.get $x)))))
      (local.get $c))))
  (func $putu64 (param $v i64) (local $buf i32)
    (local.set $buf (i32.const 0xc0))
    (loop $l
      (local.set $buf (i32.sub (local.get $buf) (i32.const 1)))
      (i32.store8 (local.get $buf) (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $l (i64.ne (local.get $v) (i64.const 0))))
    (call $puts (local.get $buf) (i32.sub (i32.const 0xc0) (local.get $buf))))
  (func $puthex (param $v i64) (local $i i32)
    (local.set $i (i32.const 60))
    (loop $l
      (call $putc (i32.load8_u offset=96 (i32.wrap_i64 (i64.and (i64.shr_u (local.get $v) (i64.extend_i32_u (local.get $i))) (i64.const 15)))))
      (local.set $i (i32.sub (local.get $i) (i32.const 4)))
      (br_if $l (i32.ge_s (local.get $i) (i32.const 0)))))

  (func (export "wasm:exit")
    (local $a i32) (local $sum i64) (local $dsites i32) (local $dcalls i64)
    (local $pairs i32) (local $icalls i64) (local $k i64) (local $c i64) (local $id i32)
    ;; direct sites
    (local.set $a (i32.const 0xd0000))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (global.get $next)))
      (local.set $c (i64.load offset=16 (local.get $a)))
      (local.set $dsites (i32.add (local.get $dsites) (i32.const 1)))
      (local.set $dcalls (i64.add (local.get $dcalls) (local.get $c)))
      (local.set $sum (i64.add (local.get $sum)
        (call $h4 (i32.load (local.get $a)) (i32.load offset=4 (local.get $a)) (i32.load offset=8 (local.get $a)) (local.get $c))))
      (local.set $a (i32.add (local.get $a) (i32.const 24)))
      (br $l)))
    ;; indirect (site, index) pairs
    (local.set $a (i32.const 0x10000))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $a) (i32.const 0x50000)))
      (local.set $k (i64.load (local.get $a)))
      (if (i64.ne (local.get $k) (i64.const 0))
        (then
          (local.set $c (i64.load offset=8 (local.get $a)))
          (local.set $id (i32.shl (i32.wrap_i64 (i64.shr_u (local.get $k) (i64.const 32))) (i32.const 3)))
          (local.set $pairs (i32.add (local.get $pairs) (i32.const 1)))
          (local.set $icalls (i64.add (local.get $icalls) (local.get $c)))
          (local.set $sum (i64.add (local.get $sum)
            (call $h4 (i32.load offset=0x50000 (local.get $id)) (i32.load offset=0x50004 (local.get $id))
                      (i32.wrap_i64 (local.get $k)) (local.get $c))))))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (br $l)))
    (call $puts (i32.const 0) (i32.const 14))
    (call $putu64 (i64.extend_i32_u (local.get $dsites))) (call $putc (i32.const 58)) (call $putu64 (local.get $dcalls))
    (call $puts (i32.const 16) (i32.const 10))
    (call $putu64 (i64.extend_i32_u (global.get $nind))) (call $putc (i32.const 58))
    (call $putu64 (i64.extend_i32_u (local.get $pairs))) (call $putc (i32.const 58)) (call $putu64 (local.get $icalls))
    (call $puts (i32.const 32) (i32.const 10))
    (call $putu64 (global.get $overflow))
    (call $puts (i32.const 48) (i32.const 10))
    (call $puthex (local.get $sum))
    (call $putc (i32.const 10)))
)
