;; A library that imports from its monitor while the monitor imports from it
;; (a cycle of function imports): the library is instantiated first, its
;; imports from the monitor forwarded once the monitor exists. The predicate
;; and the probe are the library's functions.
(module
  (import "lib" "pred" (func $pred (param i32) (result i32)))
  (import "lib" "probe" (func $probe (param i32 i32)))
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "monitor says: ")
  (func (export "say") (call $puts (i32.const 0) (i32.const 14)))
  (export "pred" (func $pred))
  (export "wasm:opcode:call / pred(fid) / (fid, pc)" (func $probe)))
