;; args: --invoke=main
;; Recursion that alternates between a function with exception handling
;; (interpreted in every tier) and a plain one (compiled in jit, lazy and
;; dyn): each call from compiled code into interpreted code is a nested run
;; on the host stack (about 3.5 KiB each). 1,000 crossings fit in every
;; tier: the limit is the host stack left, not a count of nested runs (a
;; count of 256 used to exhaust here in the JIT tiers only). An exception
;; thrown at the bottom unwinds through all of them to `main`'s handler.
(module
  (tag $done (param i32))
  ;; Interpreted: has a handler (that never catches: another tag).
  (tag $other)
  (func $interp (param $n i32) (result i32)
    (block $h
      (try_table (catch $other $h)
        (if (i32.eqz (local.get $n)) (then (throw $done (i32.const 7))))
        (return (i32.add (call $compiled (i32.sub (local.get $n) (i32.const 1))) (i32.const 1)))))
    (i32.const -1))
  ;; Compiled in the JIT tiers.
  (func $compiled (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (i32.add (call $interp (i32.sub (local.get $n) (i32.const 1))) (i32.const 1)))
  (func $depth (param $n i32) (result i32)
    (call $interp (local.get $n)))
  (func (export "main") (result i32)
    (local $sum i32)
    ;; 2,001 Wasm frames, 1,000 crossings each way: returns 40,001.
    (local.set $sum (call $depth (i32.const 2001)))
    ;; The same depth, then a throw at the bottom caught here: 7.
    (block $c (result i32)
      (try_table (catch $done $c)
        (drop (call $depth (i32.const 2000))))
      (i32.const -2))
    (i32.add (local.get $sum)))
)
