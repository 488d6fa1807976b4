// The L6 report: per-site scalars, globals, maps (global and per-site).
report var total: u32;
report var seen: map<(u32, u32, u32), i32>;
report var ratio: f64;
report var flag: bool;
report var pair: (u32, str);
report var none: map<str, u64>;
wasm:opcode:call(arg0: i32):before {
    report var count: u32;
    report var per_arg: map<i32, u32>;
    count++;
    per_arg[arg0 % 2]++;
    total++;
    seen[(fid, pc, count % 2)] = 1;
}
wasm:end { ratio = 1000.18; flag = true; pair = (7, "x"); }
