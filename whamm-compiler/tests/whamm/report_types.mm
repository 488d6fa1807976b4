// app: rich.wat
// The L6 report for every type: whamm_type and wasm_type columns, value
// formatting (unsigned/signed, floats `+1.00018e3`, shortest digits, bools, strings, tuples
// `(a; b)`, maps `k->v;k->v` sorted by key with tuple keys `(a,b)`,
// `empty map`), per-site rows for several probes and sites (fname, fid, pc,
// probe_id = `<probe index>_<matched rule>`).
report var a: u8 = 255;
report var b: i8 = -128;
report var c: u16 = 65535;
report var d: i16 = -1;
report var e: u32 = 4294967295;
report var f: i32 = -2147483648;
report var g: u64 = 18446744073709551615;
report var h: i64 = -9223372036854775808;
report var i: f32 = 0.5;
report var j: f64 = -1000.18;
report var k: bool = false;
report var l: str = "text";
report var m: (i8, (str, f64), bool) = (-1, ("x", 2.0), true);
report var n: map<(str, i32), (u8, bool)>;
report var o: map<f64, str>;
report var p: map<bool, map<u8, u8>>;
wasm:begin {
    n[("b", -1)] = (1, true); n[("a", 5)] = (2, false); n[("a", -5)] = (3, true);
    o[-0.5] = "neg"; o[1e6] = "big";
    p[true][2] = 3;
}
wasm:opcode:call_indirect:before {
    report var per_site: i64;
    per_site = per_site - 1;
}
wasm:func:entry / fname == "dbl" || fname == "neg" / {
    report var entries: u32;
    report var where_: (str, u32);
    report var args: map<u32, bool>;
    entries++;
    where_ = (fname, fid);
}
