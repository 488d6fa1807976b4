fn noret() -> u32 { if (true) { return 1; } }
fn unit() { return 5; }
fn needs() -> bool { return; }
fn print(x: u32) { }
fn params(a: u32, a: u32) -> u32 { return a; }
wasm:begin {
    var x: u32 = unit();
    var y: u32 = noret(true);
    var z: bool = needs() + 1;
    unit(1);
    noret;
}
