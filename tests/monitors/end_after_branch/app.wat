;; `end`s reached only by branches: the code before each is unreachable, so
;; the `end` is reached only when a branch to its block arrives. `:after`
;; probes there fire once per arrival, as `before` probes do. An `end` no
;; path reaches is still a site (its static calls run) that never fires, and
;; the function's final `end` has no `:after` site.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (func $f (param i32) (result i32)
    (block                              ;; end at pc 8: only `br 0` reaches it
      (br 0)
      (drop (i32.const 7)))
    (block $out (result i32)            ;; end: only the br_if and the br reach it
      (br_if $out (i32.const 1) (local.get 0))
      (br $out (i32.const 2))
      (unreachable))
    (if (local.get 0)                   ;; no else: the false arm reaches the end
      (then (return (i32.const 3))))
    (loop $l
      (block $b
        (br_if $b (i32.eqz (local.get 0)))
        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
        (br $l)))                       ;; the inner end is reached by `br_if $b` only
    (drop)
    (if (local.get 0)
      (then (return (i32.const 5)))
      (else (return (i32.const 6))))   ;; this end: no path reaches it
    (i32.const 4))
  (func (export "_start")
    (drop (call $f (i32.const 0)))
    (drop (call $f (i32.const 2)))
    (call $exit (i32.const 0))))
