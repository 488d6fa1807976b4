//! End-to-end tests of whamm monitors on this engine: every
//! `whamm-compiler/tests/whamm/NAME.mm` is compiled with the whamm compiler
//! (the `whamm_compiler` library, as `whamm build` does) and run beside
//! `tests/whamm/NAME.wat` (else the file a `// app: FILE` line of the script
//! names, else `calls.wat`) with `wizeng --monitors=` (plus the monitor
//! libraries of `// lib: NAME=FILE` lines, also given to the compiler as
//! `--lib` signatures), in every mode of `WIZENG_MODES` (default `int,jit`:
//! the interpreter and the JIT). In every mode stdout must equal
//! `NAME.stdout` (`BLESS=1` rewrites it from the first mode) and the exit
//! status must be 0; the tiers must also agree with each other (same
//! stdout, same exit status), which is reported separately so an engine
//! tier difference is not mistaken for a stale snapshot.
//!
//! The shipped `examples/*.mm` run the same way beside
//! `tests/monitors/app.wat`, with snapshots
//! `whamm-compiler/tests/whamm/example-NAME.stdout`.
//!
//! `star_form_reports_as_per_opcode`: every script compiled as usual and
//! with `Options::per_opcode` (one export per opcode instead of one
//! `wasm:opcode:*` export where the code is the same for every opcode)
//! prints the same in every mode, up to the addresses in the `id` column of
//! `memaddr` rows and the `typed_select` rows only the `*` export has
//! (`star_typed_select.mm` shows them).
//!
//! The engine is this crate's `wizeng` binary (`CARGO_BIN_EXE_wizeng`):
//! cargo builds the current one before running the test.

use std::path::{Path, PathBuf};
use std::process::Command;
use whamm_compiler::codegen::Options;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn dir() -> PathBuf {
    repo().join("whamm-compiler/tests/whamm")
}

fn scripts_in(d: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mm"))
        .collect();
    v.sort();
    v
}

/// One script to run: the script, its name, its stdout snapshot, and the
/// app if fixed.
struct Case {
    mm: PathBuf,
    stem: String,
    snap: PathBuf,
    fixed_app: Option<PathBuf>,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = scripts_in(&dir())
        .into_iter()
        .map(|mm| Case {
            stem: mm.file_stem().unwrap().to_string_lossy().to_string(),
            snap: mm.with_extension("stdout"),
            mm,
            fixed_app: None,
        })
        .collect();
    assert!(cases.len() >= 3, "expected scripts in {}", dir().display());
    let examples = scripts_in(&repo().join("examples"));
    assert!(!examples.is_empty(), "expected examples/*.mm");
    for mm in examples {
        let stem = format!("example-{}", mm.file_stem().unwrap().to_string_lossy());
        cases.push(Case {
            snap: dir().join(format!("{stem}.stdout")),
            stem,
            mm,
            fixed_app: Some(repo().join("tests/monitors/app.wat")),
        });
    }
    cases
}

/// Compile a script (with the monitor libraries its `// lib: NAME=FILE`
/// lines name; FILE's base name must be NAME: wizeng links `+FILE` under
/// that module name) to `wasm`. Returns the libraries' files.
fn compile(case: &Case, src: &str, wasm: &Path) -> Result<Vec<PathBuf>, String> {
    compile_with(case, src, wasm, Options::default())
}

/// [`compile`] with options (the libraries are added to them).
fn compile_with(
    case: &Case,
    src: &str,
    wasm: &Path,
    mut opts: Options,
) -> Result<Vec<PathBuf>, String> {
    let libs: Vec<(String, PathBuf)> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// lib:"))
        .filter_map(|l| l.trim().split_once('='))
        .map(|(n, f)| (n.trim().to_string(), dir().join(f.trim())))
        .collect();
    for (n, f) in &libs {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let sigs = whamm_compiler::libs::read_library(&bytes)
            .map_err(|e| format!("--lib {n}={}: {e}", f.display()))?;
        opts.libs.insert(n.clone(), sigs);
    }
    match whamm_compiler::build(src, &opts) {
        Ok((bytes, _warnings)) => {
            std::fs::write(wasm, bytes).map_err(|e| e.to_string())?;
            Ok(libs.into_iter().map(|(_, f)| f).collect())
        }
        Err(diags) => Err(whamm_compiler::diag::render(
            &case.mm.display().to_string(),
            src,
            &diags,
        )),
    }
}

/// The app: `NAME.wat`, else the file named by a `// app: FILE` line of
/// the script, else `calls.wat`.
fn app_of(case: &Case, src: &str) -> PathBuf {
    if let Some(a) = &case.fixed_app {
        return a.clone();
    }
    if case.mm.with_extension("wat").exists() {
        return case.mm.with_extension("wat");
    }
    let named = src.lines().find_map(|l| {
        l.trim()
            .strip_prefix("// app:")
            .map(|f| dir().join(f.trim()))
    });
    named.unwrap_or_else(|| dir().join("calls.wat"))
}

fn run_engine(mode: &str, wasm: &Path, libs: &[PathBuf], app: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .arg(format!("--mode={mode}"))
        .arg(format!(
            "--monitors={}{}",
            wasm.display(),
            libs.iter()
                .map(|f| format!("+{}", f.display()))
                .collect::<String>()
        ))
        .arg(app)
        .output()
        .expect("run wizeng")
}

