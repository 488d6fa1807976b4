// app: probe_numbers.wat
// The number before `_` in a report row's `probe_id` is upstream whamm's:
// per script, every (package, event, mode) a rule expands to, in the order
// of upstream's event definitions (whamm-compiler/src/numbering.rs), and
// the rule after it as upstream's rewriting target prints it. Checked
// against upstream whamm (c461d20) on this app: its `wei` target on Wizard
// gives every row here the same number; its rewriting target (which has no
// `wasm:begin`: one less) the same rule texts.

// 0
wasm:begin { }

// 1, printed `wasm:func:entry:<no-mode>`
wasm:func:entry {
    report var entries: u32;
    entries++;
}

// upstream defines `call` (2) before `select` (3) and `local.get` (4)
wasm:opcode:local.get|call|select:before {
    report var n: u32;
    n++;
}

// an empty package part is `*`: `if` 5, `br_if` 6
wasm::*if:before {
    report var conds: u32;
    conds++;
}

// `block` 7, `loop` 8: a rule's `after` of a block is upstream's
// `semantic_after`, and printed so
wasm:opcode:block|loop:after {
    report var entered: u32;
    entered++;
}

// `end`: in upstream's mode order, `before` 9, then `after` 10
wasm:opcode:end:after|before {
    report var ends: u32;
    ends++;
}
