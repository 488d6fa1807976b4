;; A static call of site facts that traps is a bind error naming the call
;; and the trap (exit 3), at the first matched site, as for any static call.
(module
  (func $f (export "f") (param i32 i32 i32) (result i32)
    (if (i32.eq (local.get 1) (i32.const 20)) (then unreachable))
    (local.get 0))
  (func (export "wasm:opcode:call(f(fid, pc, opcode))") (param i32)))
