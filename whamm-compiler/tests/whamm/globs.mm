// app: rich.wat
// Every glob form in rules (L3): `*`, `?`, `[...]`, `[!...]`, `[a-z]`,
// alternatives `|`, an empty part (= `*`), case-insensitive matching, globs
// in the provider/package parts; each probe counts the opcodes it saw.
var star: map<str, u32>;
var qmark: map<str, u32>;
var cls: map<str, u32>;
var neg: map<str, u32>;
var alts: map<str, u32>;
var empty: map<str, u32>;
var upper: map<str, u32>;
var pkg: map<str, u32>;
wasm:opcode:*.store*:before { star[opname]++; }
wasm:opcode:i??.load:before { qmark[opname]++; }
wasm:opcode:[fi]64.[lm]*:before { cls[opname]++; }
wasm:opcode:[!ilfgcdnbsmr]*:before { neg[opname]++; }
wasm:opcode:call|call_indirect|br_table|memory.grow:before { alts[opname]++; }
wasm::br_if:before { empty[opname]++; }
WASM:OPCODE:I32.ADD|Select:BEFORE { upper[opname]++; }
w*:op?ode:global.*:before { pkg[opname]++; }
wasm:func:entr? { pkg["func:entry"]++; }
wasm:f*:exit { pkg["func:exit"]++; }
wasm:end {
    println("star {}", star);
    println("qmark {}", qmark);
    println("class {}", cls);
    println("negated {}", neg);
    println("alts {}", alts);
    println("empty part {}", empty);
    println("upper {}", upper);
    println("parts {}", pkg);
}
