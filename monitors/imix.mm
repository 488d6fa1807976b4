// imix: the instruction mix, by category.
//
// One counter per instruction site, as in hotness.mm, with the site's
// category (`category_id`, static) kept beside it; the report adds the
// counts up by category and by opcode.
wasm:opcode:*:before {
    report unshared var category: u32 = category_id;
    report unshared var count: u64;
    count++;
}
