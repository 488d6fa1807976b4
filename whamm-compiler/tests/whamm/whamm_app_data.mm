// whamm's data-segment functions and `memcpy` from the app's memory. The
// global statements run when the monitor starts, before the app is
// instantiated: they see the app's memory as instantiation will initialise
// it (its active data segments); the probe runs later and sees the bytes
// the app wrote. Memory id 0 is the monitor's own, which has no app data.
use whamm_core;

report var start: u32 = active_data_start(APP_MEMID);
report var len: u32 = active_data_len(APP_MEMID);
report var own_len: u32 = active_data_len(0);
var buf: i32 = whamm_core.mem_alloc(8);
memcpy(APP_MEMID, start, memid(whamm_core), buf as u32, 3);
memcpy(APP_MEMID, start + len - 3, 0, (buf + 3) as u32, 3);
report var initial: str = read_str(0, buf, 6);

wasm:opcode:memory.init:before {
    report var live: str;
    memcpy(APP_MEMID, start, 0, buf as u32, 3);
    live = read_str(0, buf, 3);
}
