// Every operator, with the precedence of L4.
var a: i32 = 1;
var b: i32 = 2;
var c: bool = a < b && b > a || a == b;
var d: bool = a <= b || b >= a && a != b;
var e: i32 = a | b ^ a & b;
var f: i32 = a << 2 >> 1;
var h: i32 = -a + b * 3 / 2 % 5 - ~b;
var i: f64 = -(1.5 * 2.0) + 1e3 - inf;
var j: bool = !c && !(a > 0);
var k: i64 = a as i64 * 2;
var l: u8 = (a + 1) as u8;
var m: i32 = c ? 1 : 2;
var n: i32 = c ? a : d ? b : 3;
var o: f32 = NaN;
var p: u64 = 0xFFFF_FFFF + 0b1010;
var q: i32 = -2147483648;
var r: bool = c & d | j ^ true;
var s: str = "esc \n \r \t \" \' \\ \0 \x41 \u{1F600}";
var t: u32 = s.len();
var u: bool = s.starts_with("a") || s.ends_with("b") && s.contains("c");
var v: u64 = 1_000_000;
var w: f64 = a as f64 / 3.0;
wasm:begin { }
