(module
  (func (export "_start")
    (drop (select (i32.const 1) (i32.const 2) (i32.const 0)))
    (drop (select (result i32) (i32.const 3) (i32.const 4) (i32.const 1)))))
