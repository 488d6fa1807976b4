// Operand/result typing errors.
// different fixed types across the matched events
wasm:opcode:i32.add|i64.add:before { var x: i64 = arg0; }
// beyond the instruction's operands
wasm:opcode:i32.add:before { var y: i32 = arg2; }
// results exist only in mode `after`
wasm:opcode:i32.add:before { var z: i32 = res0; }
// a bound with another Wasm type excludes every event
wasm:opcode:i32.add(arg0: f32):before { }
// call operands depend on the callee: a type bound is needed
wasm:opcode:call:before { var w: i32 = arg0; }
// a bound that reinterprets with the same Wasm type is fine; its value is u64
wasm:opcode:i64.add(arg0: u64):before { var v: i32 = arg0; }
