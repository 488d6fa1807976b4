//! Deeply nested scripts: long generated expressions compile (the compiler
//! must not overflow its stack), and pathological nesting beyond the
//! compiler's limit is a diagnostic with a source span, not a crash.
//!
//! Every case runs through the library (`front_end`, `build`) on the test
//! thread's default stack, and through the `whamm` binary (`check`, `build`).

use std::path::PathBuf;
use std::process::Command;
use whamm_compiler::catalog::default_catalog;
use whamm_compiler::codegen::Options;
use whamm_compiler::diag::render;

const TERMS: usize = 5000;

fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

/// `x = 1 + (1 + (1 + ...))`: nesting through parentheses.
fn right_nested(n: usize) -> String {
    format!("{}1{}", "1 + (".repeat(n - 1), ")".repeat(n - 1))
}

/// Scripts that must compile.
fn ok_scripts() -> Vec<(&'static str, String)> {
    let body = |e: String| format!("var x: i32;\nwasm:opcode:call:before {{ x = {e}; }}\n");
    let pred = format!(
        "var x: i32;\nwasm:opcode:call:before / {} / {{ x++; }}\n",
        chain("fid != 1", " && ", TERMS)
    );
    vec![
        ("sum of literals", body(chain("1", " + ", TERMS))),
        ("sum of variables", body(chain("x", " + ", TERMS))),
        (
            "mixed sum",
            body(format!("x + {}", chain("1", " + ", TERMS))),
        ),
        ("nested parentheses", body(right_nested(TERMS))),
        (
            "redundant parentheses",
            body(format!("{}x{}", "(".repeat(TERMS), ")".repeat(TERMS))),
        ),
        (
            "&& chain",
            format!(
                "var b: bool;\nwasm:opcode:call:before {{ b = {}; }}\n",
                chain("b", " && ", TERMS)
            ),
        ),
        ("predicate && chain", pred),
        (
            "nested blocks",
            format!(
                "var x: i32;\nwasm:opcode:call:before {{ {} x++; {} }}\n",
                "if x == 0 { ".repeat(1000),
                "}".repeat(1000)
            ),
        ),
    ]
}

fn tmp_file(name: &str, src: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whamm-nesting-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, src).unwrap();
    p
}

fn whamm(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_whamm"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn long_expressions_compile_in_the_library() {
    let cat = default_catalog();
    for (what, src) in ok_scripts() {
        let fe = whamm_compiler::front_end(&src, cat.as_ref());
        assert!(
            !fe.has_errors(),
            "{what}: {}",
            render("t.mm", &src, &fe.diags)
        );
        match whamm_compiler::build(&src, &Options::default()) {
            Ok((bytes, _)) => assert!(!bytes.is_empty(), "{what}"),
            Err(d) => panic!("{what}: {}", render("t.mm", &src, &d)),
        }
    }
}

#[test]
fn long_expressions_compile_with_the_cli() {
    for (i, (what, src)) in ok_scripts().into_iter().enumerate() {
        let mm = tmp_file(&format!("ok{i}.mm"), &src);
        let wasm = mm.with_extension("wasm");
        let o = whamm(&["check", mm.to_str().unwrap()]);
        assert!(
            o.status.success(),
            "whamm check, {what}: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        let o = whamm(&["build", mm.to_str().unwrap(), "-o", wasm.to_str().unwrap()]);
        assert!(
            o.status.success(),
            "whamm build, {what}: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(std::fs::metadata(&wasm).unwrap().len() > 0, "{what}");
    }
}

/// Scripts nested beyond the limit, and the text the diagnostic points at.
fn too_deep_scripts() -> Vec<(&'static str, String)> {
    let n = whamm_compiler::nesting::MAX_DEPTH + 10;
    vec![
        (
            "nested parentheses",
            format!(
                "var x: i32;\nwasm:opcode:call:before {{ x = {}; }}\n",
                right_nested(n)
            ),
        ),
        (
            "nested negation",
            format!(
                "var b: bool;\nwasm:opcode:call:before {{ b = {}b; }}\n",
                "!".repeat(n)
            ),
        ),
        (
            "nested blocks",
            format!(
                "var x: i32;\nwasm:opcode:call:before {{ {} x++; {} }}\n",
                "if x == 0 { ".repeat(n),
                "}".repeat(n)
            ),
        ),
        (
            "nested types",
            format!("var t: {}u32{};\n", "map<u32, ".repeat(n), ">".repeat(n)),
        ),
    ]
}

fn assert_nesting_diag(what: &str, src: &str, rendered: &str) {
    assert!(
        rendered.contains("nested too deeply"),
        "{what}: expected a nesting diagnostic, got:\n{}",
        &rendered[..rendered.len().min(2000)]
    );
    // Rendered with a source location (file:line:col).
    assert!(rendered.contains("t.mm:"), "{what}: no source span");
    let _ = src;
}

#[test]
fn pathological_nesting_is_a_diagnostic_in_the_library() {
    let cat = default_catalog();
    for (what, src) in too_deep_scripts() {
        let fe = whamm_compiler::front_end(&src, cat.as_ref());
        assert!(fe.has_errors(), "{what}: no error");
        assert_nesting_diag(what, &src, &render("t.mm", &src, &fe.diags));
        match whamm_compiler::build(&src, &Options::default()) {
            Ok(_) => panic!("{what}: built"),
            Err(d) => assert_nesting_diag(what, &src, &render("t.mm", &src, &d)),
        }
    }
}

#[test]
fn pathological_nesting_is_a_diagnostic_with_the_cli() {
    for (i, (what, src)) in too_deep_scripts().into_iter().enumerate() {
        let mm = tmp_file(&format!("t{i}.mm"), &src);
        for cmd in ["check", "build"] {
            let out = mm.with_extension("wasm");
            let mut args = vec![cmd, mm.to_str().unwrap()];
            if cmd == "build" {
                args.extend(["-o", out.to_str().unwrap()]);
            }
            let o = whamm(&args);
            let stderr = String::from_utf8_lossy(&o.stderr).replace(mm.to_str().unwrap(), "t.mm");
            assert_eq!(o.status.code(), Some(1), "whamm {cmd}, {what}: {stderr}");
            assert_nesting_diag(what, &src, &stderr);
        }
    }
}
