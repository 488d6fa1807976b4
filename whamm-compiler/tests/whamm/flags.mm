// Counting flags (codegen/forward.rs): `x = x + (b as T)` becomes a
// conditional increment, and a `bool` variable computed from bound values
// and read once is evaluated where it is read. The cases that must not be
// rewritten (a flag read twice, assigned, read in a loop, or one whose
// computation could trap) count the same.
wasm:opcode:call(arg1: i32):before {
    report unshared var odd: u32;
    report unshared var big: i64;
    report unshared var twice: u32;
    report unshared var looped: u32;
    report unshared var assigned: u32;
    report unshared var divided: u32;
    report unshared var t: (u8, i32);

    var is_odd: bool = arg1 % 2 != 0;
    odd = odd + (is_odd as u32);

    var is_big: bool = arg1 > 3;
    big = (is_big as i64) + big;

    var nz: bool = arg1 != 0;
    twice = twice + (nz as u32) + (nz as u32);

    var small: bool = arg1 < 4;
    var i: i32 = 0;
    while (i < 2) {
        looped = looped + (small as u32);
        i++;
    }

    var flag: bool = arg1 == 1;
    flag = !flag;
    assigned = assigned + (flag as u32);

    var q: bool = 12 / (arg1 + 1) > 2;
    divided = divided + (q as u32);

    var first: bool = arg1 >= 2;
    t.0 = t.0 + (first as u8);
    t.1 = t.1 + ((arg1 == 3) as i32);
}
