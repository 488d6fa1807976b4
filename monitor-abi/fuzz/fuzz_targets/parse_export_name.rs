//! Parses arbitrary strings as export names: never panics, successful parses
//! round-trip through the canonical printer, errors have an in-range column.
//!
//! Run: `cd monitor-abi/fuzz && cargo +nightly fuzz run parse_export_name`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use monitor_abi::pattern::{parse_export_name, parse_pattern, render_caret, ExportMeaning};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    for name in [s.to_string(), format!("wasm:{s}")] {
        match parse_export_name(&name) {
            Ok(ExportMeaning::Probe(p)) => {
                let printed = p.to_string();
                assert_eq!(parse_pattern(&printed), Ok(p), "{printed}");
            }
            Ok(m @ (ExportMeaning::Exit | ExportMeaning::Begin)) => {
                assert_eq!(parse_export_name(&m.to_string()), Ok(m));
            }
            Ok(ExportMeaning::NotProbe) => assert!(!name.starts_with("wasm:")),
            Err(e) => {
                assert!(e.column <= name.len());
                let _ = render_caret(&name, &e);
            }
        }
    }
});
