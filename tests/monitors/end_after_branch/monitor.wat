;; For each `end:after` site of function 1: whether it was matched (a static
;; call at match time) and how often its probe fired, as lines
;; "pc matched fired".
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory 1)
  ;; fired counts at 4*pc, matched flags at 1024 + 4*pc
  (func $matched (export "matched") (param $fid i32) (param $pc i32) (result i32)
    (if (i32.eq (local.get $fid) (i32.const 1))
      (then (i32.store (i32.add (i32.const 1024) (i32.mul (local.get $pc) (i32.const 4)))
              (i32.const 1))))
    (local.get $fid))
  (func (export "wasm:opcode:end:after(matched(fid, pc), pc)") (param $fid i32) (param $pc i32)
    (if (i32.eq (local.get $fid) (i32.const 1))
      (then
        (i32.store (i32.mul (local.get $pc) (i32.const 4))
          (i32.add (i32.load (i32.mul (local.get $pc) (i32.const 4))) (i32.const 1))))))
  (func (export "wasm:exit") (local $pc i32) (local $m i32)
    (loop $l
      (local.set $m (i32.load (i32.add (i32.const 1024) (i32.mul (local.get $pc) (i32.const 4)))))
      (if (i32.or (local.get $m) (i32.load (i32.mul (local.get $pc) (i32.const 4))))
        (then
          (call $puti (local.get $pc)) (call $putc (i32.const 32))
          (call $puti (local.get $m)) (call $putc (i32.const 32))
          (call $puti (i32.load (i32.mul (local.get $pc) (i32.const 4))))
          (call $putc (i32.const 10))))
      (local.set $pc (i32.add (local.get $pc) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $pc) (i32.const 200))))))
