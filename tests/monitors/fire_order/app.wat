(module
  (func $g)
  (func (export "_start") (call $g) (call $g)))
