// Two probes on one event: export names differ by whitespace (ABI `ws`).
var a: u32;
wasm:opcode:call:before { a++; }
wasm:opcode:call:before { a = a * 2; }
wasm:report { println("a = {}", a); }
