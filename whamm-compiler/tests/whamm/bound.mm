// app: rich.wat
// Bound variables (L5) and modes: before/after on calls, loads, stores,
// arithmetic, memory.grow (`failed`), br_table (`num_targets`, `target`),
// call_indirect (`table_entry_idx`), consts (`imm0` typed), locals,
// func entry/exit, block start/end (`instr_count`), `at_func_end`,
// `category_name`/`category_id`, `data_size`, `is_write`, `offset`, `align`,
// `memory`, `addr`, `effective_addr`.
wasm:opcode:i32.store|i64.store|f64.store|i32.store8:before {
    println("{} addr {} offset {} eff {} align {} mem {} size {} write {} cat {}/{}", opname, addr, offset, effective_addr, align, memory, data_size, is_write, category_name, category_id);
}
wasm:opcode:i32.load16_u|f32.load:before { println("{} addr {} eff {} align {} size {} write {}", opname, addr, effective_addr, align, data_size, is_write); }
wasm:opcode:i32.load(res0: i32):after { println("i32.load -> {}", res0); }
wasm:opcode:f64.load(res0: f64):after { println("f64.load -> {}", res0); }
wasm:opcode:i32.load8_s(res0: i32):after { println("i32.load8_s -> {}", res0); }
wasm:opcode:i64.store(arg0: i64, arg1: i32):before { println("i64.store value {} at {}", arg0, arg1); }
wasm:opcode:memory.grow(arg0: i32):before { println("grow by {}", arg0); }
wasm:opcode:memory.grow:after { println("grow failed {}", failed); }
wasm:opcode:br_table(arg0: i32):before / arg0 < 2 / { println("br_table {} of {} -> target {}", arg0, num_targets, target); }
wasm:opcode:call_indirect:before { println("call_indirect entry {}", table_entry_idx); }
wasm:opcode:i64.const:before { println("i64.const {}", imm0); }
wasm:opcode:f32.const:before / imm0 > 3.0 / { println("f32.const {}", imm0); }
wasm:opcode:i64.mul(arg0: i64, arg1: i64):before { println("i64.mul {} * {}", arg1, arg0); }
wasm:opcode:i64.mul(res0: i64):after { println("  = {}", res0); }
wasm:opcode:f32.mul(res0: f32):after { println("f32.mul = {}", res0); }
wasm:opcode:i64.trunc_f64_s(arg0: f64):before { println("trunc {}", arg0); }
wasm:opcode:call(res0: i64):after / fname == "main" && pc == 58 / { println("wide returned {}", res0); }
wasm:opcode:local.set:before / fname == "main" && imm0 == 1 / { println("local.set $f at pc {}", pc); }
wasm:opcode:f64.div(local1: f32, local0: i32):before { println("locals {} {}", local0, local1); }
wasm:func:entry / fname == "wide" / { println("enter wide fid {} pc {}", fid, pc); }
wasm:func:exit / fname == "wide" / { println("exit wide at pc {}", pc); }
wasm:func:entry(local0: i32) / fname == "dbl" / { println("dbl({})", local0); }
wasm:block:end / fname == "classify" / { println("block end pc {} instrs {}", pc, instr_count); }
wasm:block:start / fname == "neg" / { println("block start neg pc {}", pc); }
wasm:opcode:end:before / fname == "mem" / { println("end in mem at_func_end {}", at_func_end); }
wasm:opcode:select(arg0: i32, arg1: i32, arg2: i32):before { println("select {} {} {}", arg2, arg1, arg0); }
// operand types fixed by the instruction need no type bound; a bound may
// reinterpret with the same Wasm type
wasm:opcode:f64.div:before { println("f64.div {} / {}", arg1, arg0); }
wasm:opcode:f64.div:after { println("f64.div = {}", res0); }
wasm:opcode:i32.sub(arg0: u32, arg1: bool):before { println("i32.sub {} {}", arg1, arg0); }
wasm:opcode:i*.add(arg0: i64):before { println("i64 add of {}", arg0); }
