;; Monitors on a 64-bit app memory (docs/monitor-abi.md): `argN` of an
;; address is an i64; the memarg offset `imm2` binds as the probe declares it
;; (i32 if it fits, i64 always); `offset` is the full i64; frame accessors
;; read and write the i64 address; `wizeng:app.memory_read` (i32 src) and
;; `memory_read64` (i64 src) both read the 64-bit memory.
(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (import "wizeng" "putc" (func $putc (param i32)))
  (import "wizeng:app" "memory_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wizeng:app" "memory_read64" (func $read64 (param i32 i64 i32 i32) (result i32)))
  (import "wizeng:frame_accessor" "get_operand_i64" (func $get (param externref i32) (result i64)))
  (import "wizeng:frame_accessor" "set_operand_i64" (func $set (param externref i32 i64)))
  (memory (export "memory") 1)
  (func $sp (call $putc (i32.const 32)))
  (func $nl (call $putc (i32.const 10)))
  (func $hi (param i64) (call $puti (i32.wrap_i64 (i64.shr_u (local.get 0) (i64.const 32)))))
  (func $lo (param i64) (call $puti (i32.wrap_i64 (local.get 0))))
  ;; address, offset as i32, copies: "hello" through both reads, then -1
  ;; for a source beyond the memory
  (func (export "wasm:opcode:i32.load8_u(arg0, imm2, offset)") (param i64 i32 i64)
    (call $lo (local.get 0)) (call $sp)
    (call $puti (local.get 1)) (call $sp)
    (call $lo (local.get 2)) (call $sp)
    (call $puti (call $read (i32.const 0) (i32.const 16) (i32.const 100) (i32.const 5)))
    (call $putc (i32.load8_u (i32.const 101))) (call $sp)
    (call $puti (call $read64 (i32.const 0) (i64.const 17) (i32.const 200) (i32.const 4)))
    (call $putc (i32.load8_u (i32.const 200))) (call $sp)
    (call $puti (call $read64 (i32.const 0) (i64.const 0x100000010) (i32.const 0) (i32.const 1))) (call $sp)
    (call $puti (call $read64 (i32.const 0) (i64.const 65535) (i32.const 0) (i32.const 2)))
    (call $nl))
  ;; value, address; the frame accessor doubles the address operand (8 -> 16)
  (func (export "wasm:opcode:i64.store(arg0, arg1, frame)") (param i64 i64 externref)
    (call $lo (local.get 0)) (call $sp) (call $lo (local.get 1)) (call $sp)
    (call $lo (call $get (local.get 2) (i32.const 1))) (call $nl)
    (call $set (local.get 2) (i32.const 1) (i64.mul (local.get 1) (i64.const 2))))
  ;; the offset as i64 (high and low halves), and the address
  (func (export "wasm:opcode:i64.load(imm2, arg0)") (param i64 i64)
    (call $hi (local.get 0)) (call $sp) (call $lo (local.get 0)) (call $sp)
    (call $lo (local.get 1)) (call $nl))
  ;; the stored value moved to address 16+32 by the frame write above
  (func (export "wasm:opcode:i64.load:after(arg0)") (param i64)
    (call $lo (local.get 0)) (call $nl)))
