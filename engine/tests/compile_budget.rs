//! The dyn tier's compile budget (`exec/tiering.rs`, `Budget`): at the
//! default threshold and without monitors, a hot loop or function that no
//! warm-start record names is compiled only once the run has lasted long
//! enough to pay for it. `--metrics` counts the compiles and the requests
//! put off; an explicit `--dyn-threshold` compiles at exactly the threshold.
//! Compiles run in the foreground (`--background-compile=off`), so the
//! counts do not depend on a compiler thread's timing, and the output never
//! changes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/budget")
}

/// (stdout, [functions compiled, loop entries compiled, requests put off])
/// of `wizeng --metrics --cache=off --background-compile=off FLAGS
/// --invoke=run PROG`.
fn run(prog: &str, flags: &[&str]) -> (String, [usize; 3]) {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .args(["--metrics", "--cache=off", "--background-compile=off"])
        .args(flags)
        .arg("--invoke=run")
        .arg(programs().join(prog))
        .output()
        .expect("run wizeng");
    assert!(out.status.success(), "{prog} {flags:?}: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("wizeng: metrics: dyn tier compiled "))
        .unwrap_or_else(|| panic!("{prog} {flags:?}: no dyn tier counts in {stderr}"));
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (stdout, [n[0], n[1], n[2]])
}

#[test]
fn a_short_run_compiles_nothing_and_says_what_it_put_off() {
    // 5,000 iterations: the loop asks at 1,000, 2,000, 3,000 and 4,000.
    let (out, counts) = run("short_loop.wat", &[]);
    assert_eq!(counts, [0, 0, 4], "{out}");
    // At an explicit threshold, the loop entry and its function are compiled.
    let (exact, counts) = run("short_loop.wat", &["--dyn-threshold=1000"]);
    assert_eq!(counts, [1, 1, 0]);
    assert_eq!(out, exact);
    assert_eq!(out, "12497500\n");
}

#[test]
fn a_long_run_compiles_its_loop_after_putting_it_off() {
    let (out, [funcs, loops, put_off]) = run("long_loop.wat", &[]);
    assert_eq!((funcs, loops), (1, 1), "{out}");
    assert!(put_off > 0, "compiled at the first request");
    let (exact, counts) = run("long_loop.wat", &["--dyn-threshold=1000"]);
    assert_eq!(counts, [1, 1, 0]);
    assert_eq!(out, exact);
    // The same code interpreted.
    let (int, _) = run(
        "long_loop.wat",
        &["--mode=dyn", "--dyn-threshold=4000000000"],
    );
    assert_eq!(out, int);
}

#[test]
fn with_monitors_the_threshold_is_exact() {
    // (The budget is for runs without monitors: woven code interpreted costs
    // far more than the plain code, so it pays to compile it at once.)
    let (_, counts) = run("short_loop.wat", &["--monitors=calls"]);
    assert_eq!(counts, [1, 1, 0]);
}
