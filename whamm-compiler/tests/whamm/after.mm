// `after` mode: results of calls; static predicates on fname/opname.
var total: i64;
wasm:opcode:call(res0: i32):after {
    total = total + res0 as i64;
}
wasm:opcode:i32.add(arg0: i32, arg1: i32):before / fname == "add" && opname == "i32.add" / {
    println("add {} + {}", arg1, arg0);
}
wasm:opcode:i32.add:before / fname == "nope" / { println("never"); }
wasm:func:entry / fname.starts_with("ad") / { println("enter {} (fid {})", fname, fid); }
wasm:end { println("total = {}", total); }
