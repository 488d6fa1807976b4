;; The profile and trace tests' frames that end without `func:exit`:
;; `count` loops by `return_call` (each call replaces the frame), `step`
;; tail-calls `leaf` through a table (`return_call_indirect`), and `fail`
;; traps inside `deep` (the run ends with frames open).
(module
  (type $t (func (param i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $leaf)
  (func $leaf (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func $step (param i32) (result i32)
    (return_call_indirect (type $t) (local.get 0) (i32.const 0)))
  (func $count (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (call $step (i32.const 0)))
      (else (return_call $count (i32.sub (local.get $n) (i32.const 1))))))
  (func $fail (unreachable))
  (func $deep (param i32) (if (local.get 0) (then (call $fail))))
  (func $main (export "_start")
    (drop (call $count (i32.const 3)))
    (drop (call $count (i32.const 1)))
    (call $deep (i32.const 0))
    (call $deep (i32.const 1)))
)
