//! `cargo +nightly fuzz run front_end` (from whamm-compiler/): the front end
//! and the diagnostic renderer must not panic on any input.
#![no_main]
use libfuzzer_sys::fuzz_target;
use whamm_compiler::catalog::AbiCatalog;

thread_local! {
    // Built once: the catalogue is the same for every input.
    static CAT: AbiCatalog = AbiCatalog::engine();
}

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    CAT.with(|cat| {
        let fe = whamm_compiler::front_end(&src, cat);
        let _ = whamm_compiler::diag::render("fuzz.mm", &src, &fe.diags);
    });
});
