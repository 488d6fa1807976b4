// app: tail.wat
// Tail calls with the call variables (the reference's `call|return_call`
// rule), glob ranges `[a-z]` and negated classes `[^...]`, several probes on
// one event firing in script order, `func:exit` (not before a tail call), and
// `wasm:exit` (an alias of `wasm:end`).
var seq: u32;
var ranges: map<str, u32>;
var negated: map<str, u32>;
wasm:opcode:call|return_call:before { println("{} -> {} ({}) at opidx {}", opname, target_fn_name, target_fn_type, opidx); }
wasm:opcode:return_call(arg0: i32):before { println("  tail argument {}", arg0); }
wasm:opcode:return_call_indirect:before { println("return_call_indirect entry {} -> fid {}", table_entry_idx, resolved_fid); }
wasm:opcode:return_c[a-z]ll*:before { ranges[opname]++; }
wasm:opcode:i32.[^a-l]*:before { negated[opname]++; }
wasm:func:exit / fname == "count" / { println("exit count at pc {}", pc); }
wasm:opcode:i32.sub:before { seq++; println("first {}", seq); }
wasm:opcode:i32.sub:before { seq = seq * 10; println("second {}", seq); }
wasm:opcode:i32.sub(res0: i32):after { println("third (after) {} -> {}", seq, res0); }
wasm:exit { println("ranges {} negated {}", ranges, negated); }
