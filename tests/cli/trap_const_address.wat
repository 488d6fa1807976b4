;; args: --mode=jit --invoke=f
(module
  ;; A load from a constant out-of-bounds address whose product feeds another
  ;; load: the trap names the first load (differential seed 13853).
  (memory 1)
  (func (export "f") (result i64)
    (i64.load32_s (i32.mul (i32.const 1848898505) (i32.load (i32.const 1259864897))))))
