// Every rule form: exact, *, ?, [...], [!...], |, empty parts,
// case-insensitivity, type bounds, three- and two-part events.
var n: u32;
wasm:opcode:call:before { n++; }
wasm:opcode:call|return_call:before { n++; }
wasm:opcode:*load*|*store*:before { n++; }
wasm:opcode:i32.?dd:before { n++; }
wasm:opcode:i[36][24].add:after { n++; }
wasm:opcode:[!i]*.const:before { n++; }
wasm::br:before { n++; }
wasm:opcode:br_if:before|after { n++; }
WASM:OPCODE:NOP:BEFORE { n++; }
wasm:opcode:local.get(arg0: i32):after { n++; }
wasm:opcode:i32.add(arg0: i32, arg1: i32):before / arg0 == arg1 / { n++; }
wasm:func:entry { n++; }
wasm:func:* { n++; }
wasm:block:start { n++; }
wasm:block:end { n = n + instr_count; }
wasm:begin { n = 0; }
wasm:end { println("{}", n); }
