// `memcpy` from the app's memory while the monitor starts reads the app's
// initial memory: its last four bytes are the data segment; one byte more
// is outside the memory, and the copy traps (when the monitor starts, so
// the app never runs).
use whamm_core;

var end: u32 = active_data_start(APP_MEMID) + active_data_len(APP_MEMID);
var buf: i32 = whamm_core.mem_alloc(8);
memcpy(APP_MEMID, end - 4, 0, buf as u32, 4);
whamm_core.puts(buf, 4);
whamm_core.putc(10);
memcpy(APP_MEMID, end - 4, 0, buf as u32, 5);

wasm:exit {
    whamm_core.puts(buf, 4);
}
