(module (func $main (export "_start") (drop (select (i32.const 1) (i32.const 2) (i32.const 0))) (drop (select (i32.const 7) (i32.const 8) (i32.const 1)))))
