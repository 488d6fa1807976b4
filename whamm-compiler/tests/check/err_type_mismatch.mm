var a: u32 = -1;
var b: u8 = 256;
var c: i32;
var d: u64;
var e: bool = 1;
var m: map<u32, str>;
wasm:begin {
    c = d;
    d = c;
    a = c + d;
    e = a && true;
    m["key"] = 1;
    var t: (u32, bool) = (true, 1);
    var f: f64 = a;
    var g: i64 = c ? 1 : 2;
    t.2 = 1;
    var s: str = "a" + "b";
    if (a) { }
    while (1.5) { }
}
