;; args: --invoke=mix 3 -4 2.5 0x10
(module (func (export "mix") (param i32 i64 f64 i32) (result i64 f64 i32)
  (i64.mul (i64.extend_i32_s (local.get 0)) (local.get 1))
  (f64.mul (local.get 2) (f64.const 2))
  (local.get 3)))
