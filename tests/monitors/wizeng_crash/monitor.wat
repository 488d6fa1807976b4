;; Wizard's wizeng.crash ends the run with an error; here it is a trap
;; (exit status 134), after the output so far.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "crash" (func $crash))
  (func (export "wasm:exit") (call $puti (i32.const 7)) (call $crash) (call $puti (i32.const 8))))
