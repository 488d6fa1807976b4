;; The app of the frame_write cases: prints what it computes (through the
;; `wizeng` imports, `--expose=wizeng`), so frame writes show in its output.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  ;; func 2: y = x * 3, z = y as f64; x + y + z
  (func $f (param $x i32) (result i32) (local $y i64) (local $z f64)
    (local.set $y (i64.mul (i64.extend_i32_u (local.get $x)) (i64.const 3)))
    (local.set $z (f64.convert_i64_s (local.get $y)))
    (i32.add (local.get $x)
      (i32.add (i32.wrap_i64 (local.get $y)) (i32.trunc_f64_s (local.get $z)))))
  ;; func 3: acc = sum of f(i | 0) for i < 10
  (func $main (export "_start") (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc
        (i32.add (local.get $acc) (call $f (i32.or (local.get $i) (i32.const 0)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (call $puti (local.get $acc))
    (call $putc (i32.const 10)))
)
