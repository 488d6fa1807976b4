// Syntax errors, each with the list of what was expected.
var x: u32 = ;
var y: map<u32 u32>;
wasm:opcode:call:before {
    x = (1 + ;
    if x > 1 { x = 2 }
    y[1] = 2;
}
fn f(a: u32 -> u32 { return a; }
wasm:opcode:nop:before { x++ }
