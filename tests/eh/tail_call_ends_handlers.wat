;; args: --invoke=main
;; A tail call ends the calling activation, its handlers included: an
;; exception out of the callee is for the caller's caller, never for a
;; try_table around the return_call. In the JIT tiers `$mid` is compiled and
;; the others interpreted, so the tail call leaves the interpreter: once from
;; a frame with a caller in the same interpreter (`$tailer` under `main`),
;; once from an interpreter's bottom frame (`$tailer` under compiled `$via`).
(module
  (tag $e (param i32))
  (func $throw (param i32) (throw $e (local.get 0)))
  (func $mid (param i32) (result i32) (call $throw (local.get 0)) (i32.const 0))
  ;; Its catch_all must not see the exception: 1 would say it did.
  (func $tailer (param i32) (result i32)
    (block $h
      (try_table (catch_all $h) (return_call $mid (local.get 0))))
    (i32.const 1))
  (func $via (param i32) (result i32) (call $tailer (local.get 0)))
  (func $catching (param $f i32) (param $v i32) (result i32)
    (block $h (result i32)
      (try_table (catch $e $h)
        (if (local.get $f)
          (then (drop (call $via (local.get $v))))
          (else (drop (call $tailer (local.get $v))))))
      (i32.const 2)
      (return))
    (i32.const 100)
    (i32.add))
  (func (export "main") (result i32 i32)
    (call $catching (i32.const 0) (i32.const 7))
    (call $catching (i32.const 1) (i32.const 9)))
)
