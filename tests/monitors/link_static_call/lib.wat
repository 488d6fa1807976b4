;; Per-site slots, allocated by the library at match time (a static call of
;; the monitor goes to this function through the monitor's re-export).
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (global $next (mut i32) (i32.const 0))
  (func (export "alloc") (param $fid i32) (param $pc i32) (result i32)
    (call $puti (local.get $fid)) (call $putc (i32.const 58))
    (call $puti (local.get $pc)) (call $putc (i32.const 32))
    (global.set $next (i32.add (global.get $next) (i32.const 4)))
    (global.get $next)))
