// v128: SIMD operands, `:after` results, call arguments/results and locals
// bound as v128 (fixed by the instruction, or by a type bound); v128
// variables, parameters, results, tuple fields, map keys and values;
// `==`/`!=`; lane casts both ways; printing and the report.
// app: simd.wat

report var last_sum: v128;
report var pair: (v128, u32);
report var seen: map<v128, u32>;
var by_pc: map<u32, v128>;
var lanes_total: i64;

// the lanes as a tuple, and back
fn swap(v: v128) -> v128 {
    var l: (i32, i32, i32, i32) = v as (i32, i32, i32, i32);
    return (l.3, l.2, l.1, l.0) as v128;
}
fn total(v: v128) -> i64 {
    var l: (i32, i32, i32, i32) = v as (i32, i32, i32, i32);
    return l.0 as i64 + l.1 + l.2 + l.3;
}

wasm:opcode:i32x4.add:before {
    report var first: v128;
    report var calls: u32;
    var step: v128 = arg0;
    if calls == 0 { first = arg1; }
    calls++;
    seen[arg1]++;
    println("add {} + {}", arg1, step);
    println("  lanes {} + {}", arg1 as (i32, i32, i32, i32), step as (u32, u32, u32, u32));
    println("  swapped {}", swap(arg1));
    println("  step is (10, 20, 30, 40): {}", step == (10, 20, 30, 40) as v128);
    println("  arg1 != step: {}", arg1 != step);
}
wasm:opcode:i32x4.add:after / (res0 as (i32, i32, i32, i32)).3 > 100 / {
    last_sum = res0;
    pair = (res0, pc);
    lanes_total = lanes_total + total(res0);
    println("sum {} (lane 3 > 100)", res0);
}
// the stored value (a v128 operand) next to the address operand
wasm:opcode:v128.store:before {
    by_pc[pc] = arg0;
    println("store {} at {}", (arg0 as (u64, u64)).1, effective_addr);
}
// call operands and results whose type depends on the callee
wasm:opcode:call(arg0: v128):before {
    println("call {} with v128 {}", target_fn_name, arg0);
}
wasm:opcode:call(arg1: v128, arg0: f32):before {
    println("call {} with {} and {}", target_fn_name, arg1 as (f32, f32, f32, f32), arg0);
}
wasm:opcode:call(res0: v128):after {
    println("{} returned {}", target_fn_name, res0 as (f32, f32, f32, f32));
}
// a v128 local, read before an instruction that does not use it
wasm:opcode:i32x4.extract_lane(local0: v128):before / imm0 == 3 / {
    var v: v128 = local0;
    println("extract lane {} of {}", imm0, v);
}
wasm:opcode:i8x16.eq:after {
    println("eq mask {}", res0 as (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8));
    println("eq mask {}", res0 as (u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8));
    println("as i16 lanes {}", res0 as (i16, i16, i16, i16, i16, i16, i16, i16));
}
wasm:opcode:i64x2.extract_lane:before {
    println("i64 lanes {} (hex {})", arg0 as (i64, i64), arg0);
}
wasm:opcode:i64x2.extract_lane:after {
    println("lane {} = {}", imm0, res0);
}
wasm:end {
    var zero: v128;
    var pick: v128 = lanes_total > 0 ? last_sum : zero;
    println("zero {}; pick {}", zero, pick);
    println("by pc {}", by_pc);
    // keys print and sort as unsigned 128-bit numbers: high half first
    var order: map<v128, u32>;
    order[(9 as u64, 1 as u64) as v128] = 1;
    order[(1 as u64, 2 as u64) as v128] = 2;
    order[(0xffffffffffffffff as u64, 0 as u64) as v128] = 3;
    println("ordered {}", order);
    println("total {}", lanes_total);
    println("f64 lanes {}", (1.5, -2.0) as v128);
    println("u8 lanes {}", (1 as u8, 2 as u8, 3 as u8, 4 as u8, 5 as u8, 6 as u8, 7 as u8, 8 as u8,
        9 as u8, 10 as u8, 11 as u8, 12 as u8, 13 as u8, 14 as u8, 15 as u8, 255 as u8) as v128);
}
