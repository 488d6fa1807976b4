;; A typed `select t` beside an untyped `select`: `wasm:opcode:*` matches
;; both, `wasm:opcode:select` only the untyped one.
(module
  (func $pick (param i32) (result i32)
    (select (i32.const 10) (i32.const 20) (local.get 0))
    (select (result i32) (i32.const 30) (i32.const 40) (local.get 0))
    (i32.add))
  (func (export "_start")
    (drop (call $pick (i32.const 0)))
    (drop (call $pick (i32.const 1)))))
