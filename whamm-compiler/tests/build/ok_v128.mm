// v128 on the engine target: `:after` results, and type guards (`argty0`
// = 0x7B) on call operands and results.
var m: map<v128, (v128, u32)>;
wasm:opcode:f32x4.mul:after { m[res0] = (res0, pc); }
wasm:opcode:call(arg0: v128):before { println("{}", arg0); }
wasm:opcode:call(res0: v128):after { println("{}", res0); }
