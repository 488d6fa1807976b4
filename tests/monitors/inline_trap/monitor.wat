;; A trap inside an inlined probe (out-of-bounds in the monitor's memory) is
;; reported as the monitor's, with the probe's site, in every tier.
(module
  (memory 1)
  (func $peek (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "wasm:opcode:br_if(arg0)") (param i32) (drop (call $peek (i32.add (i32.const 65534) (local.get 0)))))
)
