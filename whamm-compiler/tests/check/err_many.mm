// Several kinds of errors in one file: all are reported in one run.
use lib;
use lib;
var total: u32;
var total: u64;
fn f(x: u32) -> u32 { }
fn f() { }
wasm:opcode:call:before / fid + 1 / {
    break;
    pc = 3;
    var fid: u32 = 1;
    total = f(1, 2);
    println("{} and {}", 1);
    println("{", 1);
    nop_probe = 1
}
wasm:opcode:*:alt { }
wasm:opcode:br:at_target { }
wasm:begin { return 1; }
