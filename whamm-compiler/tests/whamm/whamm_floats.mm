// Floats print as whamm prints them: a sign, the fewest digits that read
// back as the same value (f32 values as f32), the decimal exponent; `%` on
// floats keeps the dividend's sign.
wasm:begin {
    var a: f64 = 2.5;
    var b: f32 = -1.1;
    println("{} {} {} {}", a, b, 0.1, 1.0 / 3.0);
    println("{} {}", 1.0 / 3.0 as f32, 255 as f32);
    println("{} {}", 0.0, -0.0);
    println("{} {}", 1.7976931348623157e308, -1.7976931348623157e308);
    println("{} {}", 3.4028234663852886e38 as f32, 18446744073709551615 as f32);
    println("{} {}", 5e-324, 2.2250738585072014e-308);
    println("{} {}", 1e21, 123456789012345680.0);
    println("{} {}", 1.0e-7, 100.0);
    println("{} {}", 0.3 as f32, 16777216.0 as f32);
    var big: f32 = 3.4028234663852886e38 as f32;
    println("{} {} {}", 7.5 % 2.0, -7.5 % 2.0, (-big) % 1.0);
    println("{} {}", (5.5 as f32) % (-2.0 as f32), 1.0 % 0.0);
}
wasm:opcode:call:before / fid == 999 / { }
