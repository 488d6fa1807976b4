// Language features: functions (recursion), loops, unary minus, strings,
// tuples, maps of many key/value types, printing.
fn fib(n: u32) -> u64 {
    if (n < 2) { return n as u64; }
    return fib(n - 1) + fib(n - 2);
}
fn sum_odd(n: u32) -> i64 {
    var acc: i64 = 0;
    for (var i: u32 = 0; i < n; i++) {
        if (i % 2 == 0) { continue; }
        if (i > 9) { break; }
        acc = acc - -(i as i64);
    }
    return acc;
}
var words: map<str, u32>;
var pairs: map<(str, i32), (f64, bool)>;
var nested: map<u32, map<u32, str>>;
var bytes: map<u8, i8>;
var wide: map<u64, i64>;
var t: (u32, (i64, str), bool);
wasm:begin {
    println("fib(20) = {}", fib(20));
    println("sum_odd(100) = {}", sum_odd(100));
    var i: i32 = 3;
    while (true) { i--; if (i < -2) { break; } }
    println("i = {}, -i = {}, ~i = {}", i, -i, ~i);
    words["b"]++; words["a"] = 7; words["b"]++; words["ab"] = words["a"] + words["zz"];
    println("words = {}", words);
    pairs[("x", -1)] = (2.5, true);
    pairs[("x", -1)].0 = pairs[("x", -1)].0 * 2.0;
    pairs[("a", 3)] = (-1e-7, false);
    println("pairs = {}", pairs);
    nested[2][1] = "two-one"; nested[1][5] = "one-five"; nested[1][0] = "one-zero";
    println("nested = {}", nested);
    println("missing = '{}' {}", nested[9][9], words["nope"]);
    bytes[255] = -128; bytes[0] = 127;
    println("bytes = {}", bytes);
    wide[18446744073709551615] = -9223372036854775808; wide[1] = 1;
    println("wide = {}", wide);
    var e: map<u32, u32>;
    println("empty = {}", e);
    t = (1, (-2, "s"), false);
    t.1.1 = "str"; t.0 = t.0 + 41;
    println("t = {} {{literal}}", t);
    var s: str = "hello world";
    println("{} {} {} {} {}", s.len(), s.starts_with("hello"), s.ends_with("world"), s.contains("o w"), s.contains("xyz"));
    println("{}", s == "hello world" && "a" != "b");
    var u: u8 = 250; u = u + 10;
    var k: i8 = 127; k++;
    println("wrap u8 {} i8 {}", u, k);
    println("casts {} {} {} {}", 3.99 as i32, -1 as u32, 300 as u8, (1 == 1) as u32);
    println("ternary {}", i > 0 ? "pos" : "neg");
    println(1.0 / 3.0);
}
wasm:opcode:call:before { }
