;; Per-site counts of the function and block events in the portable monitor
;; ABI (Part A only), for scripts/wizard-sites.sh: the companion of
;; wizard-sites.wat, checking where `func:entry`, `func:exit`, `block:start`
;; and `block:end` attach and what `instr_count` each block end gets.
;;
;; Every matched site gets a fresh 24-byte record {kind: i32, fid: i32,
;; pc: i32, extra: i32, count: i64} from a static call at match time (kind 1
;; func:entry, 2 func:exit, 3 block:start, 4 block:end with extra =
;; instr_count); its probe adds one to the count. At exit: a line `sites N`,
;; then one line `kind fid pc extra count` per record, in allocation order.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (memory (export "memory") 1)

  ;; [0, 128): the line being formatted; records from 128 on.
  (global $first i32 (i32.const 128))
  (global $next (mut i32) (i32.const 128))

  (func $record (param $kind i32) (param $fid i32) (param $pc i32) (param $extra i32) (result i32)
    (local $rec i32)
    (local.set $rec (global.get $next))
    (if (i32.gt_u (i32.add (local.get $rec) (i32.const 24))
                  (i32.shl (memory.size) (i32.const 16)))
      (then (if (i32.lt_s (memory.grow (i32.const 16)) (i32.const 0))
              (then unreachable))))
    (i32.store (local.get $rec) (local.get $kind))
    (i32.store offset=4 (local.get $rec) (local.get $fid))
    (i32.store offset=8 (local.get $rec) (local.get $pc))
    (i32.store offset=12 (local.get $rec) (local.get $extra))
    (i64.store offset=16 (local.get $rec) (i64.const 0))
    (global.set $next (i32.add (local.get $rec) (i32.const 24)))
    (local.get $rec))

  (func (export "entry") (param i32 i32) (result i32)
    (call $record (i32.const 1) (local.get 0) (local.get 1) (i32.const 0)))
  (func (export "exit") (param i32 i32) (result i32)
    (call $record (i32.const 2) (local.get 0) (local.get 1) (i32.const 0)))
  (func (export "start") (param i32 i32) (result i32)
    (call $record (i32.const 3) (local.get 0) (local.get 1) (i32.const 0)))
  (func (export "end") (param i32 i32 i32) (result i32)
    (call $record (i32.const 4) (local.get 0) (local.get 1) (local.get 2)))

  (func $count (param $rec i32)
    (i64.store offset=16 (local.get $rec)
      (i64.add (i64.load offset=16 (local.get $rec)) (i64.const 1))))
  (func (export "wasm:func:entry(entry(fid, pc))") (param i32) (call $count (local.get 0)))
  (func (export "wasm:func:exit(exit(fid, pc))") (param i32) (call $count (local.get 0)))
  (func (export "wasm:block:start(start(fid, pc))") (param i32) (call $count (local.get 0)))
  (func (export "wasm:block:end(end(fid, pc, instr_count))") (param i32) (call $count (local.get 0)))

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

  ;; Puts an i32 field and a space in front of $start; returns the new start.
  (func $field (param $v i32) (param $start i32) (result i32)
    (local.set $start (i32.sub (local.get $start) (i32.const 1)))
    (i32.store8 (local.get $start) (i32.const 32))
    (call $digits (i64.extend_i32_u (local.get $v)) (local.get $start)))

  ;; Prints `kind fid pc extra count\n` for the record at $rec.
  (func $line (param $rec i32)
    (local $start i32)
    (i32.store8 (i32.const 127) (i32.const 10))
    (local.set $start (call $digits (i64.load offset=16 (local.get $rec)) (i32.const 127)))
    (local.set $start (call $field (i32.load offset=12 (local.get $rec)) (local.get $start)))
    (local.set $start (call $field (i32.load offset=8 (local.get $rec)) (local.get $start)))
    (local.set $start (call $field (i32.load offset=4 (local.get $rec)) (local.get $start)))
    (local.set $start (call $field (i32.load (local.get $rec)) (local.get $start)))
    (call $puts (local.get $start) (i32.sub (i32.const 128) (local.get $start))))

  (func (export "wasm:exit")
    (local $rec i32)
    (local $start i32)
    ;; "sites N\n"
    (i32.store8 (i32.const 127) (i32.const 10))
    (local.set $start (call $digits
      (i64.extend_i32_u (i32.div_u (i32.sub (global.get $next) (global.get $first)) (i32.const 24)))
      (i32.const 127)))
    (local.set $start (i32.sub (local.get $start) (i32.const 6)))
    (i32.store (local.get $start) (i32.const 0x65746973)) ;; "site"
    (i32.store16 offset=4 (local.get $start) (i32.const 0x2073)) ;; "s "
    (call $puts (local.get $start) (i32.sub (i32.const 128) (local.get $start)))
    (local.set $rec (global.get $first))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $rec) (global.get $next)))
        (call $line (local.get $rec))
        (local.set $rec (i32.add (local.get $rec) (i32.const 24)))
        (br $each)))))
