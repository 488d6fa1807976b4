;; A monitor with a tag of its own (its own type too), thrown and caught
;; inside its probe: with --emit-woven its tags follow the app's, which keep
;; their indices.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (type $pair (func (param i64 i32)))
  (tag $seen (type $pair))
  (global $throws (mut i32) (i32.const 0))
  (global $sum (mut i64) (i64.const 0))
  (func (export "wasm:opcode:throw(arg0)") (param $v i32)
    (block $caught (result i64 i32)
      (try_table (catch $seen $caught)
        (throw $seen (i64.extend_i32_u (local.get $v)) (i32.const 1)))
      (unreachable))
    (global.set $throws (i32.add (global.get $throws)))
    (global.set $sum (i64.add (global.get $sum))))
  (func (export "wasm:exit")
    (call $puti (global.get $throws)) (call $putc (i32.const 32))
    (call $puti (i32.wrap_i64 (global.get $sum))) (call $putc (i32.const 10))))
