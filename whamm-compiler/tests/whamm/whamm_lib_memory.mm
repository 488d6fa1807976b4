// app: calls.wat
// lib: textlib=textlib.wat
// `read_str(memid(LIB), ptr, len)` reads what a library wrote into its own
// memory (a separate instance; through `wizeng:lib`), in the script's
// global statements (the library is linked before the monitor starts) and
// in a probe.
use textlib;

var n: i32 = textlib.greet(100);
var at_start: str = read_str(memid(textlib), 100, n as u32);

wasm:opcode:call:before {
    report var copy: str;
    var m: i32 = textlib.greet(200);
    copy = read_str(memid(textlib), 200, m as u32);
}

wasm:exit {
    println(at_start);
}
