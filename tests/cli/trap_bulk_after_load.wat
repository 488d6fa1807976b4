;; args: --mode=jit --invoke=f
(module
  ;; memory.init of a dropped segment traps at the memory.init itself, not at
  ;; the (in-bounds) load before it (differential seed 7290).
  (memory 1)
  (data "x")
  (func (export "f")
    (drop (i64.load32_s offset=65520 (i32.const 0)))
    (data.drop 0)
    (memory.init 0 (i32.const 0) (i32.const 0) (i32.const 1))))
