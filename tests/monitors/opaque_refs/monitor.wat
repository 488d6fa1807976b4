(module
  ;; Binds GC operands and locals to `externref` parameters: each arrives as
  ;; an opaque reference. Prints its id (`wizeng.ref_id`: the same object,
  ;; the same id) and whether the monitor could read it as a struct, array,
  ;; eq or i31 after `any.convert_extern` (never: it is a host reference).
  ;; Keeps the first one in a global and prints its id again at exit.
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng" "ref_id" (func $ref_id (param externref) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "id  readable kept")
  (global $kept (mut externref) (ref.null extern))
  (func $show (param $r externref)
    (local $a anyref)
    (if (ref.is_null (global.get $kept)) (then (global.set $kept (local.get $r))))
    (local.set $a (any.convert_extern (local.get $r)))
    (call $puts (i32.const 0) (i32.const 3))
    (call $puti (call $ref_id (local.get $r)))
    (call $putc (i32.const 32))
    (call $puts (i32.const 4) (i32.const 9))
    (call $puti
      (i32.or
        (i32.or (ref.test (ref struct) (local.get $a)) (ref.test (ref array) (local.get $a)))
        (i32.or (ref.test (ref eq) (local.get $a)) (ref.test (ref i31) (local.get $a)))))
    (call $putc (i32.const 10)))
  (func (export "wasm:opcode:array.len(arg0)") (param externref) (call $show (local.get 0)))
  (func (export "wasm:opcode:i31.get_u(arg0)") (param externref) (call $show (local.get 0)))
  (func (export "wasm:opcode:ref.is_null(arg0)") (param externref) (call $show (local.get 0)))
  (func (export "wasm:func:entry/ $is_get(fid) /(local0)") (param externref) (call $show (local.get 0)))
  (func (export "$is_get") (param i32) (result i32) (i32.eqz (local.get 0)))
  (func (export "wasm:exit")
    (call $puts (i32.const 13) (i32.const 4))
    (call $putc (i32.const 32))
    (call $puti (call $ref_id (global.get $kept)))
    (call $putc (i32.const 10)))
)
