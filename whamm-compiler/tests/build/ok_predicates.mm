// Predicate split: `pc == 25` is decided at match time (a $pred_N export),
// `arg0 == 1` is tested in the probe; `opname` folds per export.
var n: u32;
wasm:opcode:br_if(arg0: i32):before / pc == 25 && arg0 == 1 / { n++; }
wasm:opcode:i32.add|i64.add:before / opname == "i32.add" / { n++; }
wasm:opcode:*load*:before / data_size == 8 && fname.starts_with("f") / { n++; }
wasm:func:entry / fid > 2 || fname == "main" / { n++; }
