// The classic: count every call, report it.
report var count: u64;
wasm:opcode:call:before { count++; }
