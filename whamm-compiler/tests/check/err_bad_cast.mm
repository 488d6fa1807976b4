var s: str = "x";
var m: map<u32, u32>;
var t: (u32, u32);
wasm:begin {
    var a: u32 = s as u32;
    var b: str = 1 as str;
    var c: u32 = m as u32;
    var d: u64 = t as u64;
    var e: (u8, u8) = t as (u8, u8, u8);
    var f: f32 = true as f32;
}
