// `use whamm_core;` without `--lib`: whamm's core library is provided by the
// monitor itself. mem_alloc takes bytes from the monitor's heap, puts/putc
// write to stdout, and print_map_as_csv(N) prints the N-th global map.
use whamm_core;

var edges: map<(u32, bool), u32>;
var unused: map<u32, u32>;
var hi: str = "hi\n";

wasm:opcode:br_if:before {
    edges[(fid, arg0 != 0)]++;
}

wasm:end {
    var p: i32 = whamm_core.mem_alloc(8);
    whamm_core.putc(79);
    whamm_core.putc(75);
    whamm_core.putc(10);
    whamm_core.mem_free(p);
    whamm_core.print_map_as_csv(0);
    whamm_core.print_map_as_csv(1);
}
