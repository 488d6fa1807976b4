;; Wizard's wizeng.new_funcref makes a function of the importer's type $f
;; from a body (locals and code, through its `end`) in the caller's memory,
;; validated against the importer's module: it sees the same functions,
;; globals and memory. An invalid body gives null. wizeng.puta prints
;; elements of an i8 array. Both are imported at the importer's own types.
(module
  (type $v (func))
  (type $ii (func (param i32) (result i32)))
  (type $bytes (array (mut i8)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng" "invoke0" (func $invoke0 (param funcref)))
  (import "wizeng" "new_funcref" (func $new_v (param i32 i32) (result (ref null $v))))
  (import "wizeng" "new_funcref" (func $new_ii (param i32 i32) (result (ref null $ii))))
  (import "wizeng" "puta" (func $puta (param (ref null $bytes) i32 i32)))
  (memory (export "memory") 1)
  (global $calls (mut i32) (i32.const 0))
  (global $probe (mut (ref null $v)) (ref.null $v))
  ;; () -> (): global 0 += 1
  (data (i32.const 0) "\00\23\00\41\01\6a\24\00\0b")
  ;; (i32) -> i32: local 0 * 10
  (data (i32.const 16) "\00\20\00\41\0a\6c\0b")
  ;; () -> (), invalid: leaves an i32
  (data (i32.const 32) "\00\41\01\0b")
  ;; () -> (): call function 0 (puti) with 42, then putc 10
  (data (i32.const 40) "\00\41\2a\10\00\41\0a\10\01\0b")
  (data $text "hello from puta\n")
  (func $nl (call $putc (i32.const 10)))
  (func (export "wasm:opcode:call")
    (if (ref.is_null (global.get $probe))
      (then (global.set $probe (call $new_v (i32.const 0) (i32.const 9)))))
    (call $invoke0 (global.get $probe)))
  (func (export "wasm:exit") (local $a (ref null $bytes))
    (call $puti (global.get $calls)) (call $nl)
    (call $puti (call_ref $ii (i32.const 7) (call $new_ii (i32.const 16) (i32.const 7)))) (call $nl)
    (call $invoke0 (call $new_v (i32.const 40) (i32.const 10)))
    (call $puti (ref.is_null (call $new_v (i32.const 32) (i32.const 4)))) (call $nl)
    (local.set $a (array.new_data $bytes $text (i32.const 6) (i32.const 10)))
    (call $puta (local.get $a) (i32.const 0) (i32.const 10))
    (call $puta (local.get $a) (i32.const 5) (i32.const 5))
    (call $puta (local.get $a) (i32.const 6) (i32.const 5))))
