;; An app on a 64-bit memory: i64 addresses, a memarg offset above 4 GiB
;; (the last load traps out of bounds, after its probe ran).
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory i64 1)
  (data (i64.const 16) "hello")
  (func $main (export "_start")
    (drop (i32.load8_u offset=17 (i64.const 0)))
    (i64.store offset=32 (i64.const 8) (i64.const 42))
    (drop (i64.load offset=32 (i64.const 16)))
    (drop (i64.load offset=0x100000000 (i64.const 0)))))
