//! Back-end tests.
//!
//! * `snapshots`: every `tests/build/*.mm` is compiled (files named
//!   `*portable*` with `--portable`). `ok_*` must build; the emitted module is
//!   validated and its imports and exports are compared with `NAME.exports`.
//!   `err_*` must fail; the rendered diagnostics are compared with
//!   `NAME.stderr`. `BLESS=1` rewrites the snapshots.
//! * every module any test script compiles to is validated with wasmparser;
//! * a `--portable` module imports nothing outside monitor ABI Part A;
//! * a generated 300-probe script covering every opcode builds (the time is
//!   printed; see scripts/bench-whamm.sh for timing).

use std::path::{Path, PathBuf};
use whamm_compiler::codegen::Options;
use whamm_compiler::diag::render;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn files(sub: &str, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "mm")
                && p.file_name().unwrap().to_string_lossy().starts_with(prefix)
        })
        .collect();
    v.sort();
    v
}

/// Build options for a script: `--portable`, and the monitor libraries its
/// `// lib: NAME=FILE` lines name (FILE relative to the script).
fn options(path: &Path, src: &str, portable: bool) -> Options {
    let mut libs = whamm_compiler::libs::Libs::new();
    for l in src.lines().filter_map(|l| l.trim().strip_prefix("// lib:")) {
        let (name, file) = l.trim().split_once('=').expect("// lib: NAME=FILE");
        let bytes = std::fs::read(path.parent().unwrap().join(file.trim())).unwrap();
        let sigs = whamm_compiler::libs::read_library(&bytes).unwrap();
        libs.insert(name.trim().to_string(), sigs);
    }
    Options {
        portable,
        libs,
        ..Default::default()
    }
}

fn validate(bytes: &[u8]) {
    let features = whamm_compiler::wasm::features();
    if let Err(e) = wasmparser::Validator::new_with_features(features).validate_all(bytes) {
        panic!("invalid module: {e}");
    }
}

fn imports_exports(bytes: &[u8]) -> (Vec<(String, String)>, Vec<String>) {
    let mut imps = vec![];
    let mut exps = vec![];
    for p in wasmparser::Parser::new(0).parse_all(bytes) {
        match p.unwrap() {
            wasmparser::Payload::ImportSection(r) => {
                for i in r {
                    let i = i.unwrap();
                    imps.push((i.module.to_string(), i.name.to_string()));
                }
            }
            wasmparser::Payload::ExportSection(r) => {
                for e in r {
                    let e = e.unwrap();
                    exps.push(format!("{:?} {:?}", e.kind, e.name));
                }
            }
            _ => {}
        }
    }
    (imps, exps)
}

