;; One page of memory with one active data segment at its last bytes.
(module
  (memory 1)
  (data (i32.const 65532) "tail")
  (func (export "_start")))
