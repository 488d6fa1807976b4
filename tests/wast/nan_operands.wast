;; Which NaN a float operation with NaN operands returns. The Wasm spec
;; allows any NaN here; every tier returns the first NaN operand, quieted
;; (x86's SSE rule, which the JIT's code follows), so the tiers agree bit
;; for bit. The bits reach an integer (`reinterpret`), where a difference
;; would be visible to the program. Each form the interpreter fuses
;; (operand from a local, a constant operand, `x + y * z`) is covered.
;; Not covered, because the tiers do differ there: Cranelift's optimiser
;; rewrites `(-a) * (-b)` to `a * b`, so with NaN operands the JIT's result
;; has the other sign (the interpreter computes what the instructions say).

(module
  (func (export "mul32") (param f32 f32) (result i32)
    (i32.reinterpret_f32 (f32.mul (local.get 0) (local.get 1))))
  (func (export "add32") (param f32 f32) (result i32)
    (i32.reinterpret_f32 (f32.add (local.get 0) (local.get 1))))
  (func (export "sub32") (param f32 f32) (result i32)
    (i32.reinterpret_f32 (f32.sub (local.get 0) (local.get 1))))
  (func (export "div32") (param f32 f32) (result i32)
    (i32.reinterpret_f32 (f32.div (local.get 0) (local.get 1))))
  ;; The second operand a constant NaN, the first computed.
  (func (export "mul32_const") (param f32) (result i32)
    (i32.reinterpret_f32 (f32.mul (f32.neg (local.get 0)) (f32.const nan:0x7ff000))))
  ;; Both operands computed (no operand from a local or a constant).
  (func (export "div64_neg") (param f64 f64) (result i64)
    (i64.reinterpret_f64 (f64.div (f64.neg (local.get 0)) (f64.neg (local.get 1)))))
  (func (export "mul64") (param f64 f64) (result i64)
    (i64.reinterpret_f64 (f64.mul (local.get 0) (local.get 1))))
  (func (export "add64") (param f64 f64) (result i64)
    (i64.reinterpret_f64 (f64.add (local.get 0) (local.get 1))))
  (func (export "add64_const") (param f64) (result i64)
    (i64.reinterpret_f64 (f64.add (f64.neg (local.get 0)) (f64.const nan:0x1))))
  (func (export "mul_add64") (param f64 f64 f64) (result i64)
    (i64.reinterpret_f64 (f64.add (local.get 0) (f64.mul (local.get 1) (local.get 2))))))

;; Both operands NaN: the first, quieted (a signalling NaN gets its quiet bit).
(assert_return (invoke "mul32" (f32.const nan:0x200000) (f32.const -nan:0x7ff000)) (i32.const 0x7fe00000))
(assert_return (invoke "mul32" (f32.const -nan:0x7ff000) (f32.const nan:0x200000)) (i32.const 0xfffff000))
(assert_return (invoke "add32" (f32.const -nan:0x1) (f32.const nan:0x400000)) (i32.const 0xffc00001))
(assert_return (invoke "sub32" (f32.const nan:0x123) (f32.const nan:0x456)) (i32.const 0x7fc00123))
(assert_return (invoke "div32" (f32.const nan:0x400456) (f32.const -nan:0x123)) (i32.const 0x7fc00456))
;; One NaN operand: that one, quieted, wherever it is.
(assert_return (invoke "mul32" (f32.const 2.5) (f32.const -nan:0x200000)) (i32.const 0xffe00000))
(assert_return (invoke "add32" (f32.const nan:0x200000) (f32.const 2.5)) (i32.const 0x7fe00000))
(assert_return (invoke "mul32_const" (f32.const 1.5)) (i32.const 0x7ffff000))
(assert_return (invoke "mul32_const" (f32.const nan:0x200000)) (i32.const 0xffe00000))
(assert_return (invoke "mul64" (f64.const nan:0x4) (f64.const -nan:0x8)) (i64.const 0x7ff8000000000004))
(assert_return (invoke "add64" (f64.const -nan:0x8) (f64.const nan:0x4)) (i64.const 0xfff8000000000008))
(assert_return (invoke "add64_const" (f64.const 1)) (i64.const 0x7ff8000000000001))
(assert_return (invoke "add64_const" (f64.const nan:0x2)) (i64.const 0xfff8000000000002))
;; Negated operands: the first NaN with its sign flipped by `neg`.
(assert_return (invoke "div64_neg" (f64.const nan:0x3) (f64.const -nan:0x9)) (i64.const 0xfff8000000000003))
;; x + y * z: the product's NaN first (y's, else z's), then x's before it.
(assert_return (invoke "mul_add64" (f64.const 1) (f64.const nan:0x5) (f64.const -nan:0x6)) (i64.const 0x7ff8000000000005))
(assert_return (invoke "mul_add64" (f64.const -nan:0x7) (f64.const nan:0x5) (f64.const 2)) (i64.const 0xfff8000000000007))
