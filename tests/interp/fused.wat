;; Shapes the interpreter fuses into superinstructions (interp/compile.rs),
;; each computed in a loop whose results feed a checksum, and traps inside
;; fused ops. `engine/tests/cli.rs` (fused_ops_agree) runs every export in
;; the interpreter with and without fusion and in the JIT, and requires
;; identical output, including trap sites.
(module
  (memory 1)
  ;; f64 table at 0..8192: a[i] = i * 0.5 + 1
  (func $init (local $i i32)
    (loop $l
      (f64.store (i32.shl (local.get $i) (i32.const 3))
        (f64.add (f64.mul (f64.convert_i32_s (local.get $i)) (f64.const 0.5)) (f64.const 1)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 1024)))))

  ;; x + y * load(l[a] + l[b]) (F64MulAddLoadLL), stored with a tee
  ;; (F64MulAddTeeStore), loop step (IncJmpNe).
  (func (export "muladd_ll") (result f64)
    (local $i i32) (local $base i32) (local $acc f64) (local $t f64) (local $p i32)
    (call $init)
    (local.set $base (i32.const 8))
    (loop $l
      (local.set $p (i32.shl (local.get $i) (i32.const 3)))
      (f64.store offset=8192 (local.get $p)
        (local.tee $t
          (f64.add (local.get $acc)
            (f64.mul (f64.const 1.25)
              (f64.load (i32.add (local.get $base) (local.get $p)))))))
      (local.set $acc (f64.add (local.get $t) (f64.const 0.125)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 512))))
    (f64.add (local.get $acc) (f64.load offset=8192 (i32.const 800))))

  ;; x + y * load(stack + l[b]) (F64MulAddLoadSL); x + y * z stored without
  ;; and with a tee (F64MulAddStore, F64MulAddTeeStore); i64 store with a tee
  ;; (I64StoreTee).
  (func (export "muladd_sl") (result i64)
    (local $i i32) (local $off i32) (local $x i64) (local $sum i64) (local $t f64)
    (call $init)
    (local.set $off (i32.const 16))
    (loop $l
      (f64.store offset=16384 (i32.shl (local.get $i) (i32.const 3))
        (f64.add (f64.load (i32.shl (local.get $i) (i32.const 3)))
          (f64.mul (f64.const 3)
            (f64.load (i32.add (i32.shl (local.get $i) (i32.const 3)) (local.get $off))))))
      (f64.store offset=32768 (i32.shl (local.get $i) (i32.const 3))
        (f64.add (f64.load offset=16384 (i32.shl (local.get $i) (i32.const 3)))
          (f64.mul (f64.const -0.75) (f64.convert_i32_s (local.get $i)))))
      (f64.store offset=40960 (i32.shl (local.get $i) (i32.const 3))
        (local.tee $t (f64.add (f64.load offset=32768 (i32.shl (local.get $i) (i32.const 3)))
          (f64.mul (f64.const 0.5) (f64.convert_i32_s (local.get $i))))))
      (local.set $sum (i64.add (local.get $sum) (i64.trunc_f64_s (local.get $t))))
      (i64.store offset=24576 (i32.shl (local.get $i) (i32.const 3))
        (local.tee $x (i64.add (i64.extend_i32_u (local.get $i)) (i64.const 7))))
      (local.set $sum (i64.add (local.get $sum)
        (i64.add (local.get $x) (i64.trunc_f64_s (f64.load offset=32768 (i32.shl (local.get $i) (i32.const 3)))))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 2))) (i32.const 600))))
    (i64.add (local.get $sum) (i64.load offset=24576 (i32.const 80))))

  ;; select by a signed compare of two locals (SelectGtSLL, SelectLtSLL),
  ;; i32 store with a tee (I32StoreTee), x + a * c from locals (I32AddMulLLC),
  ;; three local.gets (LocalGet3), a negative loop step (IncJmpNe).
  (func (export "select_minmax") (result i32)
    (local $i i32) (local $v i32) (local $w i32) (local $hi i32) (local $lo i32) (local $sum i32) (local $row i32)
    (local.set $i (i32.const 300))
    (local.set $lo (i32.const 1000))
    (local.set $row (i32.const 40000))
    (loop $l
      (local.set $v (i32.sub (i32.mul (local.get $i) (i32.const 37)) (i32.const 5000)))
      (local.set $w (i32.xor (local.get $v) (i32.const 0x55)))
      (local.set $hi (select (local.get $v) (local.get $hi) (i32.gt_s (local.get $v) (local.get $hi))))
      (local.set $lo (select (local.get $w) (local.get $lo) (i32.lt_s (local.get $w) (local.get $lo))))
      (i32.store offset=4 (i32.add (local.get $row) (i32.mul (local.get $i) (i32.const 4)))
        (local.tee $sum (i32.add (local.get $sum) (i32.add (local.get $hi) (local.get $lo)))))
      (local.set $sum (i32.add (local.get $sum)
        (i32.add (local.get $v) (i32.add (local.get $w) (local.get $i)))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const -3))) (i32.const 0))))
    (i32.add (local.get $sum)
      (i32.add (local.get $hi)
        (i32.add (local.get $lo) (i32.load offset=4 (i32.add (local.get $row) (i32.const 40)))))))

  ;; f32 arithmetic with a local or constant operand (F32AddL, F32MulLL,
  ;; F32SubC, F32DivL, ...), NaN and infinity included.
  (func (export "f32_ops") (result f32 i32)
    (local $i i32) (local $x f32) (local $y f32) (local $acc f32) (local $bits i32)
    (local.set $y (f32.const 1.5))
    (loop $l
      (local.set $x (f32.convert_i32_s (local.get $i)))
      (local.set $acc (f32.add (local.get $acc) (f32.mul (local.get $x) (local.get $y))))
      (local.set $acc (f32.sub (local.get $acc) (f32.const 0.25)))
      (local.set $acc (f32.add (f32.div (local.get $acc) (local.get $y)) (local.get $x)))
      (local.set $bits (i32.xor (local.get $bits)
        (i32.reinterpret_f32 (f32.div (local.get $x) (f32.sub (local.get $x) (local.get $x))))))
      (local.set $y (f32.add (local.get $y) (f32.mul (local.get $y) (f32.const 0.001))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 200))))
    (local.get $acc) (local.get $bits))

  ;; Loads at local + constant (I32LoadLC, I64LoadLC; the add wraps at 32
  ;; bits), two in-place increments in a row (Inc2).
  (func (export "bump_loads") (result i32 i64)
    (local $p i32) (local $q i32) (local $sum i32) (local $w i64)
    (call $init)
    (loop $l
      (local.set $sum (i32.add (local.get $sum)
        (i32.load offset=4 (i32.add (local.get $p) (i32.const 8)))))
      (local.set $w (i64.add (local.get $w)
        (i64.load offset=8 (i32.add (local.get $q) (i32.const 16)))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (local.set $q (i32.add (local.get $q) (i32.const 3)))
      (br_if $l (i32.lt_u (local.get $p) (i32.const 4000))))
    (local.set $p (i32.const 0xfffffff0))
    (i32.add (local.get $sum) (i32.load (i32.add (local.get $p) (i32.const 0x20))))
    (i64.add (local.get $w) (i64.extend_i32_u (local.get $q))))
  (func (export "trap_load_lc") (result i32) (local $p i32)
    (local.set $p (i32.const 65000))
    (i32.load offset=600 (i32.add (local.get $p) (i32.const 8))))

  ;; Traps inside fused ops: each names the instruction that traps.
  (func (export "trap_store_tee") (result i64) (local $x i64)
    (i64.store (i32.const 65530) (local.tee $x (i64.const 1)))
    (local.get $x))
  (func (export "trap_store32_tee") (result i32) (local $x i32)
    (i32.store (i32.const 65534) (local.tee $x (i32.const 1)))
    (local.get $x))
  (func (export "trap_muladd_store") (result f64)
    (f64.store (i32.const 65532)
      (f64.add (f64.const 1) (f64.mul (f64.const 2) (f64.convert_i32_s (i32.const 3)))))
    (f64.const 0))
  (func (export "trap_muladd_load_ll") (result f64) (local $a i32) (local $b i32)
    (local.set $a (i32.const 65000))
    (local.set $b (i32.const 535))
    (f64.add (f64.const 1) (f64.mul (f64.const 2) (f64.load (i32.add (local.get $a) (local.get $b))))))
  (func (export "trap_muladd_load_sl") (result f64) (local $b i32)
    (local.set $b (i32.const 100))
    (f64.add (f64.const 1) (f64.mul (f64.const 2)
      (f64.load offset=65440 (i32.add (i32.const 0) (local.get $b)))))))
