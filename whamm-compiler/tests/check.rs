//! Snapshot tests: every `tests/check/*.mm` is run through the front end and
//! its rendered diagnostics are compared with the `.stderr` file beside it.
//! `BLESS=1 cargo test -p whamm-compiler --test check` rewrites the
//! snapshots. Files named `ok_*` must produce no error, `err_*` at least one.

use std::path::{Path, PathBuf};
use whamm_compiler::catalog::default_catalog;
use whamm_compiler::diag::render;
use whamm_compiler::front_end;

fn check_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check")
}

fn scripts() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(check_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mm"))
        .collect();
    v.sort();
    v
}

#[test]
fn snapshots() {
    let bless = std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0");
    let cat = default_catalog();
    let mut failures = vec![];
    let files = scripts();
    assert!(
        files.len() >= 10,
        "expected test scripts in {}",
        check_dir().display()
    );
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let name = format!(
            "tests/check/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let fe = front_end(&src, cat.as_ref());
        let actual = render(&name, &src, &fe.diags);
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if stem.starts_with("ok_") && fe.has_errors() {
            failures.push(format!("{name}: expected no errors, got:\n{actual}"));
        }
        if stem.starts_with("err_") && !fe.has_errors() {
            failures.push(format!("{name}: expected errors, got none"));
        }
        let snap = path.with_extension("stderr");
        if bless {
            std::fs::write(&snap, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&snap).unwrap_or_default();
        if expected != actual {
            failures.push(format!("{name}: diagnostics differ from {} (BLESS=1 to update)\n--- expected\n{expected}\n--- actual\n{actual}", snap.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The CLI: exit status 0 for ok scripts, 1 for errors, and `info` lists events.
#[test]
fn cli_exit_codes() {
    let bin = env!("CARGO_BIN_EXE_whamm");
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let dir = check_dir();
    let ok = dir.join("ok_call_graph.mm");
    let bad = dir.join("err_many.mm");
    let o = run(&["check", ok.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("err_many.mm:8:"), "{err}");
    let o = run(&[
        "build",
        dir.join("ok_statements.mm").to_str().unwrap(),
        "-o",
        "/dev/null",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&["build", bad.to_str().unwrap(), "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["check", "/nonexistent/x.mm"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["info", "--spec", "wasm:opcode:br*:before"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("wasm:opcode:br_table")
            && out.contains("num_targets")
            && out.contains("static"),
        "{out}"
    );
    let o = run(&["info", "--spec", "wasm:nosuch"]);
    assert_eq!(o.status.code(), Some(1));
}

// ---------------------------------------------------------------------------
// Robustness: thousands of mutated / truncated scripts must never panic.

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const SNIPPETS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ":",
    "/",
    "*",
    "\"",
    "\\",
    "-",
    "--",
    "++",
    "as",
    "map<",
    ">>",
    "@static",
    "fn",
    "var",
    "report",
    "wasm:opcode:",
    "|",
    "?",
    "0x",
    "1e",
    "/*",
    "*/",
    "//",
    "\n",
    "elif",
    "else",
    "for (",
    "while",
    ".0",
    "u32",
    "(u32, str)",
    "\u{e9}",
    "\0",
    "99999999999999999999999",
    "-",
    "return",
    "break",
    "wasm:",
    "(arg0: i32)",
    "[!a-",
    "'",
    "\\u{",
    "println(\"{}\", ",
    "inf",
    "NaN",
];

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut s: Vec<char> = src.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let len = s.len();
        match rng.below(6) {
            0 => s.truncate(rng.below(len + 1)),
            1 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(20)).min(len);
                s.drain(a..b);
            }
            2 => {
                let at = rng.below(len + 1);
                let snip: Vec<char> = SNIPPETS[rng.below(SNIPPETS.len())].chars().collect();
                s.splice(at..at, snip);
            }
            3 if len > 1 => {
                let (a, b) = (rng.below(len), rng.below(len));
                s.swap(a, b);
            }
            4 if len > 0 => {
                let a = rng.below(len);
                let b = (a + rng.below(40)).min(len);
                let dup: Vec<char> = s[a..b].to_vec();
                s.splice(a..a, dup);
            }
            _ => {
                let at = rng.below(len + 1);
                s.insert(at, (rng.below(95) as u8 + 32) as char);
            }
        }
    }
    s.into_iter().collect()
}

#[test]
fn mutated_scripts_never_panic() {
    let start = std::time::Instant::now();
    let cat = default_catalog();
    let sources: Vec<String> = scripts()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut n = 0;
    'outer: for round in 0..200 {
        for src in &sources {
            let m = mutate(&mut rng, src);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let fe = front_end(&m, cat.as_ref());
                let _ = render("fuzz.mm", &m, &fe.diags);
            }));
            assert!(r.is_ok(), "front end panicked on input:\n{m}");
            n += 1;
            // keep the test bounded on slow machines
            if n >= 3000 || (round > 5 && start.elapsed().as_millis() > 2500) {
                break 'outer;
            }
        }
    }
    assert!(n >= 100, "only {n} inputs in the time budget");
    eprintln!("{n} mutated scripts in {:?}", start.elapsed());
}
