;; args: --mode=jit --invoke=f 65535
(module
  ;; The out-of-bounds i32.load is merged into the widening of memory.fill's
  ;; destination, so the guard-page fault carries memory.fill's location; it
  ;; is the load's trap (pc 0x3, as in the interpreter), not memory.fill's own
  ;; check, which traps with ud2 (differential seed 98586; the JIT said 0xa).
  (memory 1)
  (func (export "f") (param i32)
    (memory.fill (i32.load (local.get 0)) (i32.const 0) (i32.const 0))))
