;; args: --invoke=main
(module
  ;; A 64-bit memory whose declared maximum (2^32 pages) is far beyond what
  ;; the engine allocates, and a 32-bit one.
  (memory $m i64 1 0x1_0000_0000)
  (memory $s 1)
  (data $d "hello")
  (func (export "main") (result i64 i64 i64 i32 i64 i64 i64 i64 i64 i64)
    (local $i i64) (local $sum i64)
    ;; i64 addresses
    (i64.store $m (i64.const 65528) (i64.const 0x1122334455667788))
    (i64.load $m (i64.const 65528))
    ;; memory.grow/size take and return i64
    (memory.grow $m (i64.const 2))
    (memory.size $m)
    ;; growing beyond 4 GiB fails
    (i64.eq (memory.grow $m (i64.const 0x10000)) (i64.const -1))
    ;; bulk memory with i64 addresses and lengths
    (memory.fill $m (i64.const 0x20000) (i32.const 0xab) (i64.const 16))
    (memory.init $m $d (i64.const 0x20010) (i32.const 0) (i32.const 5))
    ;; 64-bit source, 32-bit destination: the length is an i32
    (memory.copy $s $m (i32.const 100) (i64.const 0x2000c) (i32.const 8))
    (i64.load $s (i32.const 100))
    ;; SIMD
    (i64x2.extract_lane 1 (v128.load $m (i64.const 0x20008)))
    ;; atomics
    (drop (i64.atomic.rmw.add $m (i64.const 0x20020) (i64.const 5)))
    (i64.atomic.load $m (i64.const 0x20020))
    ;; memarg offset
    (i64.load $m offset=0x20008 (i64.const 8))
    ;; an access that ends exactly at the end of memory
    (i64.store8 $m (i64.const 0x2ffff) (i64.const 0x7f))
    (i64.load8_u $m (i64.const 0x2ffff))
    ;; a loop over i64 addresses (the dyn tier compiles it on the fly)
    (local.set $i (i64.const 0x20000))
    (loop $l
      (local.set $sum (i64.add (local.get $sum) (i64.load8_u $m (local.get $i))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br_if $l (i64.lt_u (local.get $i) (i64.const 0x20015))))
    (local.get $sum)))
