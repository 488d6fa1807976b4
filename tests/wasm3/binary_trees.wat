;; Binary trees (the allocation benchmark): many short-lived trees of
;; depths 4..MAX beside one long-lived tree; every node is a GC struct. The
;; total allocated is far more than what is live at any time, so it only runs
;; in bounded memory if unreachable trees are reclaimed. `_start` uses
;; MAX = 14; `run(MAX)` is exported for larger runs (benchmarks, memory test).
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (type $node (struct (field $left (ref null $node)) (field $right (ref null $node))))

  (func $make (param $depth i32) (result (ref $node))
    (if (result (ref $node)) (i32.eqz (local.get $depth))
      (then (struct.new $node (ref.null $node) (ref.null $node)))
      (else
        (struct.new $node
          (call $make (i32.sub (local.get $depth) (i32.const 1)))
          (call $make (i32.sub (local.get $depth) (i32.const 1)))))))

  (func $check (param $n (ref $node)) (result i32)
    (local $l (ref null $node))
    (local.set $l (struct.get $node $left (local.get $n)))
    (if (result i32) (ref.is_null (local.get $l))
      (then (i32.const 1))
      (else
        (i32.add (i32.const 1)
          (i32.add
            (call $check (ref.as_non_null (local.get $l)))
            (call $check (ref.as_non_null (struct.get $node $right (local.get $n)))))))))

  ;; Writes "label value\n" (label: bytes at 100..100+len).
  (func $print (param $label i32) (param $len i32) (param $v i32)
    (local $p i32) (local $digits i32)
    (memory.copy (i32.const 200) (local.get $label) (local.get $len))
    (local.set $p (i32.add (i32.const 200) (local.get $len)))
    (i32.store8 (local.get $p) (i32.const 32))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    ;; digits backwards at 300.., then copied forwards
    (local.set $digits (i32.const 0))
    (loop $d
      (i32.store8 (i32.sub (i32.const 320) (local.get $digits))
        (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $d (i32.ne (local.get $v) (i32.const 0))))
    (memory.copy (local.get $p)
      (i32.sub (i32.const 321) (local.get $digits)) (local.get $digits))
    (local.set $p (i32.add (local.get $p) (local.get $digits)))
    (i32.store8 (local.get $p) (i32.const 10))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (i32.store (i32.const 0) (i32.const 200))
    (i32.store (i32.const 4) (i32.sub (local.get $p) (i32.const 200)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  (data (i32.const 100) "stretchlong-liveddepthchecks")

  (func $run (export "run") (param $max i32)
    (local $long (ref null $node)) (local $depth i32) (local $iters i32)
    (local $i i32) (local $sum i32)
    (call $print (i32.const 100) (i32.const 7)
      (call $check (call $make (i32.add (local.get $max) (i32.const 1)))))
    (local.set $long (call $make (local.get $max)))
    (local.set $depth (i32.const 4))
    (block $done
      (loop $depths
        (br_if $done (i32.gt_s (local.get $depth) (local.get $max)))
        (local.set $iters
          (i32.shl (i32.const 1)
            (i32.add (i32.sub (local.get $max) (local.get $depth)) (i32.const 4))))
        (local.set $sum (i32.const 0))
        (local.set $i (i32.const 0))
        (loop $trees
          (local.set $sum
            (i32.add (local.get $sum) (call $check (call $make (local.get $depth)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $trees (i32.lt_s (local.get $i) (local.get $iters))))
        (call $print (i32.const 117) (i32.const 5) (local.get $depth))
        (call $print (i32.const 122) (i32.const 6) (local.get $sum))
        (local.set $depth (i32.add (local.get $depth) (i32.const 2)))
        (br $depths)))
    (call $print (i32.const 107) (i32.const 10)
      (call $check (ref.as_non_null (local.get $long)))))

  (func (export "_start") (call $run (i32.const 14))))
