;; Wizard's pattern for probes made at run time: wizeng.new_funcref makes a
;; `[] -> []` function (it counts in the monitor's global 0), and
;; whamm:dyninstr attaches it at the first call site the static probe sees;
;; it fires from that site's next occurrence on.
(module
  (type $v (func))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng" "new_funcref" (func $new (param i32 i32) (result (ref null $v))))
  (import "whamm:dyninstr" "insert_new_probe" (func $insert (param i32 i32 funcref) (result i32)))
  (memory (export "memory") 1)
  (global $made (mut i32) (i32.const 0))
  (global $inserted (mut i32) (i32.const 0))
  ;; () -> (): global 0 += 1
  (data (i32.const 0) "\00\23\00\41\01\6a\24\00\0b")
  (func (export "wasm:opcode:call(fid, pc)") (param $fid i32) (param $pc i32)
    (if (i32.eqz (global.get $inserted))
      (then
        (global.set $inserted (i32.const 1))
        (call $puti (i32.ge_s
          (call $insert (local.get $fid) (local.get $pc) (call $new (i32.const 0) (i32.const 9)))
          (i32.const 0)))
        (call $putc (i32.const 10)))))
  (func (export "wasm:exit")
    (call $puti (global.get $made)) (call $putc (i32.const 10))))
