// app: bulk.wat
// `dup_at(mem, ptr)` writes what a bulk memory instruction is about to
// write into the monitor's memory (here `memid(whamm_core)`) at ptr.
use whamm_core;

wasm:opcode:memory.init|memory.copy|memory.fill:before {
    var n: i32 = arg0;
    var p: i32 = whamm_core.mem_alloc(n);
    dup_at(memid(whamm_core), p as u32);
    print("{}: ", opname);
    whamm_core.puts(p, n);
    println("");
}
