// Assignments and ++/-- to variables kept in memory (per-site report
// variables, and fields of tuple ones): the compiler pushes such a place's
// address before computing the value and stores straight from the stack.
// Every field must land in its own slot, whatever its type.
wasm:opcode:call(arg0: i32):before {
    report unshared var n: u32;
    report unshared var down: i32;
    report unshared var wide: i64;
    report unshared var t: (i8, str, f32, bool, u64);
    report unshared var last: f64;
    report var m: map<i32, (u32, i64)>;
    n++;
    down--;
    down = down - 2;
    wide = wide + (arg0 as i64) * 1000000000000;
    t.0 = -10;
    t.1 = "other str";
    t.2 = t.2 + 1.5;
    t.3 = arg0 != 0;
    t.4++;
    last = (n as f64) / 4.0;
    m[arg0 % 2] = (n, wide);
}
