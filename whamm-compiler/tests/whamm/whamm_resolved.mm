// app: funcrefs.wat
// `resolved_fid` where whamm binds it: the function `ref.func` names, the
// one `table.get` reads (-1 for a null entry), the callee of
// `call_indirect`, also written whamm's way with `resolve_funcref`.
wasm:opcode:ref.func|table.get:before {
    report unshared var resolved: i32;
    resolved = resolved_fid;
}
wasm:opcode:call_indirect:before {
    report unshared var callee: i32;
    callee = resolve_funcref(target_funcref, table_entry_idx);
}