#[test]
fn end_to_end() {
    let bless = std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0");
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int,jit".into());
    let modes: Vec<&str> = modes.split(',').filter(|m| !m.is_empty()).collect();
    assert!(!modes.is_empty(), "WIZENG_MODES names no mode");
    let tmp = std::env::temp_dir().join(format!("whamm-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = vec![];
    for case in cases() {
        let stem = &case.stem;
        let wasm = tmp.join(format!("{stem}.wasm"));
        let src = std::fs::read_to_string(&case.mm).unwrap();
        let libs = match compile(&case, &src, &wasm) {
            Ok(libs) => libs,
            Err(e) => {
                failures.push(format!("{stem}: whamm build failed:\n{e}"));
                continue;
            }
        };
        let app = app_of(&case, &src);
        let mut first: Option<(String, Option<i32>, String)> = None;
        for &mode in &modes {
            let o = run_engine(mode, &wasm, &libs, &app);
            let out = String::from_utf8_lossy(&o.stdout).to_string();
            match &first {
                None => first = Some((mode.to_string(), o.status.code(), out.clone())),
                Some((m0, c0, out0)) => {
                    if *c0 != o.status.code() || *out0 != out {
                        failures.push(format!(
                            "{stem}: tiers differ: [{m0}] exit {c0:?} vs [{mode}] exit {:?}\n--- [{m0}] stdout\n{out0}\n--- [{mode}] stdout\n{out}\n--- [{mode}] stderr\n{}",
                            o.status.code(),
                            String::from_utf8_lossy(&o.stderr)
                        ));
                        continue;
                    }
                }
            }
            if o.status.code() != Some(0) {
                failures.push(format!(
                    "{stem} [{mode}]: exit {:?}\nstderr:\n{}\nstdout:\n{out}",
                    o.status.code(),
                    String::from_utf8_lossy(&o.stderr)
                ));
                continue;
            }
            if bless {
                if first.as_ref().is_some_and(|f| f.0 == mode) {
                    std::fs::write(&case.snap, &out).unwrap();
                }
                continue;
            }
            let expected = std::fs::read_to_string(&case.snap).unwrap_or_default();
            if expected != out {
                failures.push(format!("{stem} [{mode}]: stdout differs from {} (BLESS=1 to update)\n--- expected\n{expected}\n--- actual\n{out}", case.snap.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The function exports of a module that are probes.
fn probe_exports(wasm: &Path) -> Vec<String> {
    let bytes = std::fs::read(wasm).unwrap();
    let mut out = vec![];
    for p in wasmparser::Parser::new(0).parse_all(&bytes) {
        if let Ok(wasmparser::Payload::ExportSection(r)) = p {
            for e in r.into_iter().flatten() {
                if e.name.starts_with("wasm:") && e.name != "wasm:exit" {
                    out.push(e.name.to_string());
                }
            }
        }
    }
    out
}

/// A report with the addresses of `memaddr` rows replaced, and without the
/// rows of `select t` sites (matched by a `wasm:opcode:*` export only).
fn comparable(out: &str) -> String {
    out.lines()
        .filter(|l| !l.contains("_wasm:opcode:typed_select:"))
        .map(|l| match l.split_once(", memaddr, ") {
            Some((id, rest)) if id.bytes().all(|b| b.is_ascii_digit()) => {
                format!("ID, memaddr, {rest}")
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn star_form_reports_as_per_opcode() {
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int,jit".into());
    let modes: Vec<&str> = modes.split(',').filter(|m| !m.is_empty()).collect();
    let tmp = std::env::temp_dir().join(format!("whamm-star-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = vec![];
    let mut starred = vec![];
    for case in cases() {
        let stem = &case.stem;
        let src = std::fs::read_to_string(&case.mm).unwrap();
        let star = tmp.join(format!("{stem}.wasm"));
        let per_op = tmp.join(format!("{stem}-per-opcode.wasm"));
        let per_opcode = Options {
            per_opcode: true,
            ..Options::default()
        };
        let (Ok(libs), Ok(_)) = (
            compile(&case, &src, &star),
            compile_with(&case, &src, &per_op, per_opcode),
        ) else {
            failures.push(format!("{stem}: whamm build failed"));
            continue;
        };
        let (a, b) = (probe_exports(&star), probe_exports(&per_op));
        if a == b {
            continue;
        }
        let stars = a.iter().filter(|e| e.starts_with("wasm:opcode:*")).count();
        if stars == 0 || a.len() >= b.len() {
            failures.push(format!(
                "{stem}: the forms differ without a `*` export: {a:?}"
            ));
        }
        starred.push(stem.clone());
        let app = app_of(&case, &src);
        for &mode in &modes {
            let x = run_engine(mode, &star, &libs, &app);
            let y = run_engine(mode, &per_op, &libs, &app);
            let (ox, oy) = (
                String::from_utf8_lossy(&x.stdout),
                String::from_utf8_lossy(&y.stdout),
            );
            if x.status.code() != y.status.code() || comparable(&ox) != comparable(&oy) {
                failures.push(format!(
                    "{stem} [{mode}]: `*` export vs per opcode: exit {:?} vs {:?}\n--- `*`\n{ox}\n--- per opcode\n{oy}",
                    x.status.code(),
                    y.status.code()
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    // the examples' hotness and the `select t` case at least
    assert!(starred.len() >= 2, "scripts with a `*` export: {starred:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
