;; Unreachable instructions: an `end`/`else` after `unreachable`, code after
;; `br` and `return`. Each is a site (static calls run there), none fires.
(module
  (func $f (param i32) (result i32)
    (if (result i32) (local.get 0)
      (then (i32.const 1))
      (else unreachable))          ;; the if's `end` is reached from the then-arm
    (block
      (br 0)
      (drop (i32.const 7)))        ;; i32.const, drop: dead; the block's `end` is reached by the br
    (if (i32.eqz (local.get 0))
      (then unreachable)           ;; `else` is dead (the then-arm ends in unreachable)
      (else nop))
    return
    (i32.const 9)                  ;; dead
    drop)                          ;; dead, then the dead final `end`
  (func (export "_start") (drop (call $f (i32.const 1)))))
