;; Probes that only test an operand against zero, and use a test's result as
;; a value, are inlined twice by the JIT, with 1 and 0, under a test of the
;; operand (`--specialize`); the others are not (the `br_if` probe branches on
;; the operand). Counts must not depend on tier, inlining or specialisation, for
;; operands like 2, -1 and 0x80000000 as much as 0 and 1.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (global $next (mut i32) (i32.const 64))
  (global $sum (mut i32) (i32.const 0))
  (func $slot (export "slot") (param i32 i32) (result i32)
    (global.set $next (i32.add (global.get $next) (i32.const 16)))
    (global.get $next))
  (func $bump (param $a i32)
    (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.const 1))))
  ;; `if` on the operand: a zero test, but already a fixed address on each side
  (func (export "wasm:opcode:br_if(slot(fid, pc), arg0)") (param $c i32) (param $v i32)
    (if (local.get $v) (then (call $bump (local.get $c)))
      (else (call $bump (i32.add (local.get $c) (i32.const 4))))))
  ;; `i32.eqz`, and `i32.ne 0`: specialised
  (func (export "wasm:opcode:if(slot(fid, pc), arg0)") (param $c i32) (param $v i32)
    (call $bump (i32.add (local.get $c) (i32.shl (i32.eqz (local.get $v)) (i32.const 2))))
    (call $bump (i32.add (local.get $c) (i32.shl (i32.ne (local.get $v) (i32.const 0)) (i32.const 3)))))
  ;; arg1 only tested, arg0 summed: specialised on arg1 only
  (func (export "wasm:opcode:i32.and(slot(fid, pc), arg0, arg1)") (param $c i32) (param $x i32) (param $y i32)
    (global.set $sum (i32.add (global.get $sum) (local.get $x)))
    (call $bump (i32.add (local.get $c) (i32.shl (i32.eqz (local.get $y)) (i32.const 2)))))
  ;; the operand's value is used: not specialised
  (func (export "wasm:opcode:i32.or(slot(fid, pc), arg0)") (param $c i32) (param $v i32)
    (call $bump (i32.add (local.get $c) (i32.and (local.get $v) (i32.const 12)))))
  ;; the parameter is written: not specialised
  (func (export "wasm:opcode:i32.xor(slot(fid, pc), arg0)") (param $c i32) (param $v i32)
    (local.set $v (i32.shr_u (local.get $v) (i32.const 31)))
    (if (local.get $v) (then (call $bump (local.get $c)))))
  (func (export "wasm:exit") (local $a i32)
    (local.set $a (i32.const 80))
    (block $d (loop $l (br_if $d (i32.gt_u (local.get $a) (global.get $next)))
      (call $puti (i32.load (local.get $a))) (call $putc (i32.const 47))
      (call $puti (i32.load offset=4 (local.get $a))) (call $putc (i32.const 47))
      (call $puti (i32.load offset=8 (local.get $a))) (call $putc (i32.const 47))
      (call $puti (i32.load offset=12 (local.get $a))) (call $putc (i32.const 32))
      (local.set $a (i32.add (local.get $a) (i32.const 16))) (br $l)))
    (call $puti (global.get $sum)) (call $putc (i32.const 10)))
)
