;; args: --invoke=conv nan
(module (func $conv (export "conv") (param f32) (result i32) (i32.trunc_f32_s (local.get 0))))
