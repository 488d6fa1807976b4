(module
  (func $g (param i32)
    (if (local.get 0) (then (return))))
  (func (export "_start") (call $g (i32.const 1)) (call $g (i32.const 0))))
