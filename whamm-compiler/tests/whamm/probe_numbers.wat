;; An app for probe_numbers.mm: a call, locals, an `if`, a `br_if`, a
;; block, a loop and a `select`, from `_start`.
(module
  (func $pick (param i32) (result i32)
    (select (i32.const 10) (i32.const 20) (local.get 0)))
  (func $_start (export "_start")
    (local i32)
    (block $out
      (loop $l
        (drop (call $pick (local.get 0)))
        (local.set 0 (i32.add (local.get 0) (i32.const 1)))
        (br_if $out (i32.ge_u (local.get 0) (i32.const 3)))
        (br $l)))
    (if (i32.eqz (local.get 0))
      (then (drop (call $pick (i32.const 1)))))))
