(module
  (import "second" "print" (func $print (param i32)))
  (global $n (mut i32) (i32.const 0))
  (func (export "count") (param i32) (global.set $n (i32.add (global.get $n) (i32.const 1))))
  (func (export "report") (call $print (global.get $n))))
