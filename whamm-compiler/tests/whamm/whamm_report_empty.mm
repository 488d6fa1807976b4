// Only per-site report variables, and no site matches (no call has an i64
// top operand in calls.wat): the report prints nothing at all.
wasm:opcode:call(arg0: i64):before {
    report var n: u32;
    n++;
}
