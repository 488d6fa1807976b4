;; The branch shapes the `branches` monitor must count exactly in every tier
;; (engine/tests/builtin_monitors.rs, case `branches-shapes`): a loop's
;; back-edge `br_if` right before `end`, a `br_if` whose next instruction is
;; a `loop` header (itself a branch target), `if` with and without `else`,
;; `select` on data (untyped, and the typed form the `select` probe does not
;; match), a `br_if` in unreachable code, a `br_table`, an exception thrown
;; between a `br_if` and the code after it (and caught by a caller), a
;; `br_if` ahead of a `return_call`, and at the end a trap right after a
;; `br_if` that fell through. The report is printed after the trap.
(module
  (tag $boom (param i32))
  (memory 1)

  ;; sum of min(i, 7 - i) and of max over i < n, with selects; counts the
  ;; odd i with an `if` without `else`
  (func $mins (param $n i32) (result i32) (local $i i32) (local $s i32) (local $odd i32)
    (block $out
      (br_if $out (i32.eqz (local.get $n)))
      (loop $l
        (local.set $s (i32.add (local.get $s)
          (select (local.get $i) (i32.sub (i32.const 7) (local.get $i))
            (i32.lt_s (local.get $i) (i32.sub (i32.const 7) (local.get $i))))))
        (local.set $s (i32.add (local.get $s)
          (select (result i32) (local.get $i) (i32.const 3)
            (i32.gt_s (local.get $i) (i32.const 3)))))
        (if (i32.and (local.get $i) (i32.const 1))
          (then (local.set $odd (i32.add (local.get $odd) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (local.get $n)))))
    (i32.add (local.get $s) (local.get $odd)))

  ;; 1 for even, 2 for odd, with `if`/`else`; a dead `br_if` after `br`
  (func $parity (param $v i32) (result i32)
    (block $dead
      (br $dead)
      (br_if $dead (i32.const 1)))
    (if (result i32) (i32.and (local.get $v) (i32.const 1))
      (then (i32.const 2))
      (else (i32.const 1))))

  ;; 0, 1, 2 by v mod 3, through a br_table
  (func $mod3 (param $v i32) (result i32)
    (block $two (block $one (block $zero
      (br_table $zero $one $two (i32.rem_u (local.get $v) (i32.const 3))))
      (return (i32.const 0)))
      (return (i32.const 1)))
    (i32.const 2))

  ;; throws from between a `br_if` that fell through and its next block
  (func $thrower (param $v i32)
    (block $b
      (br_if $b (i32.gt_u (local.get $v) (i32.const 5)))
      (throw $boom (local.get $v))))

  ;; catches what `$thrower` throws: how many of 0..9 threw
  (func $catches (result i32) (local $i i32) (local $caught i32)
    (loop $l
      (block $handler (result i32)
        (try_table (catch $boom $handler)
          (call $thrower (local.get $i)))
        (i32.const -1))
      (if (i32.ge_s (i32.const 0)) (then (local.set $caught (i32.add (local.get $caught) (i32.const 1)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (local.get $caught))

  ;; counts down to 0 in tail calls
  (func $down (param $v i32) (result i32)
    (br_if 0 (i32.const 100) (i32.eqz (local.get $v)))
    (drop)
    (return_call $down (i32.sub (local.get $v) (i32.const 1))))

  ;; a `br_if` that falls through, then a trap in the same straight line
  (func $trap_after (param $v i32) (result i32)
    (block $b
      (br_if $b (local.get $v))
      (return (i32.div_u (i32.const 1) (local.get $v))))
    (i32.const 0))

  (func (export "_start") (local $i i32) (local $acc i32)
    (local.set $acc (call $mins (i32.const 12)))
    (loop $l
      (local.set $acc (i32.add (local.get $acc) (call $parity (local.get $i))))
      (local.set $acc (i32.add (local.get $acc) (call $mod3 (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 7))))
    (local.set $acc (i32.add (local.get $acc) (call $catches)))
    (local.set $acc (i32.add (local.get $acc) (call $down (i32.const 5))))
    (local.set $acc (i32.add (local.get $acc) (call $trap_after (i32.const 3))))
    (i32.store (i32.const 0) (local.get $acc))
    (drop (call $trap_after (i32.const 0)))))
