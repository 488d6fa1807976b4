;; whamm:reflect: the app's function names (name section, empty when a
;; function has none) and counts, copied into the monitor's memory; the
;; result is the full length even when fewer bytes fit.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "whamm:reflect" "read_function_name" (func $name (param i32 i32 i32) (result i32)))
  (import "whamm:reflect" "get_num_functions" (func $nfuncs (result i32)))
  (import "whamm:reflect" "get_num_imports" (func $nimports (result i32)))
  (memory (export "memory") 1)
  (func $show (param $fid i32) (local $n i32)
    (local.set $n (call $name (local.get $fid) (i32.const 0) (i32.const 64)))
    (call $puti (local.get $fid)) (call $putc (i32.const 61))
    (call $puts (i32.const 0) (local.get $n)) (call $putc (i32.const 10)))
  (func (export "wasm:exit") (local $i i32)
    (call $puti (call $nfuncs)) (call $putc (i32.const 32))
    (call $puti (call $nimports)) (call $putc (i32.const 10))
    (loop $l
      (call $show (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (call $nfuncs))))
    ;; two bytes fit, the length is still the whole name's
    (call $puti (call $name (i32.const 3) (i32.const 100) (i32.const 2)))
    (call $putc (i32.const 32))
    (call $puts (i32.const 100) (i32.const 2)) (call $putc (i32.const 10))))
