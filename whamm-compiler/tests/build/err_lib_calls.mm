// lib: mylib=../whamm/mylib.wat
// Library calls checked against the library's exports (`--lib`).
use mylib;
wasm:opcode:call:before {
    mylib.nope();
    mylib.bump(1, 2);
    mylib.bump(1.5);
    var s: str = "x";
    mylib.bump(s);
    var r: u8 = mylib.total();
}
