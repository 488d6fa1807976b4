;; Block boundaries that depend on Wizard's look-ahead (see
;; engine/src/monitor/matcher/blocks.rs): `if` and `loop` do not look ahead,
;; so the first instruction after them looks at a stale instruction.
(module
  (func (export "_start") (local $i i32) (local $n i32)
    (local.set $n (i32.const 3))
    (if (local.get $n)
      (then
        (loop $l
          ;; looks at the `loop` again: its block ends at this local.get
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $l (i32.lt_u (local.get $i) (local.get $n))))))
    (block $b
      (br_if $b (local.get $i))
      (local.set $n (i32.const 0)))
    ;; the block's `end` above is referenced; after it, the look-ahead lags
    (local.set $n (i32.add (local.get $n) (local.get $i)))
    (block $c
      (loop $m
        (br_if $c (i32.ge_u (local.get $n) (i32.const 8)))
        (local.set $n (i32.add (local.get $n) (i32.const 2)))
        (br $m)))
    (local.set $i (local.get $n))))
