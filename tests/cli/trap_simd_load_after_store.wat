;; args: --mode=jit --invoke=f
(module
  ;; An out-of-bounds v128 load whose value is dead traps at the load, not at
  ;; the (in-bounds) store before it: the JIT's trap-site search knows the
  ;; SIMD memory ops (differential seed 188; the interpreter says pc 0xa too).
  (memory 1)
  (func (export "f")
    (i32.store (i32.const 0) (i32.const 1))
    (drop (v128.load16_splat (i32.const -1)))))
