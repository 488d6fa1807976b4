// lib: mylib=../whamm/mylib.wat
// Library imports take the library's signatures; `@static` calls become part
// of the site allocator and of static predicates.
use mylib;
wasm:opcode:call:before / @static mylib.classify(fid, pc) == 1 / {
    var s: i32 = @static mylib.tick();
    mylib.bump(s);
}
