// Every binary/unary operator on every numeric type, precedence (L4),
// short-circuit `&&`/`||`, non-short-circuit `&`/`|` on bool, ternary.
var trace: str;
fn t(name: str, v: bool) -> bool { print("{} ", name); return v; }
wasm:begin {
    // precedence, lowest first: && || | ^ & comparisons shifts + - * / % prefix postfix-as
    println("prec {} {} {} {} {}", 1 + 2 * 3, (1 + 2) * 3, 10 - 4 - 3, 100 / 10 / 5, 7 % 4 * 2);
    println("prec {} {} {}", 1 << 2 + 1, 1 | 6 & 3, 5 ^ 1 | 8);
    println("prec {} {}", 2 + 3 == 5 && 1 < 2, 1 == 1 == true);
    println("prec {} {}", true || false && false, (true || false) && false);
    println("prec {} {}", -2 * 3, !false && true);
    println("prec {} {}", 3 as u8 + 1, -7 as u32);
    println("prec {}", 0x10 | 0b11 & 0xf ^ 1);
    // short-circuit
    println("{}", t("a", false) && t("b", true));
    println("{}", t("a", true) && t("b", false));
    println("{}", t("a", true) || t("b", true));
    println("{}", t("a", false) || t("b", true));
    println("{}", t("a", false) & t("b", true));
    println("{}", t("a", true) | t("b", true));
    println("{}", t("a", true) ^ t("b", true));
    println("{}", t("x", true) ? "then" : "else");
    println("{}", t("x", false) ? 1 : t("y", true) ? 2 : 3);
    // integers of every width
    var a8: u8 = 200; var b8: u8 = 100;
    println("u8 {} {} {} {} {} {} {} {} {}", a8 + b8, b8 - a8, a8 * 2, a8 / 3, a8 % 7, a8 & b8, a8 | b8, a8 ^ b8, ~a8);
    println("u8 {} {} {} {}", a8 << 1, a8 >> 2, -a8, a8 > b8);
    var s8: i8 = -100; var r8: i8 = 50;
    println("i8 {} {} {} {} {} {} {}", s8 - r8, s8 * 2, s8 / 3, s8 % 7, s8 >> 1, ~s8, -s8);
    println("i8 {} {} {} {} {} {}", s8 < r8, s8 <= r8, s8 > r8, s8 >= r8, s8 == s8, s8 != r8);
    var a16: u16 = 65535; var s16: i16 = -32768;
    println("16 {} {} {} {}", a16 + 1, s16 - 1, -s16, a16 >> 8);
    var a32: u32 = 4000000000; var s32: i32 = -2000000000;
    println("32 {} {} {} {} {} {}", a32 + a32, s32 + s32, a32 / 3, s32 / 3, s32 % 3, a32 >> 31);
    println("32 {} {} {}", s32 >> 4, a32 < 5, s32 < 5);
    var a64: u64 = 18446744073709551615; var s64: i64 = -9223372036854775807;
    println("64 {} {} {} {} {}", a64 + 2, s64 - 2, a64 / 2, s64 % 10, -s64);
    println("64 {} {} {} {}", a64 >> 60, s64 >> 60, ~s64, a64 > 1);
    // mixed signed/unsigned joins
    var m: i64 = a32 + s32;
    println("join {} {} {}", m, a8 + s8, a32 > s32);
    // floats
    var f: f32 = 1.5; var g: f64 = -2.25;
    println("f32 {} {} {} {} {}", f + f, f - 3.0, f * f, f / 4.0, -f);
    println("f64 {} {} {} {} {}", g + g, g - f, g * g, g / 0.0, -g);
    println("fcmp {} {} {} {} {} {}", f < g, f <= 1.5, f > g, f >= 2.0, g == -2.25, f != f);
    var nan: f64 = 0.0 / 0.0;
    println("nan {} {} {}", nan == nan, nan != nan, nan < 1.0);
    // bool
    println("bool {} {} {} {}", true == false, true != false, !true, true & false);
    // strings and tuples
    println("str {} {}", "ab" == "ab", "ab" != "abc");
    println("tup {} {}", (1, "x") == (1, "x"), (1, 2.5) != (1, 2.5));
}
wasm:opcode:nop:before { }
