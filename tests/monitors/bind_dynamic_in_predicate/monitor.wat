;; A dynamic value (argN) in a static predicate cannot be bound: a bind error
;; at the first site the rule's event matches (the first `call`), exit 3.
(module
  (func $pred (export "$pred") (param i32) (result i32) (i32.const 1))
  (func (export "wasm:opcode:call / $pred(arg0) / ()")))
