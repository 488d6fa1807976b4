;; args: --invoke=f abc
(module (func (export "f") (param i32)))
