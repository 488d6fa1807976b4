;; A monitor library with its own memory, for tests/whamm/whamm_lib_memory.mm:
;; `greet(ptr)` writes "hello, lib" at ptr and returns its length.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "hello, lib")
  (func (export "greet") (param $p i32) (result i32)
    (memory.copy (local.get $p) (i32.const 0) (i32.const 10))
    (i32.const 10)))
