wasm:opcode:call:before { println("{}", target_fn_name); }
