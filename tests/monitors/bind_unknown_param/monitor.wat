;; An unknown parameter name makes the export name invalid: a warning, and
;; the probe is skipped (Wizard: a warning on stdout); the other probe runs.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (global $n (mut i32) (i32.const 0))
  (func (export "wasm:opcode:call(frobs)") (param i32) (call $puti (i32.const 99)))
  (func (export "wasm:opcode:call(fid)") (param i32) (global.set $n (i32.add (global.get $n) (i32.const 1))))
  (func (export "wasm:exit") (call $puti (global.get $n))))
