// A script with a type error: the expected stderr of `wizeng --monitors=bad.mm`
// is exactly what `whamm check` prints.
wasm:opcode:call:before {
    var x: u32 = "not a number";
    x++;
}
