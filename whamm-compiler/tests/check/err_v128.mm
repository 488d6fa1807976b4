// v128 values: no arithmetic, no implicit conversions, casts only to and
// from lane tuples.
// the brief's example: a v128 operand stored in a u32
wasm:opcode:i32x4.add:before {
    report var seen: u32;
    var x: u32 = arg0;
    seen++;
}
wasm:opcode:i32x4.mul:before {
    var a: v128 = arg0;
    var b: v128 = a + arg1;
    var c: v128 = a + 1;
    var lt: bool = a < arg1;
    a++;
    var n: v128 = -a;
    var d: u64 = a as u64;
    var e: (i32, i32) = a as (i32, i32);
    var f: v128 = (1, 2) as v128;
    var g: v128 = 0;
    var h: bool = a == 0;
    var i: (u32, u32, u32, u32) = a;
}
// a bound with another Wasm type excludes every event
wasm:opcode:i32x4.add(arg0: u32):before { }
// fine: a bound naming the operand's own type
wasm:opcode:i32x4.add(arg0: v128):before { var ok: v128 = arg0; }
// the constant of `v128.const` is its result, not an immediate
wasm:opcode:v128.const:before { var k: u32 = imm0; }
wasm:opcode:v128.const:after { var k: v128 = res0; }
