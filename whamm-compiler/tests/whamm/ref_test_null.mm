// app: ../../../tests/monitors/ref_test_null/app.wat
// The nullable ref.test and ref.cast are events of their own, whamm's
// `ref.test_null` and `ref.cast_null` (Wizard's `ref.test null` in the
// monitor's export names and in `opname`); `ref.test` and `ref.cast` are
// the non-null forms only, and a glob matches all four.
var all: u32;
wasm:opcode:ref.test:before { println("ref.test at {} ({})", pc, opname); }
wasm:opcode:ref.test_null:before { println("ref.test_null at {} ({})", pc, opname); }
wasm:opcode:ref.cast:before { println("ref.cast at {} ({})", pc, opname); }
wasm:opcode:ref.cast_null:before { println("ref.cast_null at {} ({})", pc, opname); }
wasm:opcode:ref.[tc]*:before { all++; }
wasm:end { println("{} casts and tests", all); }
