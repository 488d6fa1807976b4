;; App for `resolved_fid` beyond call_indirect: ref.func, table.get of set,
;; initial and null entries, table.set, call_indirect.
(module
  (type $v (func (result i32)))
  (table 4 funcref)
  (elem (i32.const 0) $one $two)
  (elem declare func $three)
  (func $one (type $v) (i32.const 1))
  (func $two (type $v) (i32.const 2))
  (func $three (type $v) (i32.const 3))
  (func $main (export "main")
    (table.set (i32.const 2) (ref.func $three))
    (drop (table.get (i32.const 0)))
    (drop (table.get (i32.const 2)))
    (drop (table.get (i32.const 3)))
    (drop (call_indirect (type $v) (i32.const 1)))
    (drop (call_indirect (type $v) (i32.const 2)))))
