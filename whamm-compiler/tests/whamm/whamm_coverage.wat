;; Control shapes for instruction coverage: `end`s reached only by a branch,
;; an `end` no path reaches, code after `return`.
(module
  (func $shapes (param i32) (result i32)
    (block
      (br 0)
      (drop (i32.const 7)))
    (block $out (result i32)
      (br_if $out (i32.const 1) (local.get 0))
      (br $out (i32.const 2)))
    (drop)
    (if (local.get 0)
      (then (return (i32.const 5)))
      (else (return (i32.const 6))))
    (i32.const 4))
  (func (export "_start")
    (drop (call $shapes (i32.const 0)))))
