;; args: --invoke=grow 1
(module (memory 1 2) (func (export "grow") (param i32) (result i32 i32)
  (memory.grow (local.get 0)) (memory.size)))
