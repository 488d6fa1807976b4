(module (func $f (export "_start") (drop (i32.add (i32.const 1) (i32.const 0)))))
