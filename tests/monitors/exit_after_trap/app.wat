(module (func $f (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0))) (func (export "_start") (drop (call $f (i32.const 0)))))
