//! Non-intrusiveness: the C test programs with a probe on every instruction
//! (examples/hotness.wat) print exactly their own output, then the monitor's
//! report, with the app's exit status; and the monitor's counts are identical
//! in the interpreter and the JIT (two independent executions of the probes).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("run wizeng");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn probes_on_every_instruction_do_not_change_the_app() {
    // The interpreter runs probes ~10x slower: it gets the short programs.
    let cases: &[(&str, &[&str])] = &[
        ("exitcode.wasm", &["int", "jit"]),
        ("mainret.wasm", &["int", "jit"]),
        ("recursion.wasm", &["int", "jit"]),
        ("bulkmem.wasm", &["int", "jit"]),
        ("sort.wasm", &["jit"]),
        ("hash.wasm", &["jit"]),
        ("matrix.wasm", &["jit"]),
        ("indirect.wasm", &["jit"]),
        ("float.wasm", &["jit"]),
        ("memory.wasm", &["jit"]),
    ];
    let mut failures = Vec::new();
    for (prog, modes) in cases {
        let app = format!("tests/programs/{prog}");
        let (code, plain) = run(&["--mode=int", &app]);
        let mut reports = Vec::new();
        for mode in *modes {
            let (icode, out) = run(&[
                &format!("--mode={mode}"),
                "--monitors=examples/hotness.wat",
                &app,
            ]);
            let ok = icode == code
                && out.starts_with(&plain)
                && out[plain.len()..].starts_with("hotness: sites=");
            println!(
                "{} {prog} [{mode}] exit {icode:?}",
                if ok { "ok  " } else { "FAIL" }
            );
            if !ok {
                failures.push(format!(
                    "{prog} [{mode}]: exit {icode:?} vs {code:?}, output:\n{out}"
                ));
            }
            reports.push(out[plain.len().min(out.len())..].to_string());
        }
        if reports.windows(2).any(|w| w[0] != w[1]) {
            failures.push(format!(
                "{prog}: monitor counts differ between tiers: {reports:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
