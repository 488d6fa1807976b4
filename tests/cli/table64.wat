;; args: --invoke=main
(module
  ;; A table with i64 indices (table64, part of memory64) and a 32-bit one.
  (type $t (func (result i64)))
  (table $T i64 4 0x1_0000_0000 funcref)
  (table $u 2 funcref)
  (func $one (type $t) (i64.const 1))
  (func $two (type $t) (i64.const 2))
  (func $three (type $t) (i64.const 3))
  (elem (table $T) (i64.const 1) func $one $two)
  (elem $e func $three $one)
  (func (export "main") (result i64 i64 i64 i64 i64 i32 i64 i64 i64 i32 i64)
    (local $i i64) (local $sum i64)
    ;; call_indirect with an i64 index
    (call_indirect $T (type $t) (i64.const 2))
    ;; table.size/grow take and return i64
    (table.grow $T (ref.null func) (i64.const 2))
    (table.size $T)
    ;; table.set/get with i64 indices
    (table.set $T (i64.const 5) (ref.func $three))
    (call_indirect $T (type $t) (i64.const 5))
    ;; table.init/fill/copy with i64 indices and lengths
    (table.init $T $e (i64.const 3) (i32.const 0) (i32.const 2))
    (table.fill $T (i64.const 0) (ref.func $two) (i64.const 1))
    ;; 64-bit source, 32-bit destination: the length is an i32
    (table.copy $u $T (i32.const 0) (i64.const 3) (i32.const 2))
    (i64.add
      (call_indirect $u (type $t) (i32.const 0))
      (i64.mul (i64.const 10) (call_indirect $u (type $t) (i32.const 1))))
    (ref.is_null (table.get $T (i64.const 4)))
    ;; a loop of indirect calls (the dyn tier compiles it on the fly)
    (loop $l
      (local.set $sum (i64.add (local.get $sum) (call_indirect $T (type $t) (local.get $i))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br_if $l (i64.lt_u (local.get $i) (i64.const 6))))
    (local.get $sum)
    ;; growing to 2^32 elements or more fails
    (table.grow $T (ref.null func) (i64.const 0xffff_fffa))
    (call_indirect $T (type $t) (i64.const 1))
    (ref.is_null (table.get $T (i64.const 0)))
    (call_indirect $T (type $t) (i64.const 4))))
