;; args: --mode=int
;; Wasm GC: allocation-heavy binary trees, numeric and packed arrays,
;; subtyping and casts, i31 references. Prints one result per line (WASI).
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data $digits "0123456789")
  (data $shorts "\01\00\ff\ff\00\80\34\12")

  (type $node (struct (field $l (ref null $node)) (field $r (ref null $node)) (field $v (mut i32))))
  (type $f64s (array (mut f64)))
  (type $bytes (array (mut i8)))
  (type $shorts (array (mut i16)))
  (type $anys (array (mut anyref)))
  (type $shape (sub (struct (field $id i32))))
  (type $circle (sub final $shape (struct (field $id i32) (field $r f64))))
  (type $rect (sub final $shape (struct (field $id i32) (field $w i32) (field $h i32))))

  ;; --- output: "label value\n" ------------------------------------------
  ;; Writes `label` (bytes at 64.., length n) then the decimal of v.
  (func $print (param $at i32) (param $n i32) (param $v i64)
    (local $p i32) (local $neg i32) (local $buf i32)
    (memory.copy (i32.const 256) (local.get $at) (local.get $n))
    (i32.store8 (i32.add (i32.const 256) (local.get $n)) (i32.const 32))
    (local.set $neg (i64.lt_s (local.get $v) (i64.const 0)))
    (if (local.get $neg) (then (local.set $v (i64.sub (i64.const 0) (local.get $v)))))
    ;; digits backwards from 400
    (local.set $p (i32.const 400))
    (loop $d
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p)
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $d (i64.ne (local.get $v) (i64.const 0))))
    (if (local.get $neg)
      (then
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (i32.store8 (local.get $p) (i32.const 45))))
    (local.set $buf (i32.add (i32.const 257) (local.get $n)))
    (memory.copy (local.get $buf) (local.get $p) (i32.sub (i32.const 400) (local.get $p)))
    (local.set $buf (i32.add (local.get $buf) (i32.sub (i32.const 400) (local.get $p))))
    (i32.store8 (local.get $buf) (i32.const 10))
    ;; iovec at 16: (256, len)
    (i32.store (i32.const 16) (i32.const 256))
    (i32.store (i32.const 20) (i32.sub (i32.add (local.get $buf) (i32.const 1)) (i32.const 256)))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))

  (data (i32.const 64) "trees")          ;; 64, 5
  (data (i32.const 72) "check")          ;; 72, 5
  (data (i32.const 80) "f64sum")         ;; 80, 6
  (data (i32.const 88) "i8_s")           ;; 88, 4
  (data (i32.const 96) "i8_u")           ;; 96, 4
  (data (i32.const 104) "i16sum")        ;; 104, 6
  (data (i32.const 112) "shapes")        ;; 112, 6
  (data (i32.const 120) "area")          ;; 120, 4
  (data (i32.const 128) "i31")           ;; 128, 3
  (data (i32.const 136) "copy")          ;; 136, 4
  (data (i32.const 144) "eq")            ;; 144, 2

  ;; --- binary trees --------------------------------------------------------
  (func $make (param $d i32) (result (ref $node))
    (if (result (ref $node)) (i32.eqz (local.get $d))
      (then (struct.new $node (ref.null $node) (ref.null $node) (i32.const 1)))
      (else
        (struct.new $node
          (call $make (i32.sub (local.get $d) (i32.const 1)))
          (call $make (i32.sub (local.get $d) (i32.const 1)))
          (local.get $d)))))

  ;; Number of nodes, and the sum of the values (as count * 1000 + sum mod 1000).
  (func $count (param $t (ref null $node)) (result i32)
    (if (result i32) (ref.is_null (local.get $t))
      (then (i32.const 0))
      (else
        (i32.add (i32.const 1)
          (i32.add
            (call $count (struct.get $node $l (local.get $t)))
            (call $count (struct.get $node $r (local.get $t))))))))

  (func $sum (param $t (ref null $node)) (result i64)
    (if (result i64) (ref.is_null (local.get $t))
      (then (i64.const 0))
      (else
        (i64.add (i64.extend_i32_u (struct.get $node $v (local.get $t)))
          (i64.add
            (call $sum (struct.get $node $l (local.get $t)))
            (call $sum (struct.get $node $r (local.get $t))))))))

  (func $trees
    (local $i i32) (local $total i64) (local $long (ref null $node))
    (local.set $long (call $make (i32.const 12)))
    ;; Many short-lived trees.
    (loop $l
      (local.set $total (i64.add (local.get $total)
        (i64.extend_i32_u (call $count (call $make (i32.const 8))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 200))))
    (call $print (i32.const 64) (i32.const 5) (local.get $total))
    ;; The long-lived tree survived all of that.
    (struct.set $node $v (local.get $long) (i32.const 100))
    (call $print (i32.const 72) (i32.const 5) (call $sum (local.get $long))))

  ;; --- numeric and packed arrays --------------------------------------------
  (func $arrays
    (local $a (ref $f64s)) (local $b (ref $bytes)) (local $s (ref $shorts))
    (local $i i32) (local $f f64) (local $acc i64)
    (local.set $a (array.new $f64s (f64.const 0.5) (i32.const 1000)))
    (loop $l
      (array.set $f64s (local.get $a) (local.get $i)
        (f64.add (array.get $f64s (local.get $a) (local.get $i))
                 (f64.convert_i32_u (i32.mul (local.get $i) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (array.len (local.get $a)))))
    (local.set $i (i32.const 0))
    (loop $l
      (local.set $f (f64.add (local.get $f) (array.get $f64s (local.get $a) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))
    (call $print (i32.const 80) (i32.const 6) (i64.trunc_f64_s (local.get $f)))
    ;; i8 elements keep 8 bits: 200 reads back as -56 signed, 200 unsigned.
    (local.set $b (array.new_fixed $bytes 4 (i32.const 1) (i32.const 200) (i32.const 300) (i32.const -1)))
    (call $print (i32.const 88) (i32.const 4)
      (i64.extend_i32_s (i32.add (array.get_s $bytes (local.get $b) (i32.const 1))
                                 (array.get_s $bytes (local.get $b) (i32.const 3)))))
    (call $print (i32.const 96) (i32.const 4)
      (i64.extend_i32_u (i32.add (array.get_u $bytes (local.get $b) (i32.const 2))
                                 (array.get_u $bytes (local.get $b) (i32.const 3)))))
    ;; i16 from a data segment: 1, -1, -32768, 0x1234 (signed sum).
    (local.set $s (array.new_data $shorts $shorts (i32.const 0) (i32.const 4)))
    (local.set $i (i32.const 0))
    (loop $l
      (local.set $acc (i64.add (local.get $acc)
        (i64.extend_i32_s (array.get_s $shorts (local.get $s) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 4))))
    (call $print (i32.const 104) (i32.const 6) (local.get $acc))
    ;; Overlapping copy within one array: [1 200 44 255] -> [1 1 200 44].
    (array.copy $bytes $bytes (local.get $b) (i32.const 1) (local.get $b) (i32.const 0) (i32.const 3))
    (call $print (i32.const 136) (i32.const 4)
      (i64.extend_i32_u
        (i32.add
          (i32.add (array.get_u $bytes (local.get $b) (i32.const 0))
                   (i32.mul (array.get_u $bytes (local.get $b) (i32.const 1)) (i32.const 10)))
          (i32.add (i32.mul (array.get_u $bytes (local.get $b) (i32.const 2)) (i32.const 100))
                   (i32.mul (array.get_u $bytes (local.get $b) (i32.const 3)) (i32.const 100000)))))))

  ;; --- subtyping and casts ----------------------------------------------------
  ;; Area of a shape (circle: r*r*3, rect: w*h), dispatched by br_on_cast.
  (func $area (param $s (ref $shape)) (result f64)
    (local $c (ref null $circle))
    (block $notcircle (result (ref $shape))
      (br_on_cast_fail $notcircle (ref $shape) (ref $circle) (local.get $s))
      (local.set $c)
      (return (f64.mul (f64.const 3)
        (f64.mul (struct.get $circle $r (local.get $c)) (struct.get $circle $r (local.get $c))))))
    (block $rect (param (ref $shape)) (result (ref $rect))
      (br_on_cast $rect (ref $shape) (ref $rect))
      (drop)
      (return (f64.const -1)))
    (drop)
    (f64.convert_i32_s
      (i32.mul (struct.get $rect $w (ref.cast (ref $rect) (local.get $s)))
               (struct.get $rect $h (ref.cast (ref $rect) (local.get $s))))))

  (func $shapes
    (local $xs (ref $anys)) (local $i i32) (local $n i64) (local $x anyref) (local $a f64)
    (local.set $xs (array.new_default $anys (i32.const 8)))
    (array.set $anys (local.get $xs) (i32.const 0) (struct.new $circle (i32.const 1) (f64.const 2)))
    (array.set $anys (local.get $xs) (i32.const 1) (struct.new $rect (i32.const 2) (i32.const 3) (i32.const 4)))
    (array.set $anys (local.get $xs) (i32.const 2) (ref.i31 (i32.const 5)))
    (array.set $anys (local.get $xs) (i32.const 3) (struct.new $shape (i32.const 3)))
    (array.set $anys (local.get $xs) (i32.const 4) (array.new_fixed $bytes 1 (i32.const 9)))
    (array.set $anys (local.get $xs) (i32.const 5) (struct.new $rect (i32.const 4) (i32.const 5) (i32.const 6)))
    ;; 6 and 7 stay null.
    (loop $l
      (local.set $x (array.get $anys (local.get $xs) (local.get $i)))
      ;; shapes count 100 each, structs 10, i31 1, arrays 1000.
      (if (ref.test (ref $shape) (local.get $x))
        (then
          (local.set $n (i64.add (local.get $n) (i64.const 100)))
          (local.set $a (f64.add (local.get $a) (call $area (ref.cast (ref $shape) (local.get $x)))))))
      (if (ref.test (ref struct) (local.get $x))
        (then (local.set $n (i64.add (local.get $n) (i64.const 10)))))
      (if (ref.test (ref i31) (local.get $x))
        (then (local.set $n (i64.add (local.get $n) (i64.const 1)))))
      (if (ref.test (ref array) (local.get $x))
        (then (local.set $n (i64.add (local.get $n) (i64.const 1000)))))
      (if (ref.test (ref null none) (local.get $x))
        (then (local.set $n (i64.add (local.get $n) (i64.const 10000)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (array.len (local.get $xs)))))
    (call $print (i32.const 112) (i32.const 6) (local.get $n))
    (call $print (i32.const 120) (i32.const 4) (i64.trunc_f64_s (local.get $a))))

  ;; --- i31 and ref.eq ------------------------------------------------------------
  (func $i31
    (local $r (ref i31)) (local $s (ref $shape))
    ;; 0x7fffffff keeps 31 bits: get_s gives -1, get_u 0x7fffffff.
    (local.set $r (ref.i31 (i32.const -1)))
    (call $print (i32.const 128) (i32.const 3)
      (i64.add (i64.extend_i32_s (i31.get_s (local.get $r)))
               (i64.extend_i32_u (i31.get_u (local.get $r)))))
    (local.set $s (struct.new $shape (i32.const 7)))
    (call $print (i32.const 144) (i32.const 2)
      (i64.extend_i32_u
        (i32.add
          (i32.add (ref.eq (local.get $s) (local.get $s))
                   (i32.mul (ref.eq (local.get $s) (struct.new $shape (i32.const 7))) (i32.const 10)))
          (i32.mul (ref.eq (ref.i31 (i32.const 3)) (ref.i31 (i32.const 3))) (i32.const 100))))))

  (func (export "_start")
    (call $trees)
    (call $arrays)
    (call $shapes)
    (call $i31)))
