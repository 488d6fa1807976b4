;; wizeng.new_funcref imported with a non-nullable result: a body that does
;; not validate cannot be answered with null, so the call traps.
(module
  (type $v (func))
  (import "wizeng" "new_funcref" (func $new (param i32 i32) (result (ref $v))))
  (memory 1)
  ;; () -> () leaving an i32 on the stack
  (data (i32.const 0) "\00\41\01\0b")
  (func (export "wasm:exit") (drop (call $new (i32.const 0) (i32.const 4)))))
