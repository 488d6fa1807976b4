//! Differential fuzzing: a `wasm-smith` module from the fuzzer's bytes (SIMD
//! and relaxed SIMD when bit 1 of the first byte is set), run in the
//! interpreter, the JIT and dyn (threshold 2: tier-up and OSR); any difference
//! in results, traps (kind, and function/pc where both tiers report one), host
//! calls, memories, globals or tables aborts (NaN bits excepted, as the spec
//! allows: see the harness). The check is shared with
//! `engine/tests/differential.rs`.
//!
//!     cd engine/fuzz && cargo +nightly fuzz run differential -- -max_total_time=600
#![no_main]

#[path = "../../tests/differential/harness.rs"]
mod harness;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match harness::check(data) {
        Ok(s) => assert!(
            s.site_mismatches.is_empty(),
            "trap sites differ: {:?}",
            s.site_mismatches
        ),
        Err(e) => panic!("tiers differ: {e}"),
    }
});
