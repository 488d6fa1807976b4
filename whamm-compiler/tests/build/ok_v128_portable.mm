// v128 operands and locals on the portable target (monitor ABI Part A binds
// them as v128 parameters); v128 site state and report.
report var last: v128;
wasm:opcode:i32x4.add:before / arg0 != arg1 / {
    report var first: v128;
    if first == (0, 0, 0, 0) as v128 { first = arg1; }
    last = arg0;
}
wasm:opcode:i32x4.extract_lane(local0: v128):before {
    println("{} {}", imm0, local0 as (i32, i32, i32, i32));
}
