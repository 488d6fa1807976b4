// X1: user functions, recursion, calls from predicates and other functions.
fn fib(n: u32) -> u32 {
    if (n < 2) { return n; }
    return fib(n - 1) + fib(n - 2);
}
fn is_hot(f: u32, p: u32) -> bool { return f == 3 && p > fib(5); }
fn pick(c: bool, a: i64, b: i64) -> i64 { if (c) { return a; } else { return b; } }
fn forever() -> u32 { while (true) { } }
wasm:opcode:nop:before / is_hot(fid, pc) / {
    var x: i64 = pick(true, 1, -1);
    print("fib = {}\n", fib(10));
    println();
    println(x);
}
