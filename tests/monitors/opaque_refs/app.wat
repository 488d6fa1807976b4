;; GC objects reach the monitor as opaque references: three structs (one
;; read twice), an array, an i31 and a null; then enough garbage to collect
;; a few times while the monitor still holds a reference to a dead struct.
(module
  (type $s (struct (field (mut i32))))
  (type $a (array (mut i8)))
  (func $get (param $r (ref null $s)) (result i32)
    (struct.get $s 0 (local.get $r)))
  (func (export "_start")
    (local $x (ref null $s)) (local $i i32)
    (local.set $x (struct.new $s (i32.const 1)))
    (drop (call $get (local.get $x)))
    (drop (call $get (struct.new $s (i32.const 2))))
    (drop (call $get (local.get $x)))
    (drop (array.len (array.new_default $a (i32.const 5))))
    (drop (i31.get_u (ref.i31 (i32.const 9))))
    (drop (ref.is_null (ref.null $s)))
    ;; Garbage: 64 arrays of 256 KiB (the heap collects at 1 MiB).
    (loop $l
      (drop (array.new_default $a (i32.const 32768)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 64))))
    (drop (call $get (local.get $x))))
)
