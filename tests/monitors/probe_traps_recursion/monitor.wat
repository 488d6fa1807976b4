;; A runaway recursion in a monitor function: every tier names the monitor, the
;; export, the innermost monitor frame and the probe site.
(module
  (func $r (call $r))
  (func (export "wasm:opcode:i32.add") (call $r)))
