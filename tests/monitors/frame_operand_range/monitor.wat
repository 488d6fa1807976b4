;; get_operand_i32 of operand 2 at every `i32.add`: in range at the add in
;; $main's argument expression, out of range in $f, so no intrinsic; the app
;; runs in the interpreter, whose accessor traps at the first such site.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng:frame_accessor" "get_operand_i32" (func $get_operand_i32 (param externref i32) (result i32)))
  (func (export "wasm:opcode:i32.add(frame)") (param $f externref)
    (call $puti (call $get_operand_i32 (local.get $f) (i32.const 2))))
)
