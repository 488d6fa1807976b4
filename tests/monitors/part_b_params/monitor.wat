;; Monitor ABI Part B parameters (docs/whamm-backend.md): opidx,
;; default_target, targets, target_fn_name/type/imp_module (several strings of
;; one static call written one after another), argtyN/localtyN (type codes;
;; argtyN beyond a call's operands is no match), wizeng:app.table_fid, and a
;; predicate rejecting the sites where a probe param would be an error.
(module
  (import "wizeng" "puts" (func $puts (param i32 i32)))
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:app" "table_fid" (func $table_fid (param i32 i32) (result i32)))
  (memory $m 1)
  (export "memory" (memory $m))
  (export "whamm_buffer" (memory $m))
  (global (export "whamm_buffer:start") i32 (i32.const 16))
  (global (export "whamm_buffer:max") i32 (i32.const 256))
  (func $sp (call $putc (i32.const 32)))
  (func $nl (call $putc (i32.const 10)))
  (func $str (param i32 i32) (call $putc (i32.const 39)) (call $puts (local.get 0) (local.get 1)) (call $putc (i32.const 39)))
  ;; match time: print the callee's strings, return a site id
  (func (export "names") (param i32 i32 i32 i32 i32 i32) (result i32)
    (call $str (local.get 0) (local.get 1)) (call $sp)
    (call $str (local.get 2) (local.get 3)) (call $sp)
    (call $str (local.get 4) (local.get 5)) (call $nl)
    (i32.const 7))
  (func (export "wasm:opcode:call($names(target_fn_name,target_fn_type,target_imp_module),opidx)") (param i32 i32)
    (call $puti (local.get 0)) (call $sp) (call $puti (local.get 1)) (call $nl))
  (func (export "wasm:opcode:call(argty0,argty1)") (param i32 i32)
    (call $puti (local.get 0)) (call $sp) (call $puti (local.get 1)) (call $nl))
  ;; match time: print the labels, return their count
  (func (export "labels") (param $p i32) (param $n i32) (result i32) (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (call $puti (i32.load (i32.add (local.get $p) (local.get $i)))) (call $sp)
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (call $nl)
    (i32.shr_u (local.get $n) (i32.const 2)))
  (func (export "wasm:opcode:br_table($labels(targets),default_target,num_targets,opidx)") (param i32 i32 i32 i32)
    (call $puti (local.get 0)) (call $sp) (call $puti (local.get 1)) (call $sp)
    (call $puti (local.get 2)) (call $sp) (call $puti (local.get 3)) (call $nl))
  (func (export "wasm:opcode:call_indirect(arg0)") (param i32)
    (call $puti (call $table_fid (i32.const 0) (local.get 0))) (call $sp)
    (call $puti (call $table_fid (i32.const 0) (i32.const 1))) (call $sp)
    (call $puti (call $table_fid (i32.const 0) (i32.const 99))) (call $sp)
    (call $puti (call $table_fid (i32.const 5) (i32.const 0))) (call $nl))
  (func (export "is_i64") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 0x7e)))
  (func (export "wasm:func:entry/$is_i64(localty1)/(fid,localty0)") (param i32 i32)
    (call $puti (local.get 0)) (call $sp) (call $puti (local.get 1)) (call $nl))
  ;; arg0 does not exist at most `end`s: the predicate rejects those sites
  ;; before arg0 would be a bind error
  (func (export "is_i32") (param i32) (result i32) (i32.eq (local.get 0) (i32.const 0x7f)))
  (func (export "wasm:opcode:end/$is_i32(argty0)/(fid,arg0)") (param i32 i32)
    (call $puti (local.get 0)) (call $sp) (call $puti (local.get 1)) (call $nl))
  (func (export "wasm:func:entry(fid,localty0)") (param i32 i32)
    (call $puti (local.get 0)) (call $sp) (call $puti (local.get 1)) (call $nl)))
