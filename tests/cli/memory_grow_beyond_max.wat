;; args: --invoke=grow 2
;; memory.grow past the declared maximum returns -1 and the program goes on.
(module (memory 1 2) (func (export "grow") (param i32) (result i32 i32)
  (memory.grow (local.get 0)) (memory.size)))
