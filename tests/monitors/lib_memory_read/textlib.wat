;; A monitor library whose exported memory holds a greeting.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "hello from the library"))
