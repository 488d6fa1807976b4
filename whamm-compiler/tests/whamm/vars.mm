// app: rich.wat
// Variable kinds: globals (declared before and after probes, initialized by
// top-level statements), `report` globals, per-site `unshared`/`report`
// variables (one instance per matched site, initialized at match time from
// static bound variables), probe locals re-initialized on every firing,
// block scoping and shadowing; legacy `T x = e;` declarations.
var calls: u32 = 100;
calls = calls + 1;
if (calls > 100) { calls = calls * 2; } else { calls = 0; }
i32 legacy = -3;
report u64 legacy_report = 5;
wasm:opcode:call|call_indirect:before {
    unshared var n: u32;
    unshared var first_pc: u32 = pc;
    report var hits: u32;
    var local_count: u32;          // re-initialized on every firing
    var with_init: i32 = 10;
    local_count++;
    with_init = with_init + 1;
    n++; hits++; calls++; after_probes++;
    if (n == 1) {
        var inner: str = "first";  // block-scoped
        println("{} at fid {} pc {} (first_pc {}) local {} {}", inner, fid, pc, first_pc, local_count, with_init);
    }
    legacy_report = legacy_report + 1;
}
wasm:func:exit / fname == "main" / {
    var calls: str = "shadowed";
    println("{} {} {} {}", calls, after_probes, legacy, legacy_report);
}
wasm:end { println("calls = {}", calls); }
var after_probes: u32 = 1000;   // a global declared after the probes
report var also_report: (u8, bool) = (1, true);
