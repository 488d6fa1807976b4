;; Per-site execution counts in the portable monitor ABI (Part A only), for
;; scripts/wizard-sites.sh: runs unchanged on wizeng and on the Wizard engine.
;;
;; At match time the static call `site(fid, pc)` runs once for every
;; instruction the engine matches (`wasm:opcode:*`), reachable or not, and
;; returns the address of a fresh 16-byte record {fid: i32, pc: i32,
;; count: i64}; the probe adds one to that record's count. At exit every
;; record is printed as a line `fid pc count`, in allocation order, after a
;; line `sites N`.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (memory (export "memory") 1)

  ;; [0, 64): the line being formatted; records from 64 on.
  (global $first i32 (i32.const 64))
  (global $next (mut i32) (i32.const 64))

  (func $site (export "site") (param $fid i32) (param $pc i32) (result i32)
    (local $rec i32)
    (local.set $rec (global.get $next))
    (if (i32.gt_u (i32.add (local.get $rec) (i32.const 16))
                  (i32.shl (memory.size) (i32.const 16)))
      (then (if (i32.lt_s (memory.grow (i32.const 16)) (i32.const 0))
              (then unreachable))))
    (i32.store (local.get $rec) (local.get $fid))
    (i32.store offset=4 (local.get $rec) (local.get $pc))
    (i64.store offset=8 (local.get $rec) (i64.const 0))
    (global.set $next (i32.add (local.get $rec) (i32.const 16)))
    (local.get $rec))

  (func (export "wasm:opcode:*(site(fid, pc))") (param $rec i32)
    (i64.store offset=8 (local.get $rec)
      (i64.add (i64.load offset=8 (local.get $rec)) (i64.const 1))))

  ;; Writes the decimal digits of $v (unsigned) so that they end just before
  ;; $end; returns where they start.
  (func $digits (param $v i64) (param $end i32) (result i32)
    (loop $more
      (local.set $end (i32.sub (local.get $end) (i32.const 1)))
      (i32.store8 (local.get $end)
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $more (i64.ne (local.get $v) (i64.const 0))))
    (local.get $end))

  ;; Prints `a b c\n` (or `sites c\n` when $label is set) from the line buffer.
  (func $line (param $label i32) (param $a i32) (param $b i32) (param $c i64)
    (local $start i32)
    (i32.store8 (i32.const 63) (i32.const 10))
    (local.set $start (call $digits (local.get $c) (i32.const 63)))
    (if (local.get $label)
      (then
        (local.set $start (i32.sub (local.get $start) (i32.const 6)))
        ;; "sites " in little-endian: "site" then "s "
        (i32.store (local.get $start) (i32.const 0x65746973))
        (i32.store16 offset=4 (local.get $start) (i32.const 0x2073)))
      (else
        (local.set $start (i32.sub (local.get $start) (i32.const 1)))
        (i32.store8 (local.get $start) (i32.const 32))
        (local.set $start (call $digits (i64.extend_i32_u (local.get $b)) (local.get $start)))
        (local.set $start (i32.sub (local.get $start) (i32.const 1)))
        (i32.store8 (local.get $start) (i32.const 32))
        (local.set $start (call $digits (i64.extend_i32_u (local.get $a)) (local.get $start)))))
    (call $puts (local.get $start) (i32.sub (i32.const 64) (local.get $start))))

  (func (export "wasm:exit")
    (local $rec i32)
    (call $line (i32.const 1) (i32.const 0) (i32.const 0)
      (i64.extend_i32_u (i32.shr_u (i32.sub (global.get $next) (global.get $first)) (i32.const 4))))
    (local.set $rec (global.get $first))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $rec) (global.get $next)))
        (call $line (i32.const 0)
          (i32.load (local.get $rec))
          (i32.load offset=4 (local.get $rec))
          (i64.load offset=8 (local.get $rec)))
        (local.set $rec (i32.add (local.get $rec) (i32.const 16)))
        (br $each)))))
