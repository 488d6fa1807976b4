;; A SIMD app for simd.mm: v128 operands and results of lane-wise
;; arithmetic, stores, lane extraction, and v128 call arguments, results
;; and locals.
(module
  (memory (export "memory") 1)
  ;; f32 lanes times a scalar: v128 result, v128 and f32 arguments
  (func $scale (param $v v128) (param $k f32) (result v128)
    (f32x4.mul (local.get $v) (f32x4.splat (local.get $k))))
  ;; the sum of four i32 lanes
  (func $sum (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))
  (func $main (export "main") (local $i i32) (local $acc v128)
    (local.set $acc (v128.const i32x4 1 2 3 4))
    (loop $l
      (local.set $acc (i32x4.add (local.get $acc) (v128.const i32x4 10 20 30 40)))
      (v128.store offset=16 (i32.const 32) (local.get $acc))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 3))))
    (drop (call $sum (v128.load offset=16 (i32.const 32))))
    (drop (call $scale (v128.const f32x4 1.5 -2 0.25 8) (f32.const 2)))
    (drop (i8x16.eq
      (v128.const i8x16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
      (v128.const i8x16 1 0 3 0 5 0 7 0 9 0 11 0 13 0 15 0)))
    (drop (i64x2.extract_lane 1 (v128.const i64x2 -1 0x123456789abcdef0)))))
