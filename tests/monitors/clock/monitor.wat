;; `wizeng.rdtsc`, the engine's monotonic clock in nanoseconds: read at every
;; function entry (from compiled monitor code in jit and dyn, through the
;; clock's own trampoline; through the host-call path in int) and at exit.
;; Prints the number of reads, how many went backwards (none may), whether
;; the first was positive, and whether time passed between the first and
;; the last (it must).
(module
  (import "wizeng" "rdtsc" (func $clock (result i64)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (global $first (mut i64) (i64.const 0))
  (global $last (mut i64) (i64.const 0))
  (global $reads (mut i32) (i32.const 0))
  (global $back (mut i32) (i32.const 0))
  (func $read (local $t i64)
    (local.set $t (call $clock))
    (if (i32.eqz (global.get $reads)) (then (global.set $first (local.get $t))))
    (if (i64.lt_u (local.get $t) (global.get $last))
      (then (global.set $back (i32.add (global.get $back) (i32.const 1)))))
    (global.set $last (local.get $t))
    (global.set $reads (i32.add (global.get $reads) (i32.const 1))))
  (func (export "wasm:func:entry") (call $read))
  (func (export "wasm:exit")
    (call $read)
    (call $puti (global.get $reads)) (call $putc (i32.const 32))
    (call $puti (global.get $back)) (call $putc (i32.const 32))
    (call $puti (i64.gt_u (global.get $first) (i64.const 0))) (call $putc (i32.const 32))
    (call $puti (i64.gt_u (global.get $last) (global.get $first))) (call $putc (i32.const 10))))
