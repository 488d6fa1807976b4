;; Binds v128 operands (before and after), v128 locals by index and through
;; the frame accessors, and a lane immediate; overwrites a v128 operand.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:frame_accessor" "get_local_v128" (func $glv (param externref i32) (result v128)))
  (import "wizeng:frame_accessor" "get_operand_v128" (func $gov (param externref i32) (result v128)))
  (import "wizeng:frame_accessor" "set_operand_v128" (func $sov (param externref i32 v128)))
  (memory (export "memory") 1)
  (func $p (param i32) (call $puti (local.get 0)) (call $putc (i32.const 32)))
  (func $lanes (param v128)
    (call $p (i32x4.extract_lane 0 (local.get 0)))
    (call $p (i32x4.extract_lane 1 (local.get 0)))
    (call $p (i32x4.extract_lane 2 (local.get 0)))
    (call $p (i32x4.extract_lane 3 (local.get 0)))
    (call $putc (i32.const 124)) (call $putc (i32.const 32)))
  (func $nl (call $putc (i32.const 10)))
  ;; add: the deeper operand, then the constant
  (func (export "wasm:opcode:i32x4.add(arg1, arg0)") (param v128 v128)
    (call $lanes (local.get 0)) (call $lanes (local.get 1)) (call $nl))
  ;; before mul: $t (local 2, after a v128 and an i32) by index and by frame,
  ;; $n, the splat operand; then the multiplier becomes 3
  (func (export "wasm:opcode:i32x4.mul(local2, local1, frame)") (param v128 i32 externref)
    (call $lanes (local.get 0))
    (call $p (local.get 1))
    (call $lanes (call $glv (local.get 2) (i32.const 2)))
    (call $lanes (call $gov (local.get 2) (i32.const 0)))
    (call $sov (local.get 2) (i32.const 0) (v128.const i32x4 3 3 3 3))
    (call $nl))
  ;; after mul: the product
  (func (export "wasm:opcode:i32x4.mul:after(arg0)") (param v128)
    (call $lanes (local.get 0)) (call $nl))
  ;; the lane immediate of extract_lane and the vector it reads
  (func (export "wasm:opcode:i32x4.extract_lane(imm0, arg0)") (param i32 v128)
    (call $p (local.get 0)) (call $lanes (local.get 1)) (call $nl))
)
