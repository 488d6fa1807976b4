;; get_num_operands and get_num_locals before and after every instruction
;; (loops, block ends, branches, calls, the function's final end): inlined,
;; they are the site's constants from validation, and must equal what the
;; interpreter's frame reports. get_pc/get_fid weight them per site.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:frame_accessor" "get_pc" (func $pc (param externref) (result i32)))
  (import "wizeng:frame_accessor" "get_fid" (func $fid (param externref) (result i32)))
  (import "wizeng:frame_accessor" "get_num_operands" (func $nops (param externref) (result i32)))
  (import "wizeng:frame_accessor" "get_num_locals" (func $nlocals (param externref) (result i32)))
  (memory (export "memory") 1)
  (func $add (param $a i32) (param $v i32)
    (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (local.get $v))))
  ;; [0]: operand heights, [4]: heights weighted by pc and fid, [8]: locals
  (func (export "wasm:opcode:*(frame)") (param $f externref)
    (call $add (i32.const 0) (call $nops (local.get $f)))
    (call $add (i32.const 4)
      (i32.mul (call $nops (local.get $f))
        (i32.add (call $pc (local.get $f)) (i32.mul (call $fid (local.get $f)) (i32.const 1000)))))
    (call $add (i32.const 8) (call $nlocals (local.get $f))))
  ;; [12]: operand heights after every instruction
  (func (export "wasm:opcode:*:after(frame)") (param $f externref)
    (call $add (i32.const 12) (call $nops (local.get $f))))
  ;; [16]: at function entry (no operands), locals
  (func (export "wasm:func:entry(frame)") (param $f externref)
    (call $add (i32.const 16)
      (i32.add (call $nlocals (local.get $f)) (i32.mul (call $nops (local.get $f)) (i32.const 100)))))
  (func $p (param i32) (call $puti (local.get 0)) (call $putc (i32.const 32)))
  (func (export "wasm:exit")
    (call $p (i32.load (i32.const 0)))
    (call $p (i32.load (i32.const 4)))
    (call $p (i32.load (i32.const 8)))
    (call $p (i32.load (i32.const 12)))
    (call $p (i32.load (i32.const 16)))
    (call $putc (i32.const 10)))
)
