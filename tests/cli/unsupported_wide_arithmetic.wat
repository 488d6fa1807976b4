;; args: --invoke=main
;; wide-arithmetic is not in wasmparser 0.217 (pinned by cranelift-wasm
;; 0.112): the module is refused with an error naming the proposal (exit 125).
(module
  (func (export "main") (result i64 i64)
    (i64.add128 (i64.const 1) (i64.const 2) (i64.const 3) (i64.const 4))))
