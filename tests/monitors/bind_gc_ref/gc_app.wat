(module
  (type $a (array i8))
  (func (export "_start")
    (drop (array.len (array.new_default $a (i32.const 3))))))
