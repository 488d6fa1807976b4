;; Atomics and typed function references under per-opcode monitors: every
;; new instruction is a site with its mnemonic, in every tier (the JIT runs
;; the woven module, so these instructions also go through re-encoding).
;; Exits with the final value of the shared counter (wasm:exit reports first).
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (type $bin (func (param i32 i32) (result i32)))
  (memory 1 1 shared)
  (elem declare func $add $sub)
  (func $add (type $bin) (i32.add (local.get 0) (local.get 1)))
  (func $sub (type $bin) (i32.sub (local.get 0) (local.get 1)))
  ;; $add, $sub or null, by i mod 3
  (func $pick (param $i i32) (result (ref null $bin))
    (if (result (ref null $bin)) (i32.eqz (local.get $i))
      (then (ref.func $add))
      (else
        (if (result (ref null $bin)) (i32.eq (local.get $i) (i32.const 1))
          (then (ref.func $sub))
          (else (ref.null $bin))))))
  ;; f(x, 1) for a non-null f, else -1
  (func $apply (param $i i32) (param $x i32) (result i32) (local $f (ref $bin))
    (block $null
      (local.set $f (br_on_null $null (call $pick (local.get $i))))
      (return (call_ref $bin (local.get $x) (i32.const 1) (local.get $f))))
    (i32.const -1))
  (func $tail (param $x i32) (result i32)
    (return_call_ref $bin (local.get $x) (i32.const 2) (ref.as_non_null (ref.func $add))))
  (func $nonnull (param $i i32) (result i32)
    (block $some (result (ref $bin))
      (br_on_non_null $some (call $pick (local.get $i)))
      (return (i32.const 0)))
    (drop)
    (i32.const 1))
  (func (export "_start") (local $i i32)
    (loop $l
      (drop (i32.atomic.rmw.add (i32.const 0)
        (call $apply (i32.rem_u (local.get $i) (i32.const 3)) (local.get $i))))
      (i32.atomic.store (i32.const 8) (i32.atomic.load (i32.const 0)))
      (drop (i32.atomic.rmw.cmpxchg (i32.const 4) (i32.const 0) (call $tail (local.get $i))))
      (drop (i64.atomic.rmw8.xor_u (i32.const 12)
        (i64.extend_i32_u (call $nonnull (i32.rem_u (local.get $i) (i32.const 3))))))
      (atomic.fence)
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 6))))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
    ;; the value differs: "not-equal" (1), added to the counter
    (drop (i32.atomic.rmw.add (i32.const 0)
      (memory.atomic.wait32 (i32.const 0) (i32.const -1) (i64.const 0))))
    (call $exit (i32.add (i32.atomic.load (i32.const 0))
      (i32.shl (i32.atomic.load8_u (i32.const 12)) (i32.const 8)))))
)
