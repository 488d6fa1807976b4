//! The built-in monitors (`--monitors=NAME`, scripts in `monitors/`) and
//! `.mm` scripts on the command line: every case of `tests/builtin/cases.txt`
//! (`NAME: ARGS...`) runs the `wizeng` binary cargo just built in the
//! `tests/builtin` folder, in every mode of `WIZENG_MODES` (default
//! `int,jit,dyn`). Stdout, stderr and the exit status must equal
//! `NAME.expected` in each mode (`BLESS=1` rewrites it from the first mode),
//! so the tiers agree too. The `.mm` cases include a compile error, whose
//! stderr is exactly what `whamm check` prints.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/builtin")
}

fn run(mode: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .arg(format!("--mode={mode}"))
        .args(args)
        .current_dir(dir())
        .output()
        .expect("run wizeng");
    format!(
        "stdout:\n{}stderr:\n{}status: {}\n",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string())
    )
}

#[test]
fn builtin_monitor_cases() {
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int,jit,dyn".into());
    let modes: Vec<&str> = modes.split(',').filter(|m| !m.is_empty()).collect();
    let bless = std::env::var("BLESS").is_ok_and(|v| v == "1");
    let cases = std::fs::read_to_string(dir().join("cases.txt")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in cases
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (name, args) = line.split_once(':').expect("NAME: ARGS");
        let args: Vec<&str> = args.split_whitespace().collect();
        let expected_path = dir().join(format!("{name}.expected"));
        n += 1;
        for (i, mode) in modes.iter().enumerate() {
            let got = run(mode, &args);
            if bless && i == 0 {
                std::fs::write(&expected_path, &got).unwrap();
            }
            let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if got != want {
                failures.push(format!(
                    "{name} (--mode={mode}): output differs from {}\n--- got:\n{got}--- expected:\n{want}",
                    expected_path.display()
                ));
            }
        }
    }
    assert!(n >= 7, "expected a case per built-in monitor");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every built-in monitor has a case, and the list of built-ins is what the
/// `monitors/` folder holds.
#[test]
fn every_builtin_has_a_case() {
    let cases = std::fs::read_to_string(dir().join("cases.txt")).unwrap();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../monitors");
    let mut scripts: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mm"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    scripts.sort();
    let builtins: Vec<&str> = wizeng::monitor::builtin::all().map(|b| b.name).collect();
    assert_eq!(scripts, builtins);
    for name in builtins {
        assert!(
            cases.lines().any(|l| l.starts_with(&format!("{name}:"))),
            "no case for built-in monitor {name} in tests/builtin/cases.txt"
        );
    }
}
