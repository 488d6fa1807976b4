;; The whamm monitor runtime: linked into every monitor the compiler emits.
;;
;; Assembled by build.rs; the back end (src/codegen.rs) re-encodes these
;; functions, globals and data segments into the monitor with wasm-encoder,
;; remapping function/type indices. Contract with the back end:
;;   * imports 0..3 are wizeng.puts/puti/putc/error (the back end always
;;     imports them first, in this order);
;;   * global 0 is the heap pointer (its initial value is set by the back end),
;;     global 1 the string intern table;
;;   * memory 0 is the monitor's memory (defined by the back end, not here);
;;   * table 0 holds comparator functions for `sort` (defined by the back end);
;;   * every function is exported under its name so the back end can find it.
;;
;; Memory layout (addresses the back end relies on, see codegen.rs):
;;   [0, 16)     null / zero
;;   [16, 64)    number formatting buffer
;;   [64, 256)   runtime constant strings (data below)
;;   [1024, 66560) whamm_buffer (BUF_MAX in wasm.rs), then the compiler's static data, then the heap.
;;
;; Strings are an i32 pointer to [len: i32][bytes]; 0 is the empty string.
;; Maps: header [cap, count, ksize, vsize, entries, esize] (24 bytes); entries
;; are [hash: i32 (0 = empty)][pad: 4][key: ksize][value: vsize]; keys and
;; values are serialised as 8-byte leaves, 16 for a v128 (see docs/whamm-backend.md).
(module
  (type $cmp_t (func (param i32 i32) (result i32)))
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng" "error" (func $error (param i32 i32)))
  (memory 1)
  (table 1 funcref)
  (global $heap (mut i32) (i32.const 0))
  (global $itab (mut i32) (i32.const 0))
  ;; Output buffer (allocated on first use) and whether output goes there.
  (global $obuf (mut i32) (i32.const 0))
  (global $olen (mut i32) (i32.const 0))
  (global $buffering (mut i32) (i32.const 0))

  (data (i32.const 64) "out of memory")      ;; 13 bytes
  (data (i32.const 80) "true")
  (data (i32.const 88) "false")
  (data (i32.const 96) "empty map")          ;; 9
  (data (i32.const 112) "NaN")
  (data (i32.const 120) "+inf")
  (data (i32.const 128) "-inf")
  (data (i32.const 136) "->")
  (data (i32.const 144) "memory id is not 0 (the monitor's own memory)") ;; 45
  (data (i32.const 192) ", ")

  ;; Output. Everything a monitor prints goes through $out/$outc: straight
  ;; to wizeng.puts/putc, except between $buffer_on and $buffer_off (the
  ;; wasm:exit hook, whose report may have thousands of rows), where it is
  ;; collected in a 4 KiB buffer and written a buffer at a time. $fail
  ;; writes what is buffered before it traps.
  (func $out (export "out") (param $p i32) (param $n i32)
    (local $d i32)
    (if (i32.eqz (global.get $buffering))
      (then (call $puts (local.get $p) (local.get $n)) (return)))
    (if (i32.gt_u (i32.add (global.get $olen) (local.get $n)) (i32.const 4096))
      (then (call $out_flush)))
    (if (i32.gt_u (local.get $n) (i32.const 4096))
      (then (call $puts (local.get $p) (local.get $n)) (return)))
    (local.set $d (i32.add (global.get $obuf) (global.get $olen)))
    (global.set $olen (i32.add (global.get $olen) (local.get $n)))
    ;; Most pieces are a few dozen bytes at most: loops (8 bytes at a time,
    ;; then the last few bytes) are cheaper than a bulk copy there.
    (if (i32.gt_u (local.get $n) (i32.const 64))
      (then (memory.copy (local.get $d) (local.get $p) (local.get $n)) (return)))
    (block $words
      (loop $word
        (br_if $words (i32.lt_u (local.get $n) (i32.const 8)))
        (i64.store (local.get $d) (i64.load (local.get $p)))
        (local.set $d (i32.add (local.get $d) (i32.const 8)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (local.set $n (i32.sub (local.get $n) (i32.const 8)))
        (br $word)))
    (block $done
      (loop $byte
        (br_if $done (i32.eqz (local.get $n)))
        (i32.store8 (local.get $d) (i32.load8_u (local.get $p)))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $byte))))
  (func $outc (export "outc") (param $c i32)
    (if (i32.eqz (global.get $buffering))
      (then (call $putc (local.get $c)) (return)))
    (if (i32.ge_u (global.get $olen) (i32.const 4096))
      (then (call $out_flush)))
    (i32.store8 (i32.add (global.get $obuf) (global.get $olen)) (local.get $c))
    (global.set $olen (i32.add (global.get $olen) (i32.const 1))))
  (func $out_flush (export "out_flush")
    (if (global.get $olen)
      (then
        (call $puts (global.get $obuf) (global.get $olen))
        (global.set $olen (i32.const 0)))))
  (func $buffer_on (export "buffer_on")
    (if (i32.eqz (global.get $obuf))
      (then (global.set $obuf (call $alloc (i32.const 4096)))))
    (global.set $buffering (i32.const 1)))
  (func $buffer_off (export "buffer_off")
    (call $out_flush)
    (global.set $buffering (i32.const 0)))
  (func $fail (export "fail") (param $p i32) (param $n i32)
    (call $out_flush)
    (call $error (local.get $p) (local.get $n)))

  (func $oom (export "oom")
    (call $fail (i32.const 64) (i32.const 13))
    (unreachable))

  ;; n bytes, 8-aligned, zeroed.
  (func $alloc (export "alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i64) (local $have i64) (local $need i64)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.const 7)) (i32.const -8)))
    (local.set $end (i64.add (i64.extend_i32_u (local.get $p)) (i64.extend_i32_u (local.get $n))))
    (local.set $have (i64.shl (i64.extend_i32_u (memory.size)) (i64.const 16)))
    (if (i64.gt_u (local.get $end) (local.get $have))
      (then
        (if (i64.gt_u (local.get $end) (i64.const 0xffff0000)) (then (call $oom)))
        (local.set $need (i64.shr_u (i64.sub (i64.add (local.get $end) (i64.const 65535)) (local.get $have)) (i64.const 16)))
        ;; grow by at least half the current size to amortise
        (if (i64.lt_u (local.get $need) (i64.extend_i32_u (i32.shr_u (memory.size) (i32.const 1))))
          (then (local.set $need (i64.extend_i32_u (i32.shr_u (memory.size) (i32.const 1))))))
        (if (i32.lt_s (memory.grow (i32.wrap_i64 (local.get $need))) (i32.const 0))
          (then
            ;; retry with the exact need
            (local.set $need (i64.shr_u (i64.sub (i64.add (local.get $end) (i64.const 65535)) (local.get $have)) (i64.const 16)))
            (if (i32.lt_s (memory.grow (i32.wrap_i64 (local.get $need))) (i32.const 0)) (then (call $oom)))))))
    (global.set $heap (i32.wrap_i64 (local.get $end)))
    (memory.fill (local.get $p) (i32.const 0) (local.get $n))
    (local.get $p))

  ;; ---------------------------------------------------------------- strings
  (func $str_len (export "str_len") (param $s i32) (result i32)
    (if (result i32) (local.get $s) (then (i32.load (local.get $s))) (else (i32.const 0))))

  (func $str_print (export "str_print") (param $s i32)
    (if (local.get $s)
      (then (call $out (i32.add (local.get $s) (i32.const 4)) (i32.load (local.get $s))))))

  ;; whamm's memory functions: s.addr() (where the bytes are; 0 for ""),
  ;; write_str, strcmp, and the check that a memory id is the monitor's.
  (func $str_addr (export "str_addr") (param $s i32) (result i32)
    (if (result i32) (local.get $s) (then (i32.add (local.get $s) (i32.const 4))) (else (i32.const 0))))

  (func $str_write (export "str_write") (param $p i32) (param $s i32)
    (memory.copy (local.get $p) (call $str_addr (local.get $s)) (call $str_len (local.get $s))))

  (func $bytes_eq_str (export "bytes_eq_str") (param $p i32) (param $n i32) (param $s i32) (result i32)
    (if (i32.ne (local.get $n) (call $str_len (local.get $s))) (then (return (i32.const 0))))
    (call $mem_eq (local.get $p) (call $str_addr (local.get $s)) (local.get $n)))

  (func $mem_id_check (export "mem_id_check") (param $id i32)
    (if (local.get $id) (then (call $fail (i32.const 144) (i32.const 45)))))

  ;; A heap copy of bytes [p, p+n) as a string.
  (func $str_from (export "str_from") (param $p i32) (param $n i32) (result i32)
    (local $s i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (local.set $s (call $alloc (i32.add (local.get $n) (i32.const 4))))
    (i32.store (local.get $s) (local.get $n))
    (memory.copy (i32.add (local.get $s) (i32.const 4)) (local.get $p) (local.get $n))
    (local.get $s))

  (func $mem_eq (export "mem_eq") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i)))
                    (i32.load8_u (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.const 1))

  ;; n is a multiple of 8
  (func $mem_eq8 (export "mem_eq8") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i64.ne (i64.load (i32.add (local.get $a) (local.get $i)))
                    (i64.load (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $l)))
    (i32.const 1))

  (func $str_eq (export "str_eq") (param $a i32) (param $b i32) (result i32)
    (local $n i32)
    (if (i32.eq (local.get $a) (local.get $b)) (then (return (i32.const 1))))
    (local.set $n (call $str_len (local.get $a)))
    (if (i32.ne (local.get $n) (call $str_len (local.get $b))) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
    (call $mem_eq (i32.add (local.get $a) (i32.const 4)) (i32.add (local.get $b) (i32.const 4)) (local.get $n)))

  ;; -1, 0, 1: bytewise lexicographic
  (func $str_cmp (export "str_cmp") (param $a i32) (param $b i32) (result i32)
    (local $na i32) (local $nb i32) (local $i i32) (local $ca i32) (local $cb i32)
    (local.set $na (call $str_len (local.get $a)))
    (local.set $nb (call $str_len (local.get $b)))
    (block $done
      (loop $l
        (br_if $done (i32.or (i32.ge_u (local.get $i) (local.get $na)) (i32.ge_u (local.get $i) (local.get $nb))))
        (local.set $ca (i32.load8_u offset=4 (i32.add (local.get $a) (local.get $i))))
        (local.set $cb (i32.load8_u offset=4 (i32.add (local.get $b) (local.get $i))))
        (if (i32.ne (local.get $ca) (local.get $cb))
          (then (return (select (i32.const -1) (i32.const 1) (i32.lt_u (local.get $ca) (local.get $cb))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.sub (i32.gt_u (local.get $na) (local.get $nb)) (i32.lt_u (local.get $na) (local.get $nb))))

  (func $str_starts (export "str_starts") (param $s i32) (param $p i32) (result i32)
    (local $n i32)
    (local.set $n (call $str_len (local.get $p)))
    (if (i32.gt_u (local.get $n) (call $str_len (local.get $s))) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
    (call $mem_eq (i32.add (local.get $s) (i32.const 4)) (i32.add (local.get $p) (i32.const 4)) (local.get $n)))

  (func $str_ends (export "str_ends") (param $s i32) (param $p i32) (result i32)
    (local $n i32) (local $m i32)
    (local.set $n (call $str_len (local.get $p)))
    (local.set $m (call $str_len (local.get $s)))
    (if (i32.gt_u (local.get $n) (local.get $m)) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
    (call $mem_eq (i32.add (i32.add (local.get $s) (i32.const 4)) (i32.sub (local.get $m) (local.get $n)))
                  (i32.add (local.get $p) (i32.const 4)) (local.get $n)))

  (func $str_contains (export "str_contains") (param $s i32) (param $p i32) (result i32)
    (local $n i32) (local $m i32) (local $i i32)
    (local.set $n (call $str_len (local.get $p)))
    (local.set $m (call $str_len (local.get $s)))
    (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
    (if (i32.gt_u (local.get $n) (local.get $m)) (then (return (i32.const 0))))
    (block $done
      (loop $l
        (br_if $done (i32.gt_u (local.get $i) (i32.sub (local.get $m) (local.get $n))))
        (if (call $mem_eq (i32.add (i32.add (local.get $s) (i32.const 4)) (local.get $i))
                          (i32.add (local.get $p) (i32.const 4)) (local.get $n))
          (then (return (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.const 0))

  (func $hash_bytes (param $p i32) (param $n i32) (result i32)
    (local $h i32) (local $i i32)
    (local.set $h (i32.const 0x811c9dc5))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (i32.add (local.get $p) (local.get $i))))
                               (i32.const 0x01000193)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $h))

  ;; The canonical copy of a string (content-equal strings intern to the
  ;; same pointer; "" is 0). Used for str leaves of map keys.
  (func $intern (export "intern") (param $s i32) (result i32)
    (local $cap i32) (local $i i32) (local $slot i32) (local $e i32) (local $old i32) (local $oldcap i32) (local $j i32)
    (if (i32.eqz (call $str_len (local.get $s))) (then (return (i32.const 0))))
    (if (i32.eqz (global.get $itab))
      (then
        (global.set $itab (call $alloc (i32.const 12)))
        (i32.store (global.get $itab) (i32.const 64))
        (i32.store offset=8 (global.get $itab) (call $alloc (i32.const 256)))))
    (local.set $cap (i32.load (global.get $itab)))
    (local.set $i (i32.and (call $hash_bytes (i32.add (local.get $s) (i32.const 4)) (i32.load (local.get $s)))
                           (i32.sub (local.get $cap) (i32.const 1))))
    (loop $l
      (local.set $slot (i32.add (i32.load offset=8 (global.get $itab)) (i32.shl (local.get $i) (i32.const 2))))
      (local.set $e (i32.load (local.get $slot)))
      (if (i32.eqz (local.get $e))
        (then
          (i32.store (local.get $slot) (local.get $s))
          (i32.store offset=4 (global.get $itab) (i32.add (i32.load offset=4 (global.get $itab)) (i32.const 1)))
          ;; grow at 1/2 load
          (if (i32.gt_u (i32.shl (i32.load offset=4 (global.get $itab)) (i32.const 1)) (local.get $cap))
            (then
              (local.set $old (i32.load offset=8 (global.get $itab)))
              (local.set $oldcap (local.get $cap))
              (global.set $itab (i32.const 0))
              (global.set $itab (call $alloc (i32.const 12)))
              (i32.store (global.get $itab) (i32.shl (local.get $oldcap) (i32.const 1)))
              (i32.store offset=8 (global.get $itab) (call $alloc (i32.shl (local.get $oldcap) (i32.const 3))))
              (local.set $j (i32.const 0))
              (block $d
                (loop $m
                  (br_if $d (i32.ge_u (local.get $j) (local.get $oldcap)))
                  (if (i32.load (i32.add (local.get $old) (i32.shl (local.get $j) (i32.const 2))))
                    (then (drop (call $intern (i32.load (i32.add (local.get $old) (i32.shl (local.get $j) (i32.const 2))))))))
                  (local.set $j (i32.add (local.get $j) (i32.const 1)))
                  (br $m)))))
          (return (local.get $s))))
      (if (call $str_eq (local.get $e) (local.get $s)) (then (return (local.get $e))))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (i32.sub (local.get $cap) (i32.const 1))))
      (br $l))
    (unreachable))

  ;; ---------------------------------------------------------------- numbers
  ;; Decimal digits of v. Reports print thousands of numbers: while output
  ;; is buffered the digits go straight into the buffer (counted first, then
  ;; written from the last), one division per digit (the remainder by
  ;; multiplying back), in 32 bits once the value fits.
  (func $print_u64 (export "print_u64") (param $v i64)
    (call $digits (local.get $v) (i32.const 0)))
  ;; `, ` then the digits of v.
  (func $print_sep_u64 (export "print_sep_u64") (param $v i64)
    (call $digits (local.get $v) (i32.const 2)))
  (func $digits (export "digits") (param $v i64) (param $sep i32)
    (local $n i32) (local $p i64) (local $end i32)
    (if (i32.eqz (global.get $buffering))
      (then
        (if (local.get $sep) (then (call $puts (i32.const 192) (i32.const 2))))
        (local.set $end (call $digits_at (local.get $v) (i32.const 64)))
        (call $puts (local.get $end) (i32.sub (i32.const 64) (local.get $end)))
        (return)))
    (local.set $n (i32.const 1))
    (local.set $p (i64.const 10))
    (block $counted
      (loop $count
        (br_if $counted (i64.lt_u (local.get $v) (local.get $p)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br_if $counted (i32.eq (local.get $n) (i32.const 20)))
        (local.set $p (i64.mul (local.get $p) (i64.const 10)))
        (br $count)))
    (local.set $n (i32.add (local.get $n) (local.get $sep)))
    (if (i32.gt_u (i32.add (global.get $olen) (local.get $n)) (i32.const 4096))
      (then (call $out_flush)))
    (local.set $end (i32.add (global.get $obuf) (global.get $olen)))
    (if (local.get $sep) (then (i32.store16 (local.get $end) (i32.const 0x202c)))) ;; ", "
    (global.set $olen (i32.add (global.get $olen) (local.get $n)))
    (drop (call $digits_at (local.get $v) (i32.add (local.get $end) (local.get $n)))))
  ;; Writes the digits of v so that they end at $end; returns where they start.
  (func $digits_at (export "digits_at") (param $v i64) (param $end i32) (result i32)
    (local $q i64) (local $w i32) (local $r i32)
    (block $small
      (loop $l
        (br_if $small (i64.le_u (local.get $v) (i64.const 0xffffffff)))
        (local.set $end (i32.sub (local.get $end) (i32.const 1)))
        (local.set $q (i64.div_u (local.get $v) (i64.const 10)))
        (i64.store8 (local.get $end)
          (i64.add (i64.const 48)
            (i64.sub (local.get $v) (i64.mul (local.get $q) (i64.const 10)))))
        (local.set $v (local.get $q))
        (br $l)))
    (local.set $w (i32.wrap_i64 (local.get $v)))
    (loop $l
      (local.set $end (i32.sub (local.get $end) (i32.const 1)))
      (local.set $r (i32.div_u (local.get $w) (i32.const 10)))
      (i32.store8 (local.get $end)
        (i32.add (i32.const 48)
          (i32.sub (local.get $w) (i32.mul (local.get $r) (i32.const 10)))))
      (local.set $w (local.get $r))
      (br_if $l (local.get $w)))
    (local.get $end))

  (func $print_i64 (export "print_i64") (param $v i64)
    (if (i64.lt_s (local.get $v) (i64.const 0))
      (then
        (call $outc (i32.const 45))
        (local.set $v (i64.sub (i64.const 0) (local.get $v)))))
    (call $print_u64 (local.get $v)))

  ;; Exactly 16 lowercase hex digits of v (a v128 prints as two of these).
  (func $print_hex64 (export "print_hex64") (param $v i64)
    (local $p i32) (local $d i32)
    (local.set $p (i32.const 64))
    (loop $l
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (local.set $d (i32.wrap_i64 (i64.and (local.get $v) (i64.const 15))))
      (i32.store8 (local.get $p)
        (i32.add (local.get $d) (select (i32.const 48) (i32.const 87) (i32.lt_u (local.get $d) (i32.const 10)))))
      (local.set $v (i64.shr_u (local.get $v) (i64.const 4)))
      (br_if $l (i32.gt_u (local.get $p) (i32.const 48))))
    (call $out (i32.const 48) (i32.const 16)))

  (func $print_bool (export "print_bool") (param $b i32)
    (if (local.get $b)
      (then (call $out (i32.const 80) (i32.const 4)))
      (else (call $out (i32.const 88) (i32.const 5)))))

  ;; Floats as whamm prints them (Rust's `{:+e}`): a sign, the shortest
  ;; digits that read back as the same float, and the decimal exponent:
  ;; 2.5 -> +2.5e0, 1000.18 -> +1.00018e3, 0 -> +0e0, f32::MAX ->
  ;; +3.4028235e38 (through $print_f32, whose digits are the f32's).
  (func $print_f64 (export "print_f64") (param $x f64)
    (local $b i64) (local $ef i32) (local $fr i64)
    (if (call $print_special (local.get $x)) (then (return)))
    (local.set $b (i64.reinterpret_f64 (local.get $x)))
    (local.set $ef (i32.wrap_i64 (i64.and (i64.shr_u (local.get $b) (i64.const 52)) (i64.const 0x7ff))))
    (local.set $fr (i64.and (local.get $b) (i64.const 0xfffffffffffff)))
    (if (local.get $ef)
      (then (call $print_float (i64.or (local.get $fr) (i64.const 0x10000000000000))
                  (i32.sub (local.get $ef) (i32.const 1075))
                  (i32.and (i64.eqz (local.get $fr)) (i32.gt_u (local.get $ef) (i32.const 1)))))
      (else (call $print_float (local.get $fr) (i32.const -1074) (i32.const 0)))))

  (func $print_f32 (export "print_f32") (param $x f32)
    (local $b i32) (local $ef i32) (local $fr i32)
    (if (call $print_special (f64.promote_f32 (local.get $x))) (then (return)))
    (local.set $b (i32.reinterpret_f32 (local.get $x)))
    (local.set $ef (i32.and (i32.shr_u (local.get $b) (i32.const 23)) (i32.const 0xff)))
    (local.set $fr (i32.and (local.get $b) (i32.const 0x7fffff)))
    (if (local.get $ef)
      (then (call $print_float (i64.extend_i32_u (i32.or (local.get $fr) (i32.const 0x800000)))
                  (i32.sub (local.get $ef) (i32.const 150))
                  (i32.and (i32.eqz (local.get $fr)) (i32.gt_u (local.get $ef) (i32.const 1)))))
      (else (call $print_float (i64.extend_i32_u (local.get $fr)) (i32.const -149) (i32.const 0)))))

  ;; NaN, infinities and zeros (returns 1); otherwise prints the sign (0).
  (func $print_special (param $x f64) (result i32)
    (if (f64.ne (local.get $x) (local.get $x)) (then (call $out (i32.const 112) (i32.const 3)) (return (i32.const 1))))
    (if (f64.eq (local.get $x) (f64.const inf)) (then (call $out (i32.const 120) (i32.const 4)) (return (i32.const 1))))
    (if (f64.eq (local.get $x) (f64.const -inf)) (then (call $out (i32.const 128) (i32.const 4)) (return (i32.const 1))))
    (call $outc (select (i32.const 45) (i32.const 43) (i64.lt_s (i64.reinterpret_f64 (local.get $x)) (i64.const 0))))
    (if (f64.eq (local.get $x) (f64.const 0))
      (then (call $outc (i32.const 48)) (call $outc (i32.const 101)) (call $outc (i32.const 48)) (return (i32.const 1))))
    (i32.const 0))

  ;; Scratch for $print_float (allocated on first use): bigint limbs at +0,
  ;; reversed digits at +512, the digits of x, low, high and the candidate
  ;; at +1536, +2560, +3584, +4608 (1 KiB each; a double has at most 767).
  (global $fs (mut i32) (i32.const 0))
  (global $dexp (mut i32) (i32.const 0))
  (global $nx (mut i32) (i32.const 0))
  (global $nl (mut i32) (i32.const 0))
  (global $nh (mut i32) (i32.const 0))
  (global $nc (mut i32) (i32.const 0))
  (global $ex (mut i32) (i32.const 0))
  (global $el (mut i32) (i32.const 0))
  (global $eh (mut i32) (i32.const 0))
  (global $ec (mut i32) (i32.const 0))

  ;; The positive float m * 2^e: exact decimal digits of it and of the
  ;; bounds of its rounding interval (halfway to its neighbours; `asym`:
  ;; the lower neighbour is half as far), then for p = 1, 2, ... the p-digit
  ;; numbers nearest to it, until one lies inside the interval (inclusive
  ;; when m is even, as the round-to-even reader would map it back to m).
  (func $print_float (param $m i64) (param $e i32) (param $asym i32)
    (local $p i32) (local $up i32) (local $i i32)
    (if (i32.eqz (global.get $fs)) (then (global.set $fs (call $alloc (i32.const 5632)))))
    (global.set $nx (call $dec (i64.shl (local.get $m) (i64.const 2)) (i32.sub (local.get $e) (i32.const 2)) (i32.add (global.get $fs) (i32.const 1536))))
    (global.set $ex (global.get $dexp))
    (global.set $nl (call $dec (i64.sub (i64.shl (local.get $m) (i64.const 2)) (select (i64.const 1) (i64.const 2) (local.get $asym)))
                               (i32.sub (local.get $e) (i32.const 2)) (i32.add (global.get $fs) (i32.const 2560))))
    (global.set $el (global.get $dexp))
    (global.set $nh (call $dec (i64.add (i64.shl (local.get $m) (i64.const 2)) (i64.const 2)) (i32.sub (local.get $e) (i32.const 2)) (i32.add (global.get $fs) (i32.const 3584))))
    (global.set $eh (global.get $dexp))
    (local.set $p (i32.const 1))
    (block $found
      (loop $l
        (local.set $up (call $round_up (local.get $p)))
        (call $cand (local.get $p) (local.get $up))
        (br_if $found (call $inside (i32.eqz (i32.wrap_i64 (i64.and (local.get $m) (i64.const 1))))))
        (call $cand (local.get $p) (i32.eqz (local.get $up)))
        (br_if $found (call $inside (i32.eqz (i32.wrap_i64 (i64.and (local.get $m) (i64.const 1))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $p) (global.get $nx)))
        (call $cand (global.get $nx) (i32.const 0))))
    ;; d[.ddd]e<exp>, trailing zeros dropped
    (block $d (loop $z
      (br_if $d (i32.le_u (global.get $nc) (i32.const 1)))
      (br_if $d (i32.load8_u (i32.add (i32.add (global.get $fs) (i32.const 4607)) (global.get $nc))))
      (global.set $nc (i32.sub (global.get $nc) (i32.const 1)))
      (br $z)))
    (call $outc (i32.add (i32.const 48) (i32.load8_u (i32.add (global.get $fs) (i32.const 4608)))))
    (if (i32.gt_u (global.get $nc) (i32.const 1)) (then (call $outc (i32.const 46))))
    (local.set $i (i32.const 1))
    (block $d2 (loop $w
      (br_if $d2 (i32.ge_u (local.get $i) (global.get $nc)))
      (call $outc (i32.add (i32.const 48) (i32.load8_u (i32.add (i32.add (global.get $fs) (i32.const 4608)) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $w)))
    (call $outc (i32.const 101))
    (call $print_i64 (i64.extend_i32_s (i32.sub (global.get $ec) (i32.const 1)))))

  ;; Whether x rounded to p digits rounds up (half to even).
  (func $round_up (param $p i32) (result i32)
    (local $x i32) (local $d i32) (local $i i32)
    (if (i32.ge_u (local.get $p) (global.get $nx)) (then (return (i32.const 0))))
    (local.set $x (i32.add (global.get $fs) (i32.const 1536)))
    (local.set $d (i32.load8_u (i32.add (local.get $x) (local.get $p))))
    (if (i32.ne (local.get $d) (i32.const 5)) (then (return (i32.gt_u (local.get $d) (i32.const 5)))))
    (local.set $i (i32.add (local.get $p) (i32.const 1)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (global.get $nx)))
      (if (i32.load8_u (i32.add (local.get $x) (local.get $i))) (then (return (i32.const 1))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (i32.and (i32.load8_u (i32.add (local.get $x) (i32.sub (local.get $p) (i32.const 1)))) (i32.const 1)))

  ;; The candidate: x's first p digits, plus one unit in the last if `up`.
  (func $cand (param $p i32) (param $up i32)
    (local $c i32) (local $i i32) (local $d i32)
    (local.set $c (i32.add (global.get $fs) (i32.const 4608)))
    (memory.copy (local.get $c) (i32.add (global.get $fs) (i32.const 1536)) (local.get $p))
    (global.set $nc (local.get $p))
    (global.set $ec (global.get $ex))
    (if (i32.eqz (local.get $up)) (then (return)))
    (local.set $i (local.get $p))
    (loop $l
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (local.set $d (i32.add (i32.load8_u (i32.add (local.get $c) (local.get $i))) (i32.const 1)))
      (if (i32.lt_u (local.get $d) (i32.const 10))
        (then (i32.store8 (i32.add (local.get $c) (local.get $i)) (local.get $d)) (return)))
      (i32.store8 (i32.add (local.get $c) (local.get $i)) (i32.const 0))
      (br_if $l (local.get $i)))
    ;; 99..9 + 1 = 100..0
    (i32.store8 (local.get $c) (i32.const 1))
    (global.set $ec (i32.add (global.get $ex) (i32.const 1))))

  (func $inside (param $incl i32) (result i32)
    (local $lo i32) (local $hi i32) (local $c i32)
    (local.set $c (i32.add (global.get $fs) (i32.const 4608)))
    (local.set $lo (call $dcmp (local.get $c) (global.get $nc) (global.get $ec)
                               (i32.add (global.get $fs) (i32.const 2560)) (global.get $nl) (global.get $el)))
    (local.set $hi (call $dcmp (local.get $c) (global.get $nc) (global.get $ec)
                               (i32.add (global.get $fs) (i32.const 3584)) (global.get $nh) (global.get $eh)))
    (if (result i32) (local.get $incl)
      (then (i32.and (i32.ge_s (local.get $lo) (i32.const 0)) (i32.le_s (local.get $hi) (i32.const 0))))
      (else (i32.and (i32.gt_s (local.get $lo) (i32.const 0)) (i32.lt_s (local.get $hi) (i32.const 0))))))

  ;; Compare 0.a × 10^ea with 0.b × 10^eb (digit strings without leading
  ;; zeros): -1, 0 or 1.
  (func $dcmp (param $a i32) (param $na i32) (param $ea i32) (param $b i32) (param $nb i32) (param $eb i32) (result i32)
    (local $i i32) (local $da i32) (local $db i32)
    (if (i32.ne (local.get $ea) (local.get $eb))
      (then (return (select (i32.const 1) (i32.const -1) (i32.gt_s (local.get $ea) (local.get $eb))))))
    (block $d (loop $l
      (br_if $d (i32.and (i32.ge_u (local.get $i) (local.get $na)) (i32.ge_u (local.get $i) (local.get $nb))))
      (local.set $da (select (i32.load8_u (i32.add (local.get $a) (local.get $i))) (i32.const 0) (i32.lt_u (local.get $i) (local.get $na))))
      (local.set $db (select (i32.load8_u (i32.add (local.get $b) (local.get $i))) (i32.const 0) (i32.lt_u (local.get $i) (local.get $nb))))
      (if (i32.ne (local.get $da) (local.get $db))
        (then (return (select (i32.const 1) (i32.const -1) (i32.gt_u (local.get $da) (local.get $db))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (i32.const 0))

  ;; The exact decimal digits (values 0-9, no leading zero) of v * 2^e2
  ;; (v > 0) at `out`; returns their count and sets $dexp so that the value
  ;; is 0.d1d2... * 10^$dexp.
  (func $dec (param $v i64) (param $e2 i32) (param $out i32) (result i32)
    (local $b i32) (local $n i32) (local $f i32) (local $k i32) (local $t i32) (local $nt i32)
    (local $i i32) (local $rem i64) (local $cur i64) (local $j i32)
    (local.set $b (global.get $fs))
    (local.set $t (i32.add (global.get $fs) (i32.const 512)))
    (i64.store (local.get $b) (local.get $v))
    (local.set $n (i32.const 2))
    (if (i32.ge_s (local.get $e2) (i32.const 0))
      (then
        (block $d (loop $l
          (br_if $d (i32.eqz (local.get $e2)))
          (local.set $k (select (i32.const 31) (local.get $e2) (i32.gt_u (local.get $e2) (i32.const 31))))
          (local.set $n (call $mul_small (local.get $b) (local.get $n) (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $k)))))
          (local.set $e2 (i32.sub (local.get $e2) (local.get $k)))
          (br $l))))
      (else
        ;; v * 2^e2 = v * 5^-e2 / 10^-e2
        (local.set $f (i32.sub (i32.const 0) (local.get $e2)))
        (local.set $k (local.get $f))
        (block $d (loop $l
          (br_if $d (i32.eqz (local.get $k)))
          (local.set $j (select (i32.const 13) (local.get $k) (i32.gt_u (local.get $k) (i32.const 13))))
          (local.set $cur (i64.const 1))
          (local.set $i (local.get $j))
          (loop $p5
            (local.set $cur (i64.mul (local.get $cur) (i64.const 5)))
            (local.set $i (i32.sub (local.get $i) (i32.const 1)))
            (br_if $p5 (local.get $i)))
          (local.set $n (call $mul_small (local.get $b) (local.get $n) (local.get $cur)))
          (local.set $k (i32.sub (local.get $k) (local.get $j)))
          (br $l)))))
    ;; to decimal, nine digits per division, least significant first
    (block $d (loop $l
      (block $trim (loop $tz
        (br_if $trim (i32.eqz (local.get $n)))
        (br_if $trim (i32.load (i32.add (local.get $b) (i32.shl (i32.sub (local.get $n) (i32.const 1)) (i32.const 2)))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $tz)))
      (br_if $d (i32.eqz (local.get $n)))
      (local.set $rem (i64.const 0))
      (local.set $i (local.get $n))
      (loop $dv
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (local.set $cur (i64.or (i64.shl (local.get $rem) (i64.const 32))
                                (i64.load32_u (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2))))))
        (i64.store32 (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2))) (i64.div_u (local.get $cur) (i64.const 1000000000)))
        (local.set $rem (i64.rem_u (local.get $cur) (i64.const 1000000000)))
        (br_if $dv (local.get $i)))
      (local.set $j (i32.const 9))
      (loop $dg
        (i64.store8 (i32.add (local.get $t) (local.get $nt)) (i64.rem_u (local.get $rem) (i64.const 10)))
        (local.set $rem (i64.div_u (local.get $rem) (i64.const 10)))
        (local.set $nt (i32.add (local.get $nt) (i32.const 1)))
        (local.set $j (i32.sub (local.get $j) (i32.const 1)))
        (br_if $dg (local.get $j)))
      (br $l)))
    (block $d (loop $lz
      (br_if $d (i32.eqz (local.get $nt)))
      (br_if $d (i32.load8_u (i32.add (local.get $t) (i32.sub (local.get $nt) (i32.const 1)))))
      (local.set $nt (i32.sub (local.get $nt) (i32.const 1)))
      (br $lz)))
    (local.set $i (i32.const 0))
    (block $d (loop $cp
      (br_if $d (i32.ge_u (local.get $i) (local.get $nt)))
      (i32.store8 (i32.add (local.get $out) (local.get $i))
                  (i32.load8_u (i32.add (local.get $t) (i32.sub (i32.sub (local.get $nt) (i32.const 1)) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $cp)))
    (global.set $dexp (i32.sub (local.get $nt) (local.get $f)))
    (local.get $nt))

  ;; b[0..n) *= m (m < 2^32), little-endian u32 limbs; returns the new count.
  (func $mul_small (param $b i32) (param $n i32) (param $m i64) (result i32)
    (local $i i32) (local $c i64) (local $a i32)
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $a (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2))))
      (local.set $c (i64.add (i64.mul (i64.load32_u (local.get $a)) (local.get $m)) (local.get $c)))
      (i64.store32 (local.get $a) (local.get $c))
      (local.set $c (i64.shr_u (local.get $c) (i64.const 32)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (if (i64.eqz (local.get $c)) (then (return (local.get $n))))
    (i64.store32 (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 2))) (local.get $c))
    (i32.add (local.get $n) (i32.const 1)))

  ;; `%` on floats: C's fmod (the result has the dividend's sign).
  (func $fmod64 (export "fmod64") (param $a f64) (param $b f64) (result f64)
    (local $r f64)
    (if (i32.or (f64.ne (local.get $a) (local.get $a)) (f64.ne (local.get $b) (local.get $b)))
      (then (return (f64.add (local.get $a) (local.get $b)))))
    (if (i32.or (f64.eq (f64.abs (local.get $a)) (f64.const inf)) (f64.eq (local.get $b) (f64.const 0)))
      (then (return (f64.const nan))))
    (if (f64.lt (f64.abs (local.get $a)) (f64.abs (local.get $b))) (then (return (local.get $a))))
    (local.set $r (f64.sub (local.get $a) (f64.mul (local.get $b) (f64.trunc (f64.div (local.get $a) (local.get $b))))))
    (if (f64.eq (local.get $r) (f64.const 0)) (then (return (f64.copysign (f64.const 0) (local.get $a)))))
    (local.get $r))

  (func $fmod32 (export "fmod32") (param $a f32) (param $b f32) (result f32)
    (f32.demote_f64 (call $fmod64 (f64.promote_f32 (local.get $a)) (f64.promote_f32 (local.get $b)))))

  ;; ---------------------------------------------------------------- maps
  (func $map_new (export "map_new") (param $ks i32) (param $vs i32) (result i32)
    (local $m i32)
    (local.set $m (call $alloc (i32.const 24)))
    (i32.store (local.get $m) (i32.const 8))
    (i32.store offset=8 (local.get $m) (local.get $ks))
    (i32.store offset=12 (local.get $m) (local.get $vs))
    (i32.store offset=20 (local.get $m) (i32.add (i32.const 8) (i32.add (local.get $ks) (local.get $vs))))
    (i32.store offset=16 (local.get $m) (call $alloc (i32.shl (i32.load offset=20 (local.get $m)) (i32.const 3))))
    (local.get $m))

  (func $map_count (export "map_count") (param $m i32) (result i32)
    (if (result i32) (local.get $m) (then (i32.load offset=4 (local.get $m))) (else (i32.const 0))))

  ;; n is a multiple of 8; never 0
  (func $hash (export "hash") (param $k i32) (param $n i32) (result i32)
    (local $h i64) (local $i i32)
    (local.set $h (i64.const 0xcbf29ce484222325))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load (i32.add (local.get $k) (local.get $i))))
                               (i64.const 0x100000001b3)))
        (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $l)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))) (i64.const 0x9e3779b97f4a7c15)))
    (i32.or (i32.wrap_i64 (i64.shr_u (local.get $h) (i64.const 32))) (i32.const 1)))

  ;; The entry for key k (hash h): the used entry with that key, or the
  ;; empty entry where it would go.
  (func $map_slot (param $m i32) (param $k i32) (param $h i32) (result i32)
    (local $mask i32) (local $i i32) (local $e i32) (local $es i32) (local $ks i32) (local $ents i32) (local $eh i32)
    (local.set $mask (i32.sub (i32.load (local.get $m)) (i32.const 1)))
    (local.set $es (i32.load offset=20 (local.get $m)))
    (local.set $ks (i32.load offset=8 (local.get $m)))
    (local.set $ents (i32.load offset=16 (local.get $m)))
    (local.set $i (i32.and (local.get $h) (local.get $mask)))
    (loop $l
      (local.set $e (i32.add (local.get $ents) (i32.mul (local.get $i) (local.get $es))))
      (local.set $eh (i32.load (local.get $e)))
      (if (i32.eqz (local.get $eh)) (then (return (local.get $e))))
      (if (i32.eq (local.get $eh) (local.get $h))
        (then
          (if (call $mem_eq8 (i32.add (local.get $e) (i32.const 8)) (local.get $k) (local.get $ks))
            (then (return (local.get $e))))))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (local.get $mask)))
      (br $l))
    (unreachable))

  ;; Pointer to the value of key k, or 0 if absent (m may be 0: empty).
  (func $map_find (export "map_find") (param $m i32) (param $k i32) (result i32)
    (local $e i32)
    (if (i32.eqz (local.get $m)) (then (return (i32.const 0))))
    (local.set $e (call $map_slot (local.get $m) (local.get $k) (call $hash (local.get $k) (i32.load offset=8 (local.get $m)))))
    (if (result i32) (i32.load (local.get $e))
      (then (i32.add (i32.add (local.get $e) (i32.const 8)) (i32.load offset=8 (local.get $m))))
      (else (i32.const 0))))

  (func $map_grow (param $m i32)
    (local $old i32) (local $oldcap i32) (local $es i32) (local $i i32) (local $e i32) (local $ne i32)
    (local.set $old (i32.load offset=16 (local.get $m)))
    (local.set $oldcap (i32.load (local.get $m)))
    (local.set $es (i32.load offset=20 (local.get $m)))
    (i32.store (local.get $m) (i32.shl (local.get $oldcap) (i32.const 1)))
    (i32.store offset=16 (local.get $m) (call $alloc (i32.mul (i32.load (local.get $m)) (local.get $es))))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $i) (local.get $oldcap)))
        (local.set $e (i32.add (local.get $old) (i32.mul (local.get $i) (local.get $es))))
        (if (i32.load (local.get $e))
          (then
            (local.set $ne (call $map_slot (local.get $m) (i32.add (local.get $e) (i32.const 8)) (i32.load (local.get $e))))
            (memory.copy (local.get $ne) (local.get $e) (local.get $es))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))))

  ;; Pointer to the value of key k, inserting a zeroed value if absent.
  (func $map_insert (export "map_insert") (param $m i32) (param $k i32) (result i32)
    (local $e i32) (local $h i32)
    (local.set $h (call $hash (local.get $k) (i32.load offset=8 (local.get $m))))
    (local.set $e (call $map_slot (local.get $m) (local.get $k) (local.get $h)))
    (if (i32.eqz (i32.load (local.get $e)))
      (then
        (if (i32.ge_u (i32.shl (i32.add (i32.load offset=4 (local.get $m)) (i32.const 1)) (i32.const 2))
                      (i32.mul (i32.load (local.get $m)) (i32.const 3)))
          (then
            (call $map_grow (local.get $m))
            (local.set $e (call $map_slot (local.get $m) (local.get $k) (local.get $h)))))
        (i32.store (local.get $e) (local.get $h))
        (memory.copy (i32.add (local.get $e) (i32.const 8)) (local.get $k) (i32.load offset=8 (local.get $m)))
        (i32.store offset=4 (local.get $m) (i32.add (i32.load offset=4 (local.get $m)) (i32.const 1)))))
    (i32.add (i32.add (local.get $e) (i32.const 8)) (i32.load offset=8 (local.get $m))))

  ;; A function name the engine passed (ptr, len) as a string: the engine's
  ;; `func#N` for a function without a name is the language's empty name.
  (func $name_from (export "name_from") (param $p i32) (param $n i32) (result i32)
    (local $i i32)
    (if (i32.and (i32.gt_u (local.get $n) (i32.const 5))
                 (i32.and (i32.eq (i32.load (local.get $p)) (i32.const 0x636e7566)) ;; "func"
                          (i32.eq (i32.load8_u offset=4 (local.get $p)) (i32.const 35)))) ;; '#'
      (then
        (local.set $i (i32.const 5))
        (block $no
          (loop $l
            (br_if $no (i32.gt_u (i32.sub (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                                          (i32.const 48))
                                 (i32.const 9)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $l (i32.lt_u (local.get $i) (local.get $n)))
            (return (i32.const 0))))))
    (call $str_from (local.get $p) (local.get $n)))

  ;; map<u32, u32> from n bytes of little-endian u32s at p: i -> the i-th
  ;; (`targets` of br_table, passed by the engine in whamm_buffer).
  (func $map_from_u32s (export "map_from_u32s") (param $p i32) (param $n i32) (result i32)
    (local $m i32) (local $k i32) (local $i i32)
    (local.set $m (call $map_new (i32.const 8) (i32.const 8)))
    (local.set $k (call $alloc (i32.const 8)))
    (block $done
      (loop $l
        (br_if $done (i32.gt_u (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 2)) (local.get $n)))
        (i64.store (local.get $k) (i64.extend_i32_u (local.get $i)))
        (i64.store (call $map_insert (local.get $m) (local.get $k))
                   (i64.load32_u (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $m))

  ;; A heap array of the map's entry pointers (unsorted); length map_count.
  (func $map_entries (export "map_entries") (param $m i32) (result i32)
    (local $arr i32) (local $i i32) (local $n i32) (local $e i32) (local $cap i32) (local $es i32)
    (local.set $arr (call $alloc (i32.shl (call $map_count (local.get $m)) (i32.const 2))))
    (if (i32.eqz (local.get $m)) (then (return (local.get $arr))))
    (local.set $cap (i32.load (local.get $m)))
    (local.set $es (i32.load offset=20 (local.get $m)))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $i) (local.get $cap)))
        (local.set $e (i32.add (i32.load offset=16 (local.get $m)) (i32.mul (local.get $i) (local.get $es))))
        (if (i32.load (local.get $e))
          (then
            (i32.store (i32.add (local.get $arr) (i32.shl (local.get $n) (i32.const 2))) (local.get $e))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $arr))

  ;; Stable bottom-up merge sort of n i32s at a, comparator = table[cmp].
  (func $sort (export "sort") (param $a i32) (param $n i32) (param $cmp i32)
    (local $src i32) (local $dst i32) (local $t i32) (local $w i32) (local $lo i32) (local $mid i32) (local $hi i32)
    (local $i i32) (local $j i32) (local $k i32) (local $x i32) (local $y i32)
    (local.set $src (local.get $a))
    (local.set $dst (call $alloc (i32.shl (local.get $n) (i32.const 2))))
    (local.set $w (i32.const 1))
    (block $done
      (loop $pass
        (br_if $done (i32.ge_u (local.get $w) (local.get $n)))
        (local.set $lo (i32.const 0))
        (block $pd
          (loop $merge
            (br_if $pd (i32.ge_u (local.get $lo) (local.get $n)))
            (local.set $mid (i32.add (local.get $lo) (local.get $w)))
            (if (i32.gt_u (local.get $mid) (local.get $n)) (then (local.set $mid (local.get $n))))
            (local.set $hi (i32.add (local.get $mid) (local.get $w)))
            (if (i32.gt_u (local.get $hi) (local.get $n)) (then (local.set $hi (local.get $n))))
            (local.set $i (local.get $lo))
            (local.set $j (local.get $mid))
            (local.set $k (local.get $lo))
            (block $md
              (loop $ml
                (br_if $md (i32.ge_u (local.get $k) (local.get $hi)))
                (local.set $t (i32.const 0))
                (if (i32.ge_u (local.get $i) (local.get $mid))
                  (then (local.set $t (i32.const 0)))
                  (else
                    (if (i32.ge_u (local.get $j) (local.get $hi))
                      (then (local.set $t (i32.const 1)))
                      (else
                        (local.set $x (i32.load (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2)))))
                        (local.set $y (i32.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2)))))
                        (local.set $t (i32.le_s (call_indirect (type $cmp_t) (local.get $x) (local.get $y) (local.get $cmp)) (i32.const 0)))))))
                (if (local.get $t)
                  (then
                    (i32.store (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 2)))
                               (i32.load (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2)))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1))))
                  (else
                    (i32.store (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 2)))
                               (i32.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2)))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $ml)))
            (local.set $lo (local.get $hi))
            (br $merge)))
        (local.set $t (local.get $src))
        (local.set $src (local.get $dst))
        (local.set $dst (local.get $t))
        (local.set $w (i32.shl (local.get $w) (i32.const 1)))
        (br $pass)))
    (if (i32.ne (local.get $src) (local.get $a))
      (then (memory.copy (local.get $a) (local.get $src) (i32.shl (local.get $n) (i32.const 2))))))
)
