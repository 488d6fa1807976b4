;; App for the Part B parameters: an imported and a local callee, a
;; br_table, a call_indirect, locals of several types.
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $asg (param i32 i32) (result i32)))
  (type $ii (func (param i32) (result i32)))
  (memory 1)
  (table 3 funcref)
  (elem (i32.const 0) $f)
  (func $f (type $ii) (local i64) (local.get 0))
  (func $main (export "main") (local f64)
    (drop (call $asg (i32.const 0) (i32.const 4)))
    (drop (call $f (i32.const 1)))
    (block $a (block $b (br_table $a $b $a (i32.const 1))))
    (drop (call_indirect (type $ii) (i32.const 5) (i32.const 0)))))
