(module (memory 1) (data (i32.const 65535) "ab") (func (export "_start")))
