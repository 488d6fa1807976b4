// app: partb.wat
// Bound variables the engine provides through monitor ABI Part B params
// (docs/whamm-backend.md): `opidx`, `target_fn_name`, `target_fn_type`,
// `target_imp_module` (calls), `targets`, `default_target` (br_table),
// `resolved_fid` (call_indirect, at run time), and type bounds on operands,
// results and locals whose type depends on the site (only sites where the
// variable has the bound's type are probed).
wasm:opcode:call:before {
    println("call {} ({}, module '{}') at opidx {} in {}", target_fn_name, target_fn_type, target_imp_module, opidx, fname);
}
wasm:opcode:call:before / target_fn_type == "import" && target_imp_module.starts_with("wasi") / {
    println("  an import of {}", target_imp_module);
}
wasm:opcode:call:before / target_fn_name == "dbl" || opidx > 14 / { println("  dbl or late: opidx {}", opidx); }
wasm:opcode:call:before {
    report var callee: str = target_fn_name;
    unshared var first: u32 = opidx;
    println("  site record: {} at {}", callee, first);
}
wasm:opcode:br_table:before {
    println("br_table {} targets {} default {} -> {} (label {})", num_targets, targets, default_target, target, target < num_targets ? targets[target] : default_target);
}
wasm:opcode:br_table:before / default_target == 1 && targets[arg0 as u32] == 1 / { println("  to $b"); }
wasm:opcode:call_indirect:before { println("call_indirect entry {} -> fid {}", table_entry_idx, resolved_fid); }
wasm:opcode:call_indirect(arg1: i32):before { println("  i32 argument {}", arg1); }
wasm:opcode:call_indirect(arg1: i64):before / resolved_fid == 2 / { println("  i64 argument {} to wide", arg1); }
wasm:opcode:call(arg0: i64):before { println("call with i64 {}", arg0); }
wasm:opcode:call(res0: i32):after { println("call returned i32 {}", res0); }
wasm:opcode:call(res0: i64):after { println("call returned i64 {}", res0); }
wasm:opcode:local.get(res0: i64):after { println("local.get i64 {}", res0); }
wasm:func:entry(local0: i64) { println("entry with i64 local0 {} in {}", local0, fname); }
wasm:opcode:i*.mul:before / opidx == 2 / { println("{} at opidx 2 in fid {}", opname, fid); }
// a type bound filters sites also when the body does not use the variable
var i64_sites: map<str, u32>;
wasm:opcode:*(arg0: i64):before { i64_sites[opname]++; }
wasm:end { println("ops with an i64 arg0: {}", i64_sites); }
// bound and used where most sites have no such operand (`end` of blocks
// without results): the guard rejects them before arg0 is bound
wasm:opcode:end(arg0: i64):before { println("end with i64 {} in fid {}", arg0, fid); }
// functions without a name have the empty name (the engine's `func#N`)
wasm:func:entry / fname == "" / { println("entry of an unnamed function, fid {}", fid); }
