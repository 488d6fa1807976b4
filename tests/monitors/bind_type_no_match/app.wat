;; A call with an i64 and an i32 argument, a function with an f32 and an
;; i32 local.
(module
  (func $f (param i64 i32) (result i32) (local.get 1))
  (func (export "_start") (local $x f32) (local $y i32)
    (local.set $y (i32.const 4))
    (drop (call $f (i64.const 7) (i32.const 5)))
    (call_indirect (param i64 i32) (result i32) (i64.const 8) (i32.const 6) (i32.const 0))
    drop)
  (table 1 funcref)
  (elem (i32.const 0) $f))
