;; args: --mode=int --invoke=wait
;; A matching wait with an infinite timeout: nothing can notify a one-thread store.
(module (memory 1 1 shared)
  (func $wait (export "wait") (result i32)
    (memory.atomic.wait32 (i32.const 8) (i32.const 0) (i64.const -1))))
