//! End-to-end tests: every `tests/whamm/NAME.mm` is compiled with the
//! `whamm` binary and run beside `tests/whamm/NAME.wat` (else the file a
//! `// app: FILE` line of the script names, else `calls.wat`) with `wizeng --monitors=`
//! (plus the monitor libraries of `// lib: NAME=FILE` lines, also given to
//! `whamm build --lib`), in every mode of `WIZENG_MODES`
//! (default `int,jit`: the interpreter and the JIT). In every mode stdout
//! must equal `NAME.stdout` (`BLESS=1` rewrites it from the first mode) and
//! the exit status must be 0; the tiers must also agree with each other
//! (same stdout, same exit status), which is reported separately so an
//! engine tier difference is not mistaken for a stale snapshot.
//!
//! The shipped `examples/*.mm` run the same way beside
//! `tests/monitors/app.wat`, with snapshots `tests/whamm/example-NAME.stdout`.
//!
//! The engine binary is `$WIZENG`, else `target/<profile>/wizeng`, built on
//! demand with `cargo build -p wizeng`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/whamm")
}

fn wizeng() -> PathBuf {
    if let Some(p) = std::env::var_os("WIZENG") {
        return PathBuf::from(p);
    }
    // target/<profile>/deps/whamm-xxxx -> target/<profile>/wizeng
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let bin = profile_dir.join("wizeng");
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "-p", "wizeng", "--bin", "wizeng"]);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let st = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo build -p wizeng");
        assert!(st.success(), "building wizeng failed");
    }
    bin
}

#[test]
fn end_to_end() {
    let bless = std::env::var_os("BLESS").is_some();
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int,jit".into());
    let engine = wizeng();
    let whamm = env!("CARGO_BIN_EXE_whamm");
    let tmp = std::env::temp_dir().join(format!("whamm-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let scripts_in = |d: &Path| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mm"))
            .collect();
        v.sort();
        v
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // (script, name, snapshot, app if fixed)
    let mut scripts: Vec<(PathBuf, String, PathBuf, Option<PathBuf>)> = scripts_in(&dir())
        .into_iter()
        .map(|mm| {
            let stem = mm.file_stem().unwrap().to_string_lossy().to_string();
            let snap = mm.with_extension("stdout");
            (mm, stem, snap, None)
        })
        .collect();
    assert!(scripts.len() >= 3);
    for mm in scripts_in(&repo.join("examples")) {
        let stem = format!("example-{}", mm.file_stem().unwrap().to_string_lossy());
        let snap = dir().join(format!("{stem}.stdout"));
        let app = repo.join("tests/monitors/app.wat");
        scripts.push((mm, stem, snap, Some(app)));
    }
    let mut failures = vec![];
    for (mm, stem, snap, fixed_app) in &scripts {
        let wasm = tmp.join(format!("{stem}.wasm"));
        let src = std::fs::read_to_string(mm).unwrap();
        // Monitor libraries: `// lib: NAME=FILE` lines (FILE's base name must
        // be NAME: wizeng links `+FILE` under that module name).
        let libs: Vec<(String, PathBuf)> = src
            .lines()
            .filter_map(|l| l.trim().strip_prefix("// lib:"))
            .filter_map(|l| l.trim().split_once('='))
            .map(|(n, f)| (n.trim().to_string(), dir().join(f.trim())))
            .collect();
        let mut cmd = Command::new(whamm);
        cmd.args(["build", mm.to_str().unwrap(), "-o", wasm.to_str().unwrap()]);
        for (n, f) in &libs {
            cmd.arg(format!("--lib={n}={}", f.display()));
        }
        let o = cmd.output().unwrap();
        if !o.status.success() {
            failures.push(format!(
                "{stem}: whamm build failed:\n{}",
                String::from_utf8_lossy(&o.stderr)
            ));
            continue;
        }
        // The app: `NAME.wat`, else the file named by a `// app: FILE` line of
        // the script, else `calls.wat`.
        let named = src.lines().find_map(|l| {
            l.trim()
                .strip_prefix("// app:")
                .map(|f| dir().join(f.trim()))
        });
        let app = if let Some(a) = fixed_app {
            a.clone()
        } else if mm.with_extension("wat").exists() {
            mm.with_extension("wat")
        } else {
            named.unwrap_or_else(|| dir().join("calls.wat"))
        };
        let mut first: Option<(String, Option<i32>, String)> = None;
        for mode in modes.split(',').filter(|m| !m.is_empty()) {
            let o = Command::new(&engine)
                .arg(format!("--mode={mode}"))
                .arg(format!(
                    "--monitors={}{}",
                    wasm.display(),
                    libs.iter()
                        .map(|(_, f)| format!("+{}", f.display()))
                        .collect::<String>()
                ))
                .arg(&app)
                .output()
                .unwrap();
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
                    std::fs::write(snap, &out).unwrap();
                }
                continue;
            }
            let expected = std::fs::read_to_string(snap).unwrap_or_default();
            if expected != out {
                failures.push(format!("{stem} [{mode}]: stdout differs from {} (BLESS=1 to update)\n--- expected\n{expected}\n--- actual\n{out}", snap.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
