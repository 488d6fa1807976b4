// app: probe_numbers.wat
// Where a branch lands (docs/probe-language.md, "Differences from whamm"):
// the engine fires a `loop`'s `before` probes at every arrival and an
// `end`'s when a branch to its block lands there, as Wizard does (upstream
// whamm's `wei` target on Wizard reports these rows with these counts).
// Upstream's rewriting target runs the code it inserts before the
// instruction only when control falls into it: there the loop at +5 counts
// 1 (its entry, here 3: and 2 back edges), the block's `end` at +29 0 (here
// 1: the `br_if` out of the loop), and the `if`'s `end` at +40 0 (here 1:
// the false condition jumps to it).
wasm:opcode:loop|end:before {
    report var count: u32;
    count++;
}
