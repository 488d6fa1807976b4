;; The app of the built-in monitor tests (engine/tests/builtin_monitors.rs):
;; named functions with loops, conditional branches, a br_table, direct and
;; indirect calls and memory accesses; prints "sum N" and exits.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (table 3 funcref)
  (elem (i32.const 0) $double $square $negate)
  (type $unop (func (param i32) (result i32)))

  (func $double (param i32) (result i32) (i32.add (local.get 0) (local.get 0)))
  (func $square (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
  (func $negate (param i32) (result i32) (i32.sub (i32.const 0) (local.get 0)))
  (func $never (result i32) (i32.const 7))

  ;; classify n: 0 -> 1, 1 -> 10, 2 -> 100, else 1000
  (func $classify (param $n i32) (result i32)
    (block $d (block $c (block $b (block $a
      (br_table $a $b $c $d (local.get $n)))
      (return (i32.const 1)))
      (return (i32.const 10)))
      (return (i32.const 100)))
    (i32.const 1000))

  ;; store i*i at 1024 + 4*i for i < 10, then sum them back
  (func $fill_and_sum (result i32) (local $i i32) (local $s i32)
    (loop $l
      (i32.store offset=1024 (i32.shl (local.get $i) (i32.const 2))
        (call $square (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (local.set $i (i32.const 0))
    (loop $m
      (local.set $s (i32.add (local.get $s)
        (i32.load offset=1024 (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $m (i32.lt_u (local.get $i) (i32.const 10))))
    (local.get $s))

  ;; print "sum " and a decimal number
  (func $print (param $v i32) (local $p i32)
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 4))
    (i32.store (i32.const 16) (i32.const 0x206d7573))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (local.set $p (i32.const 64))
    (i32.store8 (local.get $p) (i32.const 10))
    (loop $digits
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $digits (local.get $v)))
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (i32.sub (i32.const 65) (local.get $p)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  (func $main (export "_start") (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc (i32.add (local.get $acc)
        (call_indirect (type $unop) (local.get $i) (i32.rem_u (local.get $i) (i32.const 3)))))
      (local.set $acc (i32.add (local.get $acc) (call $classify (local.get $i))))
      (if (i32.eqz (i32.and (local.get $i) (i32.const 1)))
        (then (local.set $acc (i32.add (local.get $acc) (call $double (local.get $i))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 6))))
    (local.set $acc (i32.add (local.get $acc) (call $fill_and_sum)))
    (if (i32.gt_u (local.get $acc) (i32.const 1000000))
      (then (drop (call $never))))
    (call $print (local.get $acc)))
)
