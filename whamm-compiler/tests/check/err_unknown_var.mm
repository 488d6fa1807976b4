var count: u32;
fn helper() -> u32 { return fid; }
wasm:opcode:call:before {
    cuont++;
    count = undefined_thing + 1;
    nosuch();
    var s: str = lib.f();
}
