//! Standalone woven modules (`wizeng --emit-woven`): for each case of
//! `tests/standalone/cases.txt`, the app with its monitors woven in and merged
//! into one module must validate, import nothing but WASI, and print exactly
//! what the app with `--monitors` prints (same exit status), when run with no
//! monitors in each listed tier.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Exit status and stdout; stderr is returned separately for messages.
fn wizeng(cwd: &Path, args: &[String]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run wizeng");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Case {
    dir: PathBuf,
    /// Options, then the app and its arguments.
    args: Vec<String>,
    tiers: Vec<String>,
}

fn cases() -> Vec<Case> {
    let root = repo_root();
    let text = std::fs::read_to_string(root.join("tests/standalone/cases.txt")).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            Case {
                dir: root.join(f[0]),
                args: f[1].split_whitespace().map(String::from).collect(),
                tiers: f
                    .get(2)
                    .unwrap_or(&"int,jit")
                    .split(',')
                    .map(String::from)
                    .collect(),
            }
        })
        .collect()
}

/// Split case args at the app: (options, app and its args).
fn split_at_app(args: &[String]) -> (Vec<String>, Vec<String>) {
    let i = args.iter().position(|a| !a.starts_with("--")).unwrap();
    (args[..i].to_vec(), args[i..].to_vec())
}

/// Every import of the merged module is a WASI function.
fn check_imports(bytes: &[u8]) -> Result<(), String> {
    for p in wasmparser::Parser::new(0).parse_all(bytes) {
        if let wasmparser::Payload::ImportSection(r) = p.map_err(|e| e.to_string())? {
            for i in r {
                let i = i.map_err(|e| e.to_string())?;
                if i.module != "wasi_snapshot_preview1" {
                    return Err(format!("imports {}.{}", i.module, i.name));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn standalone_woven_modules_print_what_the_monitored_app_prints() {
    let cases = cases();
    assert!(
        cases.len() >= 20,
        "expected the cases of tests/standalone/cases.txt"
    );
    let tmp = std::env::temp_dir().join(format!("wizeng-standalone-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failed = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let name = format!("{} {}", case.dir.display(), case.args.join(" "));
        let mut reference = vec!["--mode=jit".to_string()];
        reference.extend(case.args.iter().cloned());
        let (code, want, err) = wizeng(&case.dir, &reference);
        assert!(
            code.is_some() && err.is_empty(),
            "{name}: the reference run failed: {code:?} {err}"
        );
        let out = tmp.join(format!("case{n}.wasm"));
        let (opts, app) = split_at_app(&case.args);
        let mut emit = vec![format!("--emit-woven={}", out.display())];
        emit.extend(opts);
        emit.push(app[0].clone());
        let (c, o, e) = wizeng(&case.dir, &emit);
        if c != Some(0) || !o.is_empty() {
            println!("FAIL {name}: --emit-woven exited {c:?}: {e}");
            failed.push(name);
            continue;
        }
        let bytes = std::fs::read(&out).unwrap();
        if let Err(e) =
            wasmparser::Validator::new_with_features(wizeng::module::supported_features())
                .validate_all(&bytes)
        {
            println!("FAIL {name}: the merged module does not validate: {e}");
            failed.push(name);
            continue;
        }
        if let Err(e) = check_imports(&bytes) {
            println!("FAIL {name}: the merged module {e}");
            failed.push(name);
            continue;
        }
        for tier in &case.tiers {
            let mut run = vec![format!("--mode={tier}"), out.display().to_string()];
            run.extend(app[1..].iter().cloned());
            let got = wizeng(&case.dir, &run);
            if (got.0, &got.1) != (code, &want) {
                println!(
                    "FAIL {name} [{tier}]\n--- expected (exit {code:?})\n{want}--- got (exit {:?})\n{}--- stderr\n{}",
                    got.0, got.1, got.2
                );
                failed.push(format!("{name} [{tier}]"));
            } else {
                println!("ok   {name} [{tier}]");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        failed.is_empty(),
        "{} case(s) failed: {failed:#?}",
        failed.len()
    );
}

/// Monitors that need the engine at run time cannot be merged: a clear error
/// (exit 125, the load/unsupported status), and no file.
#[test]
fn frame_probes_are_refused() {
    let root = repo_root();
    let dir = root.join("tests/monitors/frame_param");
    let out = std::env::temp_dir().join(format!(
        "wizeng-standalone-frame-{}.wasm",
        std::process::id()
    ));
    let args = [
        format!("--emit-woven={}", out.display()),
        "--monitors=monitor.wat".to_string(),
        "../app.wat".to_string(),
    ];
    let (code, stdout, stderr) = wizeng(&dir, &args);
    assert_eq!(code, Some(125), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("standalone woven module: probes that take `frame`"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// `--emit-woven` without `--monitors` is a usage error.
#[test]
fn emit_woven_needs_monitors() {
    let root = repo_root();
    let args = [
        "--emit-woven=/dev/null".to_string(),
        "tests/programs/sort.wasm".to_string(),
    ];
    let (code, _, stderr) = wizeng(&root, &args);
    assert_eq!(code, Some(2), "{stderr}");
}
