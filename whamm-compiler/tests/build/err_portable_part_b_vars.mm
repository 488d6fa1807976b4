// --portable: bound variables that need monitor ABI Part B params or imports.
wasm:opcode:call:before { println("{}", target_fn_name); }
wasm:opcode:br_table:before / default_target == 0 / { }
wasm:opcode:call_indirect:before { println("{}", resolved_fid); }
wasm:opcode:nop:before { println("{}", opidx); }
