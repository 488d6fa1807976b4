// app: rich.wat
/* Scripts in the existing whamm language (L1-L6) compile unchanged:
   legacy declarations, `else if`, comments /* nested */, the branch monitor
   without type bounds, report maps keyed by (fid, pc, index), `arg0` of
   br_if/br_table/call_indirect as i32, a load/store monitor. */
report var count: map<(u32, u32, u32), u32>;
i32 legacy_count;
report u64 total = 0;
map<u32, u32> hist;
wasm:opcode:br_if:before {
    // which branch was taken?
    var index: u32;
    if (arg0 != 0) {
        index = 1;
    } else if (arg0 == 0) {
        index = 0;
    }
    count[(fid, pc, index)]++;
}
wasm:opcode:br_table:before {
    var index: u32 = arg0 as u32;
    if (index > num_targets) { index = num_targets; }
    count[(fid, pc, index)]++;
}
wasm:opcode:call_indirect:before { hist[arg0 as u32]++; }
wasm:opcode:*load*|*store*:before {
    legacy_count++;
    total = total + data_size as u64;
}
wasm:end { println("legacy {} hist {}", legacy_count, hist); }
