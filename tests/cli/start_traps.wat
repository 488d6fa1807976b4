(module (func $s (unreachable)) (start $s) (func (export "_start")))
