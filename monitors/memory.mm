// memory: loads and stores per site, the bytes they moved, and the range of
// addresses they touched.
//
// The access size and direction are static (kept per site at match time);
// the count and the effective-address range are updated when the access
// runs.
wasm:opcode:*load*|*store*:before {
    report unshared var size: u32 = data_size;
    report unshared var write: bool = is_write;
    report unshared var count: u64;
    report unshared var lo: u64 = 0xFFFFFFFFFFFFFFFF;
    report unshared var hi: u64;
    count++;
    if (effective_addr < lo) {
        lo = effective_addr;
    }
    if (effective_addr > hi) {
        hi = effective_addr;
    }
}
