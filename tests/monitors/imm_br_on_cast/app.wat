(module
  (type $s (struct (field i32)))
  (func $f (param anyref) (result i32)
    (block $l (result (ref $s))
      (br_on_cast $l anyref (ref $s) (local.get 0))
      (drop)
      (return (select (result i32) (i32.const 1) (i32.const 2) (i32.const 0))))
    (drop) (i32.const 7))
  (func (export "_start") (drop (call $f (struct.new $s (i32.const 3))))))
