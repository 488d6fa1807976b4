;; Per-site allocation at match time, as whamm's engine target does: every
;; instruction, reachable or not, gets a slot; only reached ones count.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (memory 1)
  (global $sites (mut i32) (i32.const 0))
  (func $alloc (export "alloc") (param i32 i32) (result i32)
    (global.set $sites (i32.add (global.get $sites) (i32.const 1)))
    ;; slot address: 4 * site number
    (i32.mul (global.get $sites) (i32.const 4)))
  (func (export "wasm:opcode:*(alloc(fid, pc))") (param $a i32)
    (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.const 1))))
  (func (export "wasm:exit") (local $i i32) (local $fired i32) (local $total i32)
    (call $puti (global.get $sites)) (call $putc (i32.const 32))
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.load (i32.mul (local.get $i) (i32.const 4)))
        (then (local.set $fired (i32.add (local.get $fired) (i32.const 1)))))
      (local.set $total (i32.add (local.get $total) (i32.load (i32.mul (local.get $i) (i32.const 4)))))
      (br_if $l (i32.lt_u (local.get $i) (global.get $sites))))
    (call $puti (local.get $fired)) (call $putc (i32.const 32))
    (call $puti (local.get $total)) (call $putc (i32.const 10))))
