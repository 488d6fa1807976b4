;; Active data segments at a constant and at a global's offset (their union
;; is [100, 203)), one passive segment, and code that changes the first
;; data byte before its `memory.init`.
(module
  (global $at i32 (i32.const 200))
  (memory 1)
  (data (i32.const 100) "abc")
  (data (global.get $at) "xyz")
  (data $later "pass")
  (func (export "_start")
    (i32.store8 (i32.const 100) (i32.const 65))
    (memory.init $later (i32.const 300) (i32.const 0) (i32.const 4))))
