;; args: --mode=jit --invoke=f 0
(module
  ;; Cranelift's egraph turns popcnt(splat(load)) into splat(popcnt(load))
  ;; with a new popcnt that has no source location, and merges the load into
  ;; it: the fault then has no location of its own and the nearest located
  ;; code before it is the i32.gt_u computing the address. The trap site is
  ;; the first access from there on, the v128.load8_splat at pc 0xa, as in
  ;; the interpreter (differential seed 32908; the JIT said pc 0x9).
  (memory 0 1)
  (func (export "f") (param f32) (result i32)
    (i32.load
      (i8x16.extract_lane_u 3
        (i8x16.popcnt
          (v128.load8_splat
            (i32.gt_u (i32.trunc_sat_f32_s (local.get 0)) (i32.trunc_sat_f32_u (local.get 0)))))))))
