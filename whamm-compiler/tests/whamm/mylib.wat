;; A monitor library for tests/whamm/libs.mm (`use mylib;`, linked as
;; `--monitors=libs.wasm+mylib.wat`).
(module
  (global $bumped (mut i32) (i32.const 0))
  (global $ticks (mut i32) (i32.const 0))
  (func (export "tick") (result i32)
    (global.set $ticks (i32.add (global.get $ticks) (i32.const 1)))
    (global.get $ticks))
  (func (export "ticks") (result i32) (global.get $ticks))
  (func (export "classify") (param i32 i32) (result i32)
    (i32.rem_u (i32.add (local.get 0) (local.get 1)) (i32.const 3)))
  (func (export "bump") (param i32)
    (global.set $bumped (i32.add (global.get $bumped) (local.get 0))))
  (func (export "total") (result i32) (global.get $bumped))
  (func (export "scale") (param i64 f64) (result f64)
    (f64.mul (f64.convert_i64_s (local.get 0)) (local.get 1)))
  (func (export "pair") (param i32) (result i32 i64)
    (local.get 0) (i64.extend_i32_u (local.get 0))))
