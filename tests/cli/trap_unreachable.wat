;; args: --invoke=run
(module (func $inner (unreachable)) (func (export "run") (call $inner)))
