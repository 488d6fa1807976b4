(module
  ;; `func:exit` and exceptions: prints "entry F" and "exit F" per function
  ;; (but the printer, func 1), and "throw" at each throw. A frame an
  ;; exception unwinds never reaches its `return` or final `end`, so its
  ;; `func:exit` does not fire (as in Wizard, whose exit rules are rules at
  ;; those instructions; whamm lists a separate `unwind` event as future
  ;; work): $thrower, $a and $b print no exit, and the frame that catches
  ;; prints its exit when it returns normally. The same in every tier.
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "entry exit throw")
  (func $line (param $s i32) (param $n i32) (param $fid i32)
    (if (i32.eq (local.get $fid) (i32.const 1)) (then (return)))
    (call $puts (local.get $s) (local.get $n))
    (call $puti (local.get $fid))
    (call $putc (i32.const 10)))
  (func (export "wasm:func:entry(fid)") (param i32)
    (call $line (i32.const 0) (i32.const 6) (local.get 0)))
  (func (export "wasm:func:exit(fid)") (param i32)
    (call $line (i32.const 6) (i32.const 5) (local.get 0)))
  (func (export "wasm:opcode:throw(fid)") (param i32)
    (call $line (i32.const 11) (i32.const 6) (local.get 0)))
)