#[test]
fn snapshots() {
    let bless = std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0");
    let mut failures = vec![];
    let all = files("tests/build", "");
    assert!(all.len() >= 8);
    for path in all {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        let opts = options(&path, &src, stem.contains("portable"));
        let name = format!("tests/build/{stem}.mm");
        let (snap, actual) = match whamm_compiler::build(&src, &opts) {
            Ok((bytes, _)) => {
                if !stem.starts_with("ok_") {
                    failures.push(format!("{name}: expected errors, got a module"));
                    continue;
                }
                validate(&bytes);
                let (imps, exps) = imports_exports(&bytes);
                let mut s = String::new();
                for (m, n) in imps {
                    s.push_str(&format!("import {m}.{n}\n"));
                }
                for e in exps {
                    s.push_str(&format!("export {e}\n"));
                }
                (path.with_extension("exports"), s)
            }
            Err(diags) => {
                let r = render(&name, &src, &diags);
                if !stem.starts_with("err_") {
                    failures.push(format!("{name}: expected a module, got:\n{r}"));
                    continue;
                }
                (path.with_extension("stderr"), r)
            }
        };
        if bless {
            std::fs::write(&snap, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&snap).unwrap_or_default();
        if expected != actual {
            failures.push(format!("{name}: differs from {} (BLESS=1 to update)\n--- expected\n{expected}\n--- actual\n{actual}", snap.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every script of every test directory that compiles yields a valid module.
#[test]
fn every_output_validates() {
    let mut n = 0;
    for (sub, prefix) in [
        ("tests/check", "ok_"),
        ("tests/build", "ok_"),
        ("tests/whamm", ""),
    ] {
        for path in files(sub, prefix) {
            let src = std::fs::read_to_string(&path).unwrap();
            for portable in [false, true] {
                if let Ok((bytes, _)) = whamm_compiler::build(&src, &options(&path, &src, portable))
                {
                    validate(&bytes);
                    n += 1;
                }
            }
        }
    }
    assert!(n >= 20, "only {n} modules built");
}

#[test]
fn portable_imports_only_part_a() {
    let mut n = 0;
    for (sub, prefix) in [
        ("tests/check", "ok_"),
        ("tests/build", "ok_"),
        ("tests/whamm", ""),
    ] {
        for path in files(sub, prefix) {
            let src = std::fs::read_to_string(&path).unwrap();
            let Ok((bytes, _)) = whamm_compiler::build(&src, &options(&path, &src, true)) else {
                continue;
            };
            let (imps, exps) = imports_exports(&bytes);
            for (m, name) in imps {
                assert!(
                    monitor_abi::imports::is_provided_module(&m) || m != "wizeng:frame_accessor"
                );
                assert!(
                    monitor_abi::imports::is_portable_import(&m, &name),
                    "{}: imports {m}.{name}",
                    path.display()
                );
            }
            for e in exps {
                assert!(
                    !e.contains("wasm:begin") && !e.contains(":after"),
                    "{}: exports {e} (Part B)",
                    path.display()
                );
            }
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} portable modules");
    // Part B constructs are errors with a span under --portable.
    for src in [
        "wasm:begin { println(\"x\"); }",
        "wasm:opcode:call(res0: i32):after { }",
    ] {
        let portable = Options {
            portable: true,
            ..Options::default()
        };
        let Err(d) = whamm_compiler::build(src, &portable) else {
            panic!("{src}: expected an error")
        };
        assert!(
            d.iter().any(|d| d.is_error() && d.span.hi > d.span.lo),
            "{src}: {d:?}"
        );
        assert!(
            whamm_compiler::build(src, &Options::default()).is_ok(),
            "{src}"
        );
    }
}

/// A 300-probe script (covering every opcode with one extra `*` probe)
/// builds into a valid module with a probe export per rule (the `*` rule's
/// body is the same for every opcode: one `wasm:opcode:*` export). Its speed ("well
/// under a second") is measured by `scripts/bench-whamm.sh`, not asserted
/// here (the build time is printed with --nocapture).
#[test]
fn compile_300_probes() {
    let ops: Vec<&str> = monitor_abi::Opcode::all().map(|o| o.event_name()).collect();
    let mut src = String::from("report var hits: map<u32, u64>;\nvar total: u64;\n");
    for i in 0..299 {
        let op = ops[i % ops.len()];
        src.push_str(&format!(
            "wasm:opcode:{op}:before / fid != {i} / {{ hits[{i}]++; total++; }}\n"
        ));
    }
    src.push_str("wasm:opcode:*:before { total = total + 1; }\n");
    let t = std::time::Instant::now();
    let (bytes, _) = whamm_compiler::build(&src, &Options::default())
        .unwrap_or_else(|d| panic!("{:?}", d.first()));
    let el = t.elapsed();
    validate(&bytes);
    let (_, exps) = imports_exports(&bytes);
    println!(
        "300 probes, {} opcodes: {} exports, {} bytes, built in {:?}",
        ops.len(),
        exps.len(),
        bytes.len(),
        el
    );
    let probes: Vec<&String> = exps
        .iter()
        .filter(|e| e.contains("\"wasm:opcode:"))
        .collect();
    assert_eq!(probes.len(), 300, "{probes:?}");
    assert_eq!(
        probes
            .iter()
            .filter(|e| e.contains("\"wasm:opcode:*"))
            .count(),
        1
    );
}

/// The probe exports of a script's module.
fn probe_exports(src: &str, opts: &Options) -> Vec<String> {
    let (bytes, _) = whamm_compiler::build(src, opts).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    validate(&bytes);
    let (_, exps) = imports_exports(&bytes);
    exps.into_iter()
        .filter(|e| e.contains("\"wasm:opcode:"))
        .collect()
}

/// A `wasm:opcode:*` probe is one export where its code is the same for
/// every opcode up to match-time constants, else one export per opcode
/// (docs/whamm-backend.md, `codegen/star.rs`).
#[test]
fn star_export_or_one_per_opcode() {
    let n = monitor_abi::Opcode::all().count();
    let count = "report unshared var c: u64; c++;";
    let portable = Options {
        portable: true,
        ..Options::default()
    };
    let per_opcode = Options {
        per_opcode: true,
        ..Options::default()
    };
    let d = Options::default();
    for (body, opts, want) in [
        (format!("wasm:opcode:*:before {{ {count} }}"), &d, 1),
        (format!("wasm:opcode:*:after {{ {count} }}"), &d, 1),
        // per-opcode constants read at match time only
        (
            format!("wasm:opcode:*:before / opname != \"nop\" || fid == 1 / {{ {count} }}"),
            &d,
            1,
        ),
        (
            "wasm:opcode:*:before { report unshared var k: u32 = category_id; }".into(),
            &d,
            1,
        ),
        // no site state: Part A suffices
        (
            "var t: u64; wasm:opcode:*:before { t++; }".into(),
            &portable,
            1,
        ),
        // the allocator needs the Part B `opcode`
        (format!("wasm:opcode:*:before {{ {count} }}"), &portable, n),
        // a body reading a per-opcode constant keeps it folded
        (
            "var t: u64; wasm:opcode:*:before { if (opname == \"nop\") { t++; } }".into(),
            &d,
            n,
        ),
        // a predicate false for one opcode at compile time
        (
            format!("wasm:opcode:*:before / opname != \"nop\" / {{ {count} }}"),
            &d,
            n - 1,
        ),
        (
            format!("wasm:opcode:*:before {{ {count} }}"),
            &per_opcode,
            n,
        ),
    ] {
        let got = probe_exports(&body, opts);
        assert_eq!(got.len(), want, "{body}: {got:?}");
        let stars = got.iter().filter(|e| e.contains("\"wasm:opcode:*")).count();
        assert_eq!(stars, usize::from(want == 1), "{body}: {got:?}");
    }
    // operands differ by opcode: never one export
    let got = probe_exports(
        "var t: u64; wasm:opcode:*:before(arg0: i32) { t = t + (arg0 as u64); }",
        &d,
    );
    assert!(
        got.len() > 1 && got.iter().all(|e| !e.contains("opcode:*")),
        "{got:?}"
    );
}

#[test]
fn cli_emit_wat() {
    let bin = env!("CARGO_BIN_EXE_whamm");
    let f = root().join("tests/build/ok_counter.mm");
    let o = std::process::Command::new(bin)
        .args(["build", f.to_str().unwrap(), "--emit-wat", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let wat = String::from_utf8_lossy(&o.stdout);
    assert!(wat.starts_with("(module"), "{wat}");
    assert!(wat.contains("(export \"wasm:exit\""), "{wat}");
}
