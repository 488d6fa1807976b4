// Report rows as whamm prints them: per-site maps are `memaddr` rows, and
// `wasm_type` lists a string's and a tuple's flattened Wasm types.
wasm:opcode:br_if:before {
    report unshared var taken: map<u32, u32>;
    report unshared var last: (u8, (i64, f32));
    report unshared var name: str;
    taken[arg0]++;
    last = (1, (2, 0.5));
    name = fname;
}
