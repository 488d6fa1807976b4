// X1 functions (recursion, mutual recursion, tuple/str/map params and
// results, no result, early return, calls from predicates/other functions/
// global initializers), X2 loops (while, for with every part optional,
// nested break/continue), X3 unary minus, X4 print/println formats.
fn fact(n: u64) -> u64 { if (n <= 1) { return 1; } return n * fact(n - 1); }
fn is_even(n: u32) -> bool { if (n == 0) { return true; } return is_odd(n - 1); }
fn is_odd(n: u32) -> bool { if (n == 0) { return false; } return is_even(n - 1); }
fn swap(p: (i32, str)) -> (str, i32) { return (p.1, p.0); }
fn greet(name: str) { println("hello, {}!", name); }
fn first_over(limit: i32) -> i32 {
    var i: i32 = 0;
    while (true) { if (i * i > limit) { return i; } i++; }
}
fn count_into(m: map<str, u32>, k: str) { m[k]++; }
fn sign(x: f64) -> i32 { if (x < 0.0) { return -1; } elif (x == 0.0) { return 0; } else { return 1; } }
fn early(x: u32) { if (x > 1) { println("early {} > 1", x); return; } println("late {}", x); }
var f10: u64 = fact(10);
var counts: map<str, u32>;
wasm:begin {
    println("fact {} {} {}", fact(0), fact(5), f10);
    println("even/odd {} {} {}", is_even(10), is_odd(7), is_even(7));
    println("swap {}", swap((-4, "four")));
    greet("probe");
    println("first_over {}", first_over(50));
    count_into(counts, "a"); count_into(counts, "a"); count_into(counts, "b");
    println("counts {}", counts);
    println("sign {} {} {}", sign(-2.5), sign(0.0), sign(1e-9));
    early(5); early(1);
    // loops
    var s: u32 = 0;
    for (var i: u32 = 0; i < 10; i++) {
        if (i == 2) { continue; }
        if (i == 7) { break; }
        for (var j: u32 = 0; j < 3; j++) {
            if (j == 1) { continue; }
            s = s + i * 10 + j;
        }
    }
    println("nested for {}", s);
    var k: i32 = 0;
    for (;;) { k++; if (k >= 4) { break; } }
    var w: i32 = 10;
    for (; w > 0;) { w = w - 3; }
    var steps: u32 = 0;
    for (var z: u32 = 0; ; z = z + 2) { steps++; if (z > 6) { break; } }
    println("for parts {} {} {}", k, w, steps);
    var n: u32 = 27; var collatz: u32 = 0;
    while (n != 1) { if (n % 2 == 0) { n = n / 2; } else { n = 3 * n + 1; } collatz++; }
    println("collatz(27) = {}", collatz);
    var outer: u32 = 0;
    while (outer < 3) {
        outer++;
        var inner: u32 = 0;
        while (true) { inner++; if (inner == outer) { break; } }
        if (outer == 2) { continue; }
        println("while {} {}", outer, inner);
    }
    // unary minus on expressions of every numeric type
    var a: i32 = 5; var b: f32 = 2.5; var c: i64 = -7; var d: u8 = 3;
    println("neg {} {} {} {} {} {}", -a, -(a * 2), -b, -c, -d, -(-a));
    println("neg {} {}", -fact(3) as i64, -(1.0 / 4.0));
    // print formats
    print("no newline;");
    print(" {} + {} = {}", 1, 2, 1 + 2);
    println();
    println("{{}} {{{}}} }}{{", 42);
    println(fact(4));
    println("tuple {} map {} bool {} str {}", (1, (2.5, "x")), counts, false, "s");
    println("just text");
}
// functions are callable from predicates and probes
wasm:opcode:call(arg1: i32):before / is_even(arg1 as u32) / { println("call with even arg1 {} (fact {})", arg1, fact(arg1 as u64)); }
