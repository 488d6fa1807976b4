// whamm's memory and string functions on the monitor's own memory (memory
// id 0, also `memid(whamm_core)`): write_str, read_str, memcpy, strcmp,
// s.addr(); a global string report variable is a row of two globals; a
// per-site initializer may read an earlier one.
use whamm_core;

report var greeting: str = "hey\n";
var n: u32 = greeting.len();
var buf: i32 = whamm_core.mem_alloc(16);
write_str(memid(whamm_core), buf, greeting);
whamm_core.puts(buf, n as i32);
memcpy(0, greeting.addr(), memid(whamm_core), (buf + 8) as u32, 2);
whamm_core.puts(buf + 8, 2);
whamm_core.putc(10);

wasm:opcode:call:before {
    report var word: str = "abcdef";
    report var len: u32 = word.len();
    report var same: bool = strcmp((word.addr() as i32, 3), "abc");
    var back: str = read_str(0, buf, 3);
    report var echoed: bool;
    echoed = back == "hey";
}
