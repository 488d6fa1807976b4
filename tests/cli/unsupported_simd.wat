(module (func (export "_start") (drop (v128.const i64x2 1 2))))
