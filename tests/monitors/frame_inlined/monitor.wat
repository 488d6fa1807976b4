;; A frame probe the JIT inlines with its frame reads turned into direct reads
;; (local 0 is an i32 at every i32.add site; get_pc and get_fid are the site's
;; constants): the sums must equal the interpreter's, which reads the frame.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:frame_accessor" "get_fid" (func $fid (param externref) (result i32)))
  (import "wizeng:frame_accessor" "get_pc" (func $pc (param externref) (result i32)))
  (import "wizeng:frame_accessor" "get_local_i32" (func $local (param externref i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "wasm:opcode:i32.add(frame)") (param $f externref)
    ;; [0]: number of probes, [4]: sum of local 0, [8]: sum of pcs, [12]: sum of fids
    (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))
    (i32.store (i32.const 4) (i32.add (i32.load (i32.const 4)) (call $local (local.get $f) (i32.const 0))))
    (i32.store (i32.const 8) (i32.add (i32.load (i32.const 8)) (call $pc (local.get $f))))
    (i32.store (i32.const 12)
      (i32.add (i32.load (i32.const 12)) (i32.mul (call $fid (local.get $f)) (i32.const 1000)))))
  (func $p (param i32) (call $puti (local.get 0)) (call $putc (i32.const 32)))
  (func (export "wasm:exit")
    (call $p (i32.load (i32.const 0)))
    (call $p (i32.load (i32.const 4)))
    (call $p (i32.load (i32.const 8)))
    (call $p (i32.load (i32.const 12)))
    (call $putc (i32.const 10))))
