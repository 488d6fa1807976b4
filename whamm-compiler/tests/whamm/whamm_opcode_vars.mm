// app: calls.wat
// lib: mylib=mylib.wat
// whamm's per-opcode constants: `bytecode` (the opcode's bytes as a
// number) and its categories (`category_name`, `category_id`); `@init`
// statements are whamm's spelling of a call at probe initialization (a
// `@static` call in a probe; an ordinary call at the top level).
use mylib;
@init mylib.tick();

wasm:opcode:*:before {
    @init mylib.tick();
    report unshared var code: u16 = bytecode;
    report unshared var cat: str = category_name;
    report unshared var cat_id: u32 = category_id;
}

wasm:end {
    println("ticks: {}", mylib.ticks());
}
