;; Frame modification and operand reads with constant indices. Inlined by the
;; JIT, these accessor calls are intrinsics (direct accesses of the woven
;; function's locals, and of the site's operands saved in scratch locals);
;; the app's result and the sums here must equal the interpreter's, which
;; works on its real frame. `counts.wat` counts every instruction, per block
;; in the JIT between these probes' sites.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:frame_accessor" "get_local_i32" (func $get_local_i32 (param externref i32) (result i32)))
  (import "wizeng:frame_accessor" "set_local_i32" (func $set_local_i32 (param externref i32 i32)))
  (import "wizeng:frame_accessor" "get_local_i64" (func $get_local_i64 (param externref i32) (result i64)))
  (import "wizeng:frame_accessor" "set_local_i64" (func $set_local_i64 (param externref i32 i64)))
  (import "wizeng:frame_accessor" "get_operand_i32" (func $get_operand_i32 (param externref i32) (result i32)))
  (import "wizeng:frame_accessor" "set_operand_i32" (func $set_operand_i32 (param externref i32 i32)))
  (import "wizeng:frame_accessor" "get_operand_i64" (func $get_operand_i64 (param externref i32) (result i64)))
  (import "wizeng:frame_accessor" "set_operand_i64" (func $set_operand_i64 (param externref i32 i64)))
  (import "wizeng:frame_accessor" "get_operand_f64" (func $get_operand_f64 (param externref i32) (result f64)))
  (import "wizeng:frame_accessor" "set_operand_f64" (func $set_operand_f64 (param externref i32 f64)))
  (memory (export "memory") 1)
  (func $add (param $a i32) (param $v i32)
    (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (local.get $v))))
  (func (export "in_f") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 2)))
  ;; y = x * 3 becomes x * 4: the constant operand + 1; [12]: sum of x.
  (func (export "wasm:opcode:i64.mul(frame)") (param $f externref)
    (call $set_operand_i64 (local.get $f) (i32.const 0)
      (i64.add (call $get_operand_i64 (local.get $f) (i32.const 0)) (i64.const 1)))
    (call $add (i32.const 12) (i32.wrap_i64 (call $get_operand_i64 (local.get $f) (i32.const 1)))))
  ;; the conversion's result, doubled (after: operand 0 is the result)
  (func (export "wasm:opcode:f64.convert_i64_s:after(frame)") (param $f externref)
    (call $set_operand_f64 (local.get $f) (i32.const 0)
      (f64.mul (call $get_operand_f64 (local.get $f) (i32.const 0)) (f64.const 2))))
  ;; after each `local.set` in $f: y += 100 (the next instruction sees it)
  (func (export "wasm:opcode:local.set:after/in_f(fid)/(frame)") (param $f externref)
    (call $set_local_i64 (local.get $f) (i32.const 1)
      (i64.add (call $get_local_i64 (local.get $f) (i32.const 1)) (i64.const 100))))
  ;; at `i32.or` (in $main, inside an argument): [16]: operand 2, the
  ;; accumulator below the call's argument; the or's left operand becomes i * 2
  (func (export "wasm:opcode:i32.or(frame)") (param $f externref)
    (call $add (i32.const 16) (call $get_operand_i32 (local.get $f) (i32.const 2)))
    (call $set_operand_i32 (local.get $f) (i32.const 1)
      (i32.shl (call $get_operand_i32 (local.get $f) (i32.const 1)) (i32.const 1))))
  ;; at `br_if` in $main: i += 1, so the loop runs every other i
  (func (export "wasm:opcode:br_if(frame)") (param $f externref)
    (call $set_local_i32 (local.get $f) (i32.const 0)
      (i32.add (call $get_local_i32 (local.get $f) (i32.const 0)) (i32.const 1))))
  (func $p (param i32) (call $puti (local.get 0)) (call $putc (i32.const 32)))
  (func (export "wasm:exit")
    (call $p (i32.load (i32.const 12)))
    (call $p (i32.load (i32.const 16)))
    (call $putc (i32.const 10)))
)
