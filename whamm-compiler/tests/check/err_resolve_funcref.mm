// `resolve_funcref` is whamm's spelling of `resolved_fid`; only that form
// exists (there are no funcref values to pass).
wasm:opcode:call_indirect:before {
    var ok: i32 = resolve_funcref(target_funcref, table_entry_idx);
    var bad: i32 = resolve_funcref(target_funcref, 3);
}
