;; Exceptions across frames: a recursive search throws its result from deep
;; recursion; handlers catch by tag with payloads, catch_all_ref keeps the
;; exception and throw_ref rethrows it to an outer handler; an exception
;; thrown through a function without handlers unwinds it; a caught exception
;; leaves the operand stack as the handler's block expects.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (tag $found (param i32 i64))
  (tag $empty)
  (global $unwound (mut i32) (i32.const 0))

  ;; Writes "label value\n" (label: `len` bytes at `label`).
  (func $print (param $label i32) (param $len i32) (param $v i64)
    (local $p i32) (local $digits i32) (local $neg i32)
    (memory.copy (i32.const 200) (local.get $label) (local.get $len))
    (local.set $p (i32.add (i32.const 200) (local.get $len)))
    (i32.store8 (local.get $p) (i32.const 32))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (if (i64.lt_s (local.get $v) (i64.const 0))
      (then
        (i32.store8 (local.get $p) (i32.const 45))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $v (i64.sub (i64.const 0) (local.get $v)))))
    (loop $d
      (i32.store8 (i32.sub (i32.const 340) (local.get $digits))
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $d (i64.ne (local.get $v) (i64.const 0))))
    (memory.copy (local.get $p)
      (i32.sub (i32.const 341) (local.get $digits)) (local.get $digits))
    (local.set $p (i32.add (local.get $p) (local.get $digits)))
    (i32.store8 (local.get $p) (i32.const 10))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (i32.store (i32.const 0) (i32.const 200))
    (i32.store (i32.const 4) (i32.sub (local.get $p) (i32.const 200)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  (data (i32.const 100) "founddepthemptyrethrownunwoundsum")

  ;; Depth-first search of 0..n for k; throws $found (k, depth) or returns.
  (func $search (param $lo i32) (param $hi i32) (param $k i32) (param $depth i64)
    (local $mid i32)
    (if (i32.gt_s (local.get $lo) (local.get $hi)) (then (return)))
    (local.set $mid (i32.shr_s (i32.add (local.get $lo) (local.get $hi)) (i32.const 1)))
    (if (i32.eq (local.get $mid) (local.get $k))
      (then (throw $found (local.get $k) (local.get $depth))))
    (call $search (local.get $lo) (i32.sub (local.get $mid) (i32.const 1))
      (local.get $k) (i64.add (local.get $depth) (i64.const 1)))
    (call $search (i32.add (local.get $mid) (i32.const 1)) (local.get $hi)
      (local.get $k) (i64.add (local.get $depth) (i64.const 1))))

  ;; Catches $found: returns depth * 1000 + k, or -1 when not found.
  (func $find (param $k i32) (result i64)
    (local $depth i64)
    (block $h (result i32 i64)
      (try_table (catch $found $h)
        (call $search (i32.const 0) (i32.const 1000) (local.get $k) (i64.const 0)))
      (return (i64.const -1)))
    (local.set $depth)
    (local.set $k)
    (i64.add (i64.mul (local.get $depth) (i64.const 1000)) (i64.extend_i32_s (local.get $k))))

  ;; A frame without handlers: counts frames the exception unwinds.
  (func $through (param $n i32)
    (if (i32.eqz (local.get $n)) (then (throw $empty)))
    (call $through (i32.sub (local.get $n) (i32.const 1)))
    (global.set $unwound (i32.add (global.get $unwound) (i32.const 1))))

  ;; catch_all_ref keeps the exception; throw_ref sends it to the caller.
  (func $rethrower (param $n i32)
    (local $e exnref)
    (block $h (result exnref)
      (try_table (catch_all_ref $h) (call $through (local.get $n)))
      (return))
    (local.set $e)
    (global.set $unwound (i32.add (global.get $unwound) (i32.const 100)))
    (throw_ref (local.get $e)))

  (func (export "_start")
    (local $i i32) (local $sum i64)
    (call $print (i32.const 100) (i32.const 5) (call $find (i32.const 0)))
    (call $print (i32.const 100) (i32.const 5) (call $find (i32.const 777)))
    (call $print (i32.const 100) (i32.const 5) (call $find (i32.const 5000)))
    ;; The exception from 30 frames down reaches this handler through $rethrower.
    (block $h
      (try_table (catch $empty $h) (call $rethrower (i32.const 30)))
      (call $print (i32.const 110) (i32.const 5) (i64.const 0)))
    (call $print (i32.const 123) (i32.const 7) (i64.extend_i32_u (global.get $unwound)))
    ;; Many throws: the handler's operand stack stays balanced.
    (loop $l
      (local.set $sum (i64.add (local.get $sum) (call $find (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 37)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))
    (call $print (i32.const 130) (i32.const 3) (local.get $sum))))
