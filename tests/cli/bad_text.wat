(module (func (export "_start") (i32.bogus)))
