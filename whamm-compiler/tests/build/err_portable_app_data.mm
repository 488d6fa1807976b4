// --portable: whamm's functions on the app's memory and data segments read
// them through `wizeng:app` (Part B).
var start: u32 = active_data_start(APP_MEMID);
var len: u32 = active_data_len(APP_MEMID);
var pages: u32 = mem_size(APP_MEMID);
memcpy(APP_MEMID, start, 0, 64, len);

wasm:opcode:memory.init:before {
    memcpy(1, 0, 0, 64, 1);
}
