;; args: --invoke=main
;; The legacy exception-handling form (try/catch/catch_all/rethrow/delegate),
;; one result per case.
(module
  (tag $e (param i32))
  (tag $f)
  (tag $pair (param i32 i64))
  (func $throw (param i32) (throw $e (local.get 0)))
  (func $throw_f (throw $f))

  ;; catch receives the payload
  (func $catch_payload (result i32)
    try (result i32)
      (call $throw (i32.const 7))
      (i32.const 0)
    catch $e
      (i32.add (i32.const 100))
    end)

  ;; a clause for another tag is skipped, catch_all takes it
  (func $catch_all (result i32)
    try (result i32)
      (call $throw_f)
      (i32.const 0)
    catch $e
    catch_all
      (i32.const 2)
    end)

  ;; rethrow from a catch reaches the enclosing try
  (func $rethrow (result i32)
    try (result i32)
      try (result i32)
        (call $throw (i32.const 3))
        (i32.const 0)
      catch $e
        drop
        rethrow 0
      end
    catch $e
      (i32.add (i32.const 30))
    end)

  ;; delegate hands the exception to the try it names
  (func $delegate (result i32)
    try $outer (result i32)
      try (result i32)
        (call $throw (i32.const 4))
        (i32.const 0)
      delegate $outer
    catch $e
      (i32.add (i32.const 40))
    end)

  ;; delegate past a try whose catch would take it
  (func $delegate_skips (result i32)
    try $outer (result i32)
      try (result i32)
        try (result i32)
          (call $throw (i32.const 5))
          (i32.const 0)
        delegate $outer
      catch $e
        drop
        (i32.const -1)
      end
    catch $e
      (i32.add (i32.const 50))
    end)

  ;; delegate to the function's label: the caller handles it
  (func $delegate_out (result i32)
    try (result i32)
      (call $throw (i32.const 6))
      (i32.const 0)
    delegate 0)
  (func $delegate_caller (result i32)
    try (result i32)
      (call $delegate_out)
    catch $e
    end)

  ;; rethrow from inside a block in catch_all
  (func $rethrow_nested (result i32)
    try (result i32)
      try
        (call $throw_f)
      catch_all
        (block (rethrow 1))
      end
      (i32.const 0)
    catch $f
      (i32.const 7)
    end)

  ;; a two-value payload; the catch clause's own code throws again
  (func $pair (result i32)
    try (result i32)
      try (result i32)
        (throw $pair (i32.const 8) (i64.const 80))
      catch $pair
        i32.wrap_i64
        i32.add
        call $throw
        (i32.const 0)
      end
    catch $e
    end)

  ;; catching in a loop: four throws, four catches
  (func $loop (result i32) (local $i i32) (local $sum i32)
    (loop $again
      try
        (call $throw (local.get $i))
      catch $e
        (local.get $sum)
        i32.add
        (local.set $sum)
      end
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $again (i32.lt_u (local.get $i) (i32.const 4))))
    (local.get $sum))

  ;; try_table's catch_all_ref inside a legacy try: throw_ref reaches the catch
  (func $mixed (result i32)
    try (result i32)
      (block $h (result exnref)
        (try_table (catch_all_ref $h) (call $throw (i32.const 11)))
        (unreachable))
      throw_ref
    catch $e
    end)

  (func (export "main") (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    (call $catch_payload)
    (call $catch_all)
    (call $rethrow)
    (call $delegate)
    (call $delegate_skips)
    (call $delegate_caller)
    (call $rethrow_nested)
    (call $pair)
    (call $loop)
    (call $mixed))
)
