// whamm's memory sizes: `page_size(APP_MEMID)` is the app's page size in
// bytes, `mem_size(APP_MEMID)` its size in pages. A per-site initialiser
// runs when the site is matched (the declared size, before the app runs);
// the body reads the size when the probe fires. Memory 0 is the monitor's.
wasm:opcode:memory.size:before {
    report var page: u32 = page_size(APP_MEMID);
    report var at_match: u32 = mem_size(APP_MEMID);
    report var when_run: u32;
    report var own_page: u32;
    when_run = mem_size(APP_MEMID);
    own_page = page_size(0);
}
