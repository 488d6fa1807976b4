use callstack;

// Call graph as a map of (caller, callee) tuples, plus indirect calls.
report var edges: map<(u32, u32), u32>;
report var indirect: map<(u32, i32), u32>;
var depth: i32 = 0;

wasm:opcode:call:before {
    var callee: u32 = imm0;
    edges[(fid, callee)]++;
    if (target_fn_type == "import") {
        println("call {} -> {} ({}.{})", fid, target_fn_name, target_imp_module, target_fn_name);
    }
}

wasm:opcode:call_indirect:before {
    indirect[(fid, resolved_fid)]++;
}

wasm:func:entry { depth++; callstack.push(fid); }
wasm:func:exit { depth--; @static callstack.note(fid, pc); }

wasm:opcode:*load*|*store*:before / is_write && data_size == 8 / {
    var key: (u32, u64) = (fid, effective_addr);
    var k2: (u32, u64) = key;
    k2.1 = key.1 + offset;
}
