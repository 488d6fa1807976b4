// Every type: declarations with and without initializers (zero values),
// casts between all numeric types, bool, str, nested tuples, literals (L1).
wasm:begin {
    var a: u8; var b: i8; var c: u16; var d: i16; var e: u32; var f: i32;
    var g: u64; var h: i64; var i: f32; var j: f64; var k: bool; var l: str;
    var m: (u8, (str, bool), f64); var n: map<u32, u32>;
    println("zero {} {} {} {} {} {} {} {} {} {} {} '{}' {} {}", a, b, c, d, e, f, g, h, i, j, k, l, m, n);
    println("lit {} {} {} {} {}", 1_000_000, 0xff, 0b1010, -5, 0xFFFF_FFFF as u32);
    println("lit {} {} {} {} {}", 1.5, 1e3, 2.5e-3, -0.0, 1_0.0_1);
    var fi: f64 = inf; var fn_: f64 = NaN; var fm: f32 = -inf;
    println("lit {} {} {}", fi, fn_, fm);
    println("esc [{}]", "tab\tq\"a\'b\\n\x41\u{e9}\u{1F600}");
    println("esc len {}", "\0\n".len());
    // casts: int -> int (wrap / sign)
    var big: i64 = -1;
    println("cast {} {} {} {} {} {} {}", big as u8, big as i8, big as u16, big as i16, big as u32, big as i32, big as u64);
    var u: u32 = 4294967295;
    println("cast {} {} {} {}", u as i32, u as i64, u as u8, u as i8);
    // int -> float, float -> int (saturating), float <-> float
    println("cast {} {} {} {}", u as f64, big as f32, -3 as f64, 16777217 as f32);
    var x: f64 = -1e20; var y: f64 = 300.7; var z: f64 = NaN;
    println("sat {} {} {} {} {} {}", x as i32, x as u32, y as u8, y as i8, z as i32, -y as u16);
    println("sat {} {} {}", 1e30 as i64, 1e30 as u64, -1.0 as u64);
    println("f {} {}", 0.1 as f32, (0.1 as f32) as f64);
    // bool casts
    println("bool {} {} {} {}", 0 as bool, 17 as bool, true as u8, false as i64);
    // tuples: nested, field access, field assignment, cast element-wise
    var t: (i32, (u8, str), f32) = (-1, (255, "s"), 0.5);
    t.1.0 = t.1.0 + 1; t.2 = t.2 * 2.0;
    println("tuple {} {} {} {}", t, t.0, t.1, t.1.1);
    var w: (i64, f64) = (3, 1.0) as (i64, f64);
    var one: (u32,) = (9,);
    println("tuple {} {}", w, one);
    var tt: (u8, u8) = (1, 2);
    var uu: (u32, u64) = tt;
    println("widen {}", uu);
    // f32 precision and print formatting (6 significant digits)
    println("fmt {} {} {} {} {}", 1000.18, 0.00123456789, 123456789.0, 9.999995, 1e-300);
    println("fmt {} {} {} {}", 5e-324, 1.7976931348623157e308, 0.0, 1.0);
    println("fmt {} {}", 3.4028235e38 as f32, 1e-45 as f32);
}
wasm:opcode:nop:before { }
