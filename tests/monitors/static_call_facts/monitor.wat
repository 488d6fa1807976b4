;; Static calls that take only site facts (fid, pc, opcode, fname: what a
;; `report` variable's allocator takes) fill their arguments straight from
;; the site. They must see what any other static call sees: the values in
;; the pattern's order, in a predicate too, and the function's name written
;; into the buffer again at every call (this monitor overwrites it after
;; reading it, so a name left from the call before would show as "####").
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory (export "whamm_buffer") 1)
  (global (export "whamm_buffer:start") i32 (i32.const 1024))
  (global (export "whamm_buffer:max") i32 (i32.const 64))
  (global $next (mut i32) (i32.const 0))
  ;; Print "<tag> <name> <a>:<b>:<c>" and overwrite the name.
  (func $show (param $tag i32) (param $p i32) (param $l i32) (param $a i32) (param $b i32) (param $c i32)
    (call $putc (local.get $tag)) (call $putc (i32.const 32))
    (call $puts (local.get $p) (local.get $l)) (call $putc (i32.const 32))
    (call $puti (local.get $a)) (call $putc (i32.const 58))
    (call $puti (local.get $b)) (call $putc (i32.const 58))
    (call $puti (local.get $c)) (call $putc (i32.const 10))
    (memory.fill (local.get $p) (i32.const 35) (local.get $l)))
  ;; The predicate (fname first): every call but the one at pc 20.
  (func (export "pred") (param $p i32) (param $l i32) (param $fid i32) (param $pc i32) (result i32)
    (call $show (i32.const 112) (local.get $p) (local.get $l) (local.get $fid) (local.get $pc) (i32.const 0))
    (i32.ne (local.get $pc) (i32.const 20)))
  ;; The allocator: a slot per matched site, counted by the probe.
  (func (export "site") (param $fid i32) (param $pc i32) (param $op i32) (param $p i32) (param $l i32) (result i32)
    (call $show (i32.const 115) (local.get $p) (local.get $l) (local.get $fid) (local.get $pc) (local.get $op))
    (global.set $next (i32.add (global.get $next) (i32.const 4)))
    (global.get $next))
  (func (export "wasm:opcode:call / pred(fname, fid, pc) / (site(fid, pc, opcode, fname))") (param $slot i32)
    (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1))))
  (func (export "wasm:exit") (local $a i32)
    (local.set $a (i32.const 4))
    (block $done (loop $l
      (br_if $done (i32.gt_u (local.get $a) (global.get $next)))
      (call $puti (i32.load (local.get $a))) (call $putc (i32.const 32))
      (local.set $a (i32.add (local.get $a) (i32.const 4)))
      (br $l)))
    (call $putc (i32.const 10))))
