(module (import "env" "missing" (func $m)) (func (export "f") (call $m)))
