;; args: --invoke=main
;; Exceptions across interpreted and compiled frames: under --mode=jit, lazy
;; and dyn, functions with exception handling run interpreted and the others
;; compiled, so each throw here crosses compiled frames to its handler.
(module
  (tag $e (param i32))
  (tag $other)
  ;; interpreted (throws)
  (func $thrower (param i32) (throw $e (local.get 0)))
  ;; compiled: no exception handling, a loop (dyn enters it by OSR)
  (func $mid (param i32) (result i32) (local $k i32)
    (loop $l
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $k) (i32.const 5))))
    (if (i32.eqz (local.get 0)) (then (call $thrower (local.get $k))))
    (i32.add (call $mid2 (i32.sub (local.get 0) (i32.const 1))) (i32.const 1)))
  (func $mid2 (param i32) (result i32) (call $mid (local.get 0)))
  ;; interpreted (catches) around compiled frames
  (func $catch_deep (param i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (call $mid (local.get 0))))
    (i32.const 1000)
    (i32.add))
  ;; caught, thrown again with throw_ref through more compiled frames
  (func $relay (result exnref)
    (block $h (result exnref)
      (try_table (catch_all_ref $h) (drop (call $mid (i32.const 2))))
      (unreachable)))
  (func $rethrow_relay (param exnref) (throw_ref (local.get 0)))
  (func $via (param exnref) (result i32) (call $rethrow_relay (local.get 0)) (i32.const 0))
  (func $catch_relayed (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (call $via (call $relay))))
    (i32.const 2000)
    (i32.add))
  ;; a tag nobody catches passes through catch clauses for other tags
  (func $pass_other (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (throw $other)))
    (drop)
    (i32.const -1))
  (func $catch_other (result i32)
    (block $h
      (try_table (catch $other $h) (drop (call $pass_other))))
    (i32.const 3))
  (func (export "main") (result i32 i32 i32 i32)
    (call $catch_deep (i32.const 0))
    (call $catch_deep (i32.const 3))
    (call $catch_relayed)
    (call $catch_other))
)
