;; Wasm GC beyond structs: packed arrays from data, copy and fill, i31
;; references, a heterogeneous array of anyref sorted out by casts
;; (ref.test, ref.cast, br_on_cast, br_on_cast_fail), struct subtyping and
;; round trips through externref.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (type $bytes (array (mut i8)))
  (type $ints (array (mut i32)))
  (type $anys (array (mut anyref)))
  (rec
    (type $shape (sub (struct (field $id i32))))
    (type $circle (sub final $shape (struct (field $id i32) (field $r i32))))
    (type $rect (sub final $shape (struct (field $id i32) (field $w i32) (field $h i32)))))
  (data $text "Hello, GC world!")

  (func $print (param $label i32) (param $len i32) (param $v i32)
    (local $p i32) (local $digits i32)
    (memory.copy (i32.const 200) (local.get $label) (local.get $len))
    (local.set $p (i32.add (i32.const 200) (local.get $len)))
    (i32.store8 (local.get $p) (i32.const 32))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (if (i32.lt_s (local.get $v) (i32.const 0))
      (then
        (i32.store8 (local.get $p) (i32.const 45))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $v (i32.sub (i32.const 0) (local.get $v)))))
    (loop $d
      (i32.store8 (i32.sub (i32.const 340) (local.get $digits))
        (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $d (i32.ne (local.get $v) (i32.const 0))))
    (memory.copy (local.get $p)
      (i32.sub (i32.const 341) (local.get $digits)) (local.get $digits))
    (local.set $p (i32.add (local.get $p) (local.get $digits)))
    (i32.store8 (local.get $p) (i32.const 10))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (i32.store (i32.const 0) (i32.const 200))
    (i32.store (i32.const 4) (i32.sub (local.get $p) (i32.const 200)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  (data (i32.const 100) "byteshashfilledi31circlesrectsotherareaextern")

  ;; FNV-style hash of a byte array.
  (func $hash (param $a (ref $bytes)) (result i32)
    (local $h i32) (local $i i32)
    (local.set $h (i32.const 2166136261))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
        (local.set $h (i32.mul
          (i32.xor (local.get $h) (array.get_u $bytes (local.get $a) (local.get $i)))
          (i32.const 16777619)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $h))

  ;; Area of a shape, by cast.
  (func $area (param $s (ref $shape)) (result i32)
    (local $c (ref null $circle))
    (block $not_circle (result (ref $shape))
      (br_on_cast_fail $not_circle (ref $shape) (ref $circle) (local.get $s))
      (local.set $c)
      (return (i32.mul (i32.const 3)
        (i32.mul (struct.get $circle $r (local.get $c)) (struct.get $circle $r (local.get $c))))))
    (drop)
    (i32.mul (struct.get $rect $w (ref.cast (ref $rect) (local.get $s)))
             (struct.get $rect $h (ref.cast (ref $rect) (local.get $s)))))

  (func (export "_start")
    (local $b (ref $bytes)) (local $big (ref $bytes)) (local $xs (ref $anys))
    (local $i i32) (local $n i32) (local $circles i32) (local $rects i32)
    (local $other i32) (local $area i32) (local $x anyref)
    ;; Packed array from a data segment; copy it twice into a larger one.
    (local.set $b (array.new_data $bytes $text (i32.const 0) (i32.const 16)))
    (call $print (i32.const 100) (i32.const 5) (array.len (local.get $b)))
    (call $print (i32.const 105) (i32.const 4) (call $hash (local.get $b)))
    (local.set $big (array.new $bytes (i32.const 0) (i32.const 40)))
    (array.copy $bytes $bytes (local.get $big) (i32.const 0) (local.get $b) (i32.const 0) (i32.const 16))
    (array.copy $bytes $bytes (local.get $big) (i32.const 20) (local.get $b) (i32.const 0) (i32.const 16))
    (array.fill $bytes (local.get $big) (i32.const 16) (i32.const 200) (i32.const 4))
    (call $print (i32.const 109) (i32.const 6) (call $hash (local.get $big)))
    (call $print (i32.const 109) (i32.const 6) (array.get_s $bytes (local.get $big) (i32.const 17)))
    ;; A mixed array: circles, rects, i31s, nulls and byte arrays.
    (local.set $n (i32.const 60))
    (local.set $xs (array.new_default $anys (local.get $n)))
    (loop $fill
      (block $next
        (block $c4
          (block $c3
            (block $c2
              (block $c1
                (block $c0
                  (br_table $c0 $c1 $c2 $c3 $c4 (i32.rem_u (local.get $i) (i32.const 5))))
                (array.set $anys (local.get $xs) (local.get $i)
                  (struct.new $circle (local.get $i) (i32.rem_u (local.get $i) (i32.const 7))))
                (br $next))
              (array.set $anys (local.get $xs) (local.get $i)
                (struct.new $rect (local.get $i) (local.get $i) (i32.const 3)))
              (br $next))
            (array.set $anys (local.get $xs) (local.get $i)
              (ref.i31 (i32.sub (i32.const 0) (local.get $i))))
            (br $next))
          (br $next))
        (array.set $anys (local.get $xs) (local.get $i) (local.get $b)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (local.get $n))))
    (local.set $i (i32.const 0))
    (loop $scan
      (local.set $x (array.get $anys (local.get $xs) (local.get $i)))
      (block $done
        (block $not_i31 (result anyref)
          (br_on_cast_fail $not_i31 anyref (ref i31) (local.get $x))
          (local.set $other (i32.add (i31.get_s) (local.get $other)))
          (br $done))
        (drop)
        (if (ref.test (ref $circle) (local.get $x))
          (then (local.set $circles (i32.add (local.get $circles) (i32.const 1)))))
        (if (ref.test (ref $rect) (local.get $x))
          (then (local.set $rects (i32.add (local.get $rects) (i32.const 1)))))
        (block $not_shape (result anyref)
          (br_on_cast_fail $not_shape anyref (ref $shape) (local.get $x))
          (local.set $area (i32.add (call $area) (local.get $area)))
          (br $done))
        (drop))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $scan (i32.lt_u (local.get $i) (local.get $n))))
    (call $print (i32.const 115) (i32.const 3) (local.get $other))
    (call $print (i32.const 118) (i32.const 7) (local.get $circles))
    (call $print (i32.const 125) (i32.const 5) (local.get $rects))
    (call $print (i32.const 135) (i32.const 4) (local.get $area))
    ;; extern round trip keeps identity.
    (call $print (i32.const 139) (i32.const 6)
      (ref.eq
        (ref.cast eqref (any.convert_extern (extern.convert_any (local.get $b))))
        (local.get $b)))))
