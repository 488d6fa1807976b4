//! `cargo +nightly fuzz run front_end` (from whamm-compiler/): the front end
//! and the diagnostic renderer must not panic on any input.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let cat = whamm_compiler::catalog::default_catalog();
    let fe = whamm_compiler::front_end(&src, cat.as_ref());
    let _ = whamm_compiler::diag::render("fuzz.mm", &src, &fe.diags);
});
