// Maps of many key/value shapes (X6): numeric, bool, str and tuple keys;
// numeric, str, bool, float, tuple and map values; m[k]++ / m[k]-- on every
// numeric value type; missing keys read as zero; sorted printing; aliasing;
// maps in tuples, as function parameters and results.
var by_u8: map<u8, u64>;
var by_i64: map<i64, i8>;
var by_bool: map<bool, str>;
var by_str: map<str, str>;
var by_f64: map<f64, u32>;
var by_f32: map<f32, f32>;
var by_tup: map<(u32, str, bool), (i16, f64)>;
var counts: map<u32, u16>;
var fcount: map<str, f64>;
var nest: map<str, map<(u8, u8), bool>>;
var holder: (u32, map<u32, u32>);
fn fill(m: map<u32, u32>, n: u32) -> map<u32, u32> {
    for (var i: u32 = 0; i < n; i++) { m[i * 10] = i; }
    return m;
}
wasm:begin {
    by_u8[3] = 30; by_u8[255] = 1; by_u8[0]--; by_u8[3]++;
    println("u8 {}", by_u8);
    by_i64[-5] = -1; by_i64[5] = 1; by_i64[-9223372036854775808] = 127; by_i64[0]++;
    println("i64 {}", by_i64);
    by_bool[true] = "yes"; by_bool[false] = "no";
    println("bool {} missing='{}'", by_bool, by_str["nope"]);
    by_str["b"] = "2"; by_str["a"] = "1"; by_str[""] = "empty"; by_str["ab"] = by_str["a"];
    println("str {}", by_str);
    by_f64[2.5] = 1; by_f64[-1.0] = 2; by_f64[1e10]++;
    println("f64 {}", by_f64);
    by_f32[0.5] = 1.25; by_f32[-0.5]++;
    println("f32 {}", by_f32);
    by_tup[(2, "x", true)] = (-1, 0.5);
    by_tup[(1, "y", false)] = (7, -2.0);
    by_tup[(1, "x", true)].0++;
    by_tup[(1, "x", true)].1 = by_tup[(1, "x", true)].1 + 1.5;
    println("tup {}", by_tup);
    println("tup missing {}", by_tup[(9, "z", false)]);
    counts[1]++; counts[1]++; counts[2]--;
    println("u16 {} {} {}", counts, counts[1], counts[77]);
    fcount["pi"] = 3.14159; fcount["pi"]++; fcount["e"]--;
    println("f64v {}", fcount);
    nest["p"][(1, 2)] = true; nest["p"][(0, 9)] = false; nest["q"][(3, 3)] = true;
    println("nest {} {} {}", nest, nest["p"][(1, 2)], nest["zz"][(1, 1)]);
    // maps are references: assignment aliases, functions can fill them
    var alias: map<u32, u32> = holder.1;
    alias[1] = 11;
    println("alias {} {}", holder, alias);
    var m: map<u32, u32>;
    var r: map<u32, u32> = fill(m, 3);
    println("fn {} {}", m, r);
    // growth: many keys, then check some
    var big: map<u32, u32>;
    for (var i: u32 = 0; i < 1000; i++) { big[i * 7919 % 1000] = i; }
    var sum: u64 = 0;
    for (var i: u32 = 0; i < 1000; i++) { sum = sum + big[i]; }
    println("big sum {} at 7919 {}", sum, big[919]);
    var words: map<str, u32>;
    for (var i: u32 = 0; i < 300; i++) { words[i % 3 == 0 ? "fizz" : i % 5 == 0 ? "buzz" : "n"]++; }
    println("words {}", words);
}
wasm:opcode:nop:before { }
