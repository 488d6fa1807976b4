// `resolved_fid` where the function comes as a funcref operand (`call_ref`,
// `table.set`): as in whamm, the function of a `ref.func` just before,
// else -1. whamm_core's CSV prints integers signed, so the u32 of -1 is -1.
use whamm_core;

report var targets: map<(u32, u32), u32>;

wasm:opcode:call_ref|table.set:before {
    targets[(pc, resolved_fid as u32)]++;
}

wasm:report {
    whamm_core.print_map_as_csv(0);
}
