// lib: mylib=../whamm/mylib.wat
// `@static` calls run at match time: their arguments cannot be dynamic.
use mylib;
var g: i32;
wasm:opcode:call(arg0: i32):before { var x: i32 = @static mylib.classify(fid, arg0); }
wasm:opcode:call:before { var y: i32 = @static mylib.classify(fid, g); }
