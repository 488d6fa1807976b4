;; A memory of one-byte pages (custom-page-sizes) that grows between
;; `memory.size` sites.
(module
  (memory 3 (pagesize 1))
  (func (export "_start")
    (drop (memory.size))
    (drop (memory.grow (i32.const 5)))
    (drop (memory.size))))
