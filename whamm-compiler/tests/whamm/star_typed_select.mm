// Rules on every opcode whose code is the same for each opcode: one
// `wasm:opcode:*` export each, with one allocator, told the site's opcode
// to find its probe id: the report is what one export per opcode reports.
// `select t` has no event of its own: `*` matches it, and its rows name it
// `typed_select`, as whamm's do.

wasm:opcode:*:before {
    report unshared var count: u32;
    count++;
}

// At a `select`, after the rule above (script order).
wasm:opcode:select:before {
    report unshared var selects: u32;
    selects++;
}

wasm:opcode:*:after / fid == 0 / {
    report unshared var done: u32;
    done++;
}
