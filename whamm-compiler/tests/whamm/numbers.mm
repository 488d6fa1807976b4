// app: rich.wat
// Decimal printing at the digit-count and 32-bit boundaries, both while
// probes run (output unbuffered: `wasm:begin`) and in the report at exit
// (buffered, digits written straight into the buffer), and the `, fid`,
// `, pc` and probe-id columns of per-site rows.
report var zero: u64 = 0;
report var nine: u64 = 9;
report var ten: u64 = 10;
report var below32: u64 = 4294967295;
report var at32: u64 = 4294967296;
report var nines: u64 = 9999999999999999999;
report var e19: u64 = 10000000000000000000;
report var max: u64 = 18446744073709551615;
report var min: i64 = -9223372036854775808;
report var small: u32 = 1000000000;
wasm:begin {
    println("{} {} {} {} {}", zero, nine, ten, below32, at32);
    println("{} {} {} {} {}", nines, e19, max, min, small);
}
wasm:opcode:call_indirect:before {
    report var calls: u64 = 99999;
    calls++;
}
