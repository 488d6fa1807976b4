;; whamm:reflect from the monitor's start function: the CLI announces the app
;; before it loads the monitors, so the counts and the reads answer there (in
;; Wizard, which instantiates a monitor once it has parsed the app, the
;; counts answer; its reads are bound to the monitor's memory only after the
;; start function).
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:reflect" "get_num_functions" (func $nfuncs (result i32)))
  (import "whamm:reflect" "read_function_name" (func $name (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $start
    (call $puti (call $nfuncs)) (call $putc (i32.const 32))
    (call $puts (i32.const 0) (call $name (i32.const 3) (i32.const 0) (i32.const 16)))
    (call $putc (i32.const 10)))
  (start $start))
