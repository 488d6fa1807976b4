// app: rich.wat
// Predicate splits (L5): static-only (decided at match time), dynamic-only
// (tested in the probe), mixed (`pc == N && arg0 == 1`), folded per event
// (opname/category), predicates calling user functions, reading globals and
// maps, using `||` across static and dynamic parts, and `!`.
var enabled: bool = true;
var seen: map<u32, u32>;
fn is_even(x: i32) -> bool { return x % 2 == 0; }
// static only: attaches to one site
wasm:opcode:call:before / fid == 5 && pc == 13 / { println("static: call at pc {}", pc); }
// dynamic only
wasm:opcode:br_if(arg0: i32):before / arg0 == 0 / { println("dynamic: br_if falls through at pc {}", pc); }
// mixed: the static part selects the site, the dynamic part is tested there
wasm:opcode:br_table(arg0: i32):before / fname == "classify" && arg0 >= 3 / { println("mixed: br_table index {} target {}", arg0, target); }
// folded per event: only the i64 ops of the glob get a probe
wasm:opcode:i??.mul|i??.add:before / opname.starts_with("i64") / { println("folded: {} in {}", opname, fname); }
// predicate with a function, a global and a map (all dynamic); the type
// bound excludes the call of `wide`, whose last argument is an f64, at match
// time (docs/whamm-backend.md, type guards)
wasm:opcode:call(arg0: i32):before / enabled && is_even(arg0) && seen[pc] < 2 / {
    seen[pc]++;
    println("fn pred: arg0 {} at pc {}", arg0, pc);
}
// `||` of static and dynamic parts, and `!`
wasm:opcode:call_indirect(arg0: i32, arg1: i32):before / !(pc == 35) || arg1 == 99 / { println("or/not: call_indirect at {} table idx {}", pc, arg0); }
// a static predicate false everywhere: no probe at all
wasm:opcode:call:before / fid > 1000 / { println("never"); }
// a constant predicate
wasm:func:entry / 1 + 1 == 2 && fname != "" / { println("entry {}", fname); }
