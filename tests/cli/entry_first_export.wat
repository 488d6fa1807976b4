;; args: --expose=wizeng
;; Two entry points: the first function export named main or _start runs (export order).
(module (import "wizeng" "puti" (func $p (param i32))) (func (export "main") (call $p (i32.const 1))) (func (export "_start") (call $p (i32.const 2))))
