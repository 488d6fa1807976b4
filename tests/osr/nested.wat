;; args: --invoke=run 7
;; args: --invoke=work 7
;; args: --invoke=work 6
(module
  (memory 1)
  (global $g (mut i64) (i64.const 0))
  ;; Loops in then- and else-arms, under a block with a result, with br_table
  ;; leaving several levels, and a value-carrying branch out of the guard path.
  (func $work (export "work") (param $n i32) (result i64) (local $i i32) (local $j i32) (local $acc i64) (local $f f64)
    (local.set $acc (i64.const 1))
    (local.set $f (f64.const 0.5))
    (block $out (result i64)
      (if (i32.and (local.get $n) (i32.const 1))
        (then
          (loop $a
            (local.set $acc (i64.add (i64.mul (local.get $acc) (i64.const 31)) (i64.extend_i32_u (local.get $i))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $a (i32.lt_u (local.get $i) (i32.const 50)))))
        (else
          (loop $b
            (local.set $f (f64.mul (local.get $f) (f64.const 1.5)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $b (i32.lt_u (local.get $i) (i32.const 40))))))
      (drop (i32.const 99))
      (block $x
        (loop $outer
          (local.set $i (i32.add (local.get $i) (i32.const 10)))
          (global.set $g (i64.add (global.get $g) (local.get $acc)))
          (local.set $j (i32.const 0))
          (loop $inner
            (i64.store (i32.and (i32.mul (local.get $j) (i32.const 8)) (i32.const 0xfff))
              (i64.add (local.get $acc) (i64.extend_i32_u (local.get $j))))
            (local.set $acc (i64.xor (local.get $acc)
              (i64.load (i32.and (i32.mul (local.get $j) (i32.const 24)) (i32.const 0xff8)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_table $inner $outer $x
              (select (i32.const 0)
                (select (i32.const 1) (i32.const 2) (i32.lt_u (local.get $i) (i32.const 200)))
                (i32.lt_u (local.get $j) (i32.const 17))))
            (unreachable))
          (unreachable))
        (unreachable))
      ;; reached from $x, after the outer loop
      (br_if 0 (i64.add (local.get $acc) (i64.trunc_f64_s (local.get $f))) (i32.ge_u (local.get $i) (i32.const 200)))
      (drop)
      (i64.const -1))
    (i64.add (global.get $g)))
  (func (export "run") (param $k i32) (result i64) (local $r i64)
    (loop $l
      (local.set $r (i64.add (i64.rotl (local.get $r) (i64.const 7)) (call $work (local.get $k))))
      (local.set $k (i32.sub (local.get $k) (i32.const 1)))
      (br_if $l (i32.gt_s (local.get $k) (i32.const 0))))
    (local.get $r)))
