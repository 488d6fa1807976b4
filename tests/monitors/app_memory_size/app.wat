;; Two memories: 2 pages of 64 KiB, and 3 one-byte pages (custom-page-sizes)
;; that grow by 5 before the second `memory.size`.
(module
  (memory $a 2)
  (memory $b 3 (pagesize 1))
  (func (export "_start")
    (drop (memory.size $b))
    (drop (memory.grow $b (i32.const 5)))
    (drop (memory.size $b))))
