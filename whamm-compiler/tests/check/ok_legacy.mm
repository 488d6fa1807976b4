// The legacy declaration form of the existing whamm language.
i32 count;
report u64 total = 0;
map<u32, u32> hist;
wasm:opcode:call:before / fid == 3 && pc != 2 / {
    count++;
    total = total + 1;
    hist[pc]++;
}
