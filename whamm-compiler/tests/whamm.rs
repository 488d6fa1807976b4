//! End-to-end tests: every `tests/whamm/NAME.mm` is compiled with the
//! `whamm` binary and run beside `tests/whamm/NAME.wat` (or `calls.wat` when
//! there is none) with `wizeng --monitors=`, in every mode of `WIZENG_MODES`
//! (default `int`). stdout must equal `NAME.stdout` (`BLESS=1` rewrites it);
//! the exit status must be 0.
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
        let st = cmd.current_dir(env!("CARGO_MANIFEST_DIR")).status().expect("cargo build -p wizeng");
        assert!(st.success(), "building wizeng failed");
    }
    bin
}

#[test]
fn end_to_end() {
    let bless = std::env::var_os("BLESS").is_some();
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int".into());
    let engine = wizeng();
    let whamm = env!("CARGO_BIN_EXE_whamm");
    let tmp = std::env::temp_dir().join(format!("whamm-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(dir()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "mm")).collect();
    scripts.sort();
    assert!(scripts.len() >= 3);
    let mut failures = vec![];
    for mm in &scripts {
        let stem = mm.file_stem().unwrap().to_string_lossy().to_string();
        let wasm = tmp.join(format!("{stem}.wasm"));
        let o = Command::new(whamm).args(["build", mm.to_str().unwrap(), "-o", wasm.to_str().unwrap()]).output().unwrap();
        if !o.status.success() {
            failures.push(format!("{stem}: whamm build failed:\n{}", String::from_utf8_lossy(&o.stderr)));
            continue;
        }
        let app = if mm.with_extension("wat").exists() { mm.with_extension("wat") } else { dir().join("calls.wat") };
        for mode in modes.split(',').filter(|m| !m.is_empty()) {
            let o = Command::new(&engine).arg(format!("--mode={mode}")).arg(format!("--monitors={}", wasm.display())).arg(&app).output().unwrap();
            let out = String::from_utf8_lossy(&o.stdout).to_string();
            if o.status.code() != Some(0) {
                failures.push(format!("{stem} [{mode}]: exit {:?}\nstderr:\n{}\nstdout:\n{out}", o.status.code(), String::from_utf8_lossy(&o.stderr)));
                continue;
            }
            let snap = mm.with_extension("stdout");
            if bless {
                std::fs::write(&snap, &out).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&snap).unwrap_or_default();
            if expected != out {
                failures.push(format!("{stem} [{mode}]: stdout differs from {} (BLESS=1 to update)\n--- expected\n{expected}\n--- actual\n{out}", snap.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
