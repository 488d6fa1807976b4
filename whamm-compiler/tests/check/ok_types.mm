// Types, widening and casts.
var a8: u8 = 255;
var b8: i8 = -128;
var a16: u16 = a8;
var b16: i16 = a8;
var a32: u32 = a16;
var b32: i32 = b16;
var a64: u64 = a32;
var b64: i64 = a32;
var f: f32 = 1.5;
var g: f64 = f;
var ok: bool = true;
var s: str = "x";
var tup: (u32, (i64, str), bool);
var m1: map<str, u32>;
var m2: map<(u32, u32), (u64, f64)>;
var m3: map<u32, map<u32, u32>>;
var m4: map<bool, str>;
var mixed: i64 = a32 + b32;
var c1: i32 = f as i32;
var c2: bool = a32 as bool;
var c3: u32 = ok as u32;
var c4: f64 = b64 as f64;
var c5: (u8, i64) = (1, 2);
wasm:begin {
    m3[1][2] = 3;
    m1["k"]++;
    m2[(1, 2)] = (3, 4.5);
    tup = (1, (2, "s"), false);
}
