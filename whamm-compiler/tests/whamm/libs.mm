// app: calls.wat
// lib: mylib=mylib.wat
// Monitor libraries (`use`, `whamm build --lib`): calls type-checked against
// the library's exports, with results (one, several as a tuple, none);
// `@static` calls run once per matched site at match time (in the body, in a
// per-site initializer, in a static predicate), run-time calls every firing.
use mylib;
wasm:opcode:call:before {
    unshared var first: i32 = @static mylib.tick();
    mylib.bump(1);
    var s: i32 = @static mylib.tick();
    println("call at pc {}: site ticks {} {}, classify {}", pc, first, s, @static mylib.classify(fid, pc as i32));
}
wasm:opcode:br_if:before / @static mylib.classify(fid, pc) == 1 / { println("br_if at pc {} kept by a static library predicate", pc); }
wasm:opcode:br_if:before / @static mylib.classify(fid, pc) != 1 && arg0 == 1 / { println("never"); }
wasm:opcode:i32.add:before / pc == 5 / {
    var t: (i32, i64) = mylib.pair(7);
    println("pair {} scale {}", t, mylib.scale(3, 0.5));
}
wasm:end { println("bumped {}; tick called {} times", mylib.total(), mylib.ticks()); }
