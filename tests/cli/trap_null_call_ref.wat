;; args: --mode=jit --invoke=call
(module (type $t (func (result i32)))
  (func $call (export "call") (result i32)
    (call_ref $t (ref.null $t))))
