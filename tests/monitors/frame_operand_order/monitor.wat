;; Several probes at one site see each other's operand writes, in firing
;; order, whether they read the operand through the frame or as `argN`: the
;; JIT saves the site's operands once, runs every probe on the saved copies
;; and pushes them back after the last one, as the interpreter's frame does.
;; Also operands below the instruction's own (`call:after` operand 1), and a
;; `loop` site (probes inside the loop: height only).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:frame_accessor" "get_operand_i32" (func $get (param externref i32) (result i32)))
  (import "wizeng:frame_accessor" "set_operand_i32" (func $set (param externref i32 i32)))
  (import "wizeng:frame_accessor" "get_num_operands" (func $nops (param externref) (result i32)))
  (global $sum (mut i32) (i32.const 0))
  (global $calls (mut i32) (i32.const 0))
  (func $add (param i32) (global.set $sum (i32.add (global.get $sum) (local.get 0))))
  ;; `i32.or`'s right operand becomes 100 + its old value
  (func (export "wasm:opcode:i32.or(frame)") (param $f externref)
    (call $set (local.get $f) (i32.const 0) (i32.add (call $get (local.get $f) (i32.const 0)) (i32.const 100))))
  ;; ...which the next probe at the site sees as arg0
  (func (export "wasm:opcode:i32.or(arg0, arg1)") (param $a i32) (param $b i32)
    (call $add (i32.add (i32.mul (local.get $a) (i32.const 1000)) (local.get $b))))
  ;; and a third one through the frame again, writing the left operand
  (func (export "wasm:opcode:i32.or:after(frame)") (param $f externref)
    (call $add (call $get (local.get $f) (i32.const 0))))
  ;; after each call of $f: its result + 1; operand 1 is the accumulator below it
  (func (export "is_f") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 2)))
  (func (export "wasm:opcode:call:after/is_f(imm0)/(frame)") (param $f externref)
    (global.set $calls (i32.add (global.get $calls) (call $get (local.get $f) (i32.const 1))))
    (call $set (local.get $f) (i32.const 0) (i32.add (call $get (local.get $f) (i32.const 0)) (i32.const 1))))
  (func (export "wasm:opcode:loop(frame)") (param $f externref)
    (call $add (i32.mul (call $nops (local.get $f)) (i32.const 7))))
  (func (export "wasm:exit")
    (call $puti (global.get $sum)) (call $putc (i32.const 32))
    (call $puti (global.get $calls)) (call $putc (i32.const 10)))
)
