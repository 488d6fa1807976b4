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

mod common;
use common::process::metric_numbers as numbers;

fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/budget")
}

/// (stdout, [functions compiled, loop entries compiled, requests put off])
/// of `wizeng --metrics --cache=off --background-compile=off FLAGS
/// --invoke=run PROG`.
fn run(prog: &str, flags: &[&str]) -> (String, [usize; 3]) {
    let (out, stderr) = run_in(None, &programs().join(prog), flags);
    (
        out,
        numbers(&stderr, "dyn tier compiled ")[..3]
            .try_into()
            .unwrap(),
    )
}

/// (stdout, stderr) of `wizeng --metrics --background-compile=off` with the
/// cache in `dir` (off without one), `flags`, `--invoke=run PROG`.
fn run_in(dir: Option<&Path>, prog: &Path, flags: &[&str]) -> (String, String) {
    let cache = match dir {
        Some(d) => format!("--cache-dir={}", d.display()),
        None => "--cache=off".into(),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .args(["--metrics", "--background-compile=off", &cache])
        .args(flags)
        .arg("--invoke=run")
        .arg(prog)
        .output()
        .expect("run wizeng");
    assert!(out.status.success(), "{prog:?} {flags:?}: {out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
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

/// A loop of `iterations` in a function whose body has `padding` bytes of
/// `nop`s after it: compiling it costs about 0.25 µs a byte, placing it from
/// the cache about 20 ns a byte.
fn padded_loop(iterations: u32, padding: usize) -> String {
    format!(
        r#"(module
  (func (export "run") (result i32)
    (local $i i32) (local $sum i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const {iterations}))))
    {}
    (local.get $sum)))"#,
        "nop ".repeat(padding)
    )
}

#[test]
fn code_put_off_that_ran_long_enough_is_named_for_the_next_run() {
    // 100 KB of body: a compile is estimated at 25 ms, to be granted after
    // 50 ms; placing it from the cache at 2 ms (named after 4 ms). The
    // loop runs for about 20 ms interpreted: put off, but named by the
    // record.
    let dir = std::env::temp_dir().join(format!("wizeng-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("padded.wat");
    std::fs::write(&prog, padded_loop(6_000_000, 100_000)).unwrap();
    let cache = dir.join("cache");
    let (first, e1) = run_in(Some(&cache), &prog, &[]);
    let [funcs, loops, put_off] = numbers(&e1, "dyn tier compiled ")[..3] else {
        unreachable!()
    };
    assert_eq!((funcs, loops), (0, 0), "{e1}");
    assert!(put_off > 100, "{e1}");
    // The next run compiles it at its first call (named by the record).
    let (second, e2) = run_in(Some(&cache), &prog, &[]);
    let warm = numbers(&e2, "warm start: ");
    assert_eq!((warm[0], warm[2]), (1, 1), "{e2}");
    assert_eq!(numbers(&e2, "dyn tier compiled ")[..3], [1, 0, 0], "{e2}");
    assert_eq!(first, second);
    // A short loop in the same body is never named.
    std::fs::write(&prog, padded_loop(5_000, 100_000)).unwrap();
    let _ = run_in(Some(&cache), &prog, &[]);
    let (_, e4) = run_in(Some(&cache), &prog, &[]);
    assert_eq!(numbers(&e4, "warm start: ")[2], 0, "{e4}");
    let _ = std::fs::remove_dir_all(&dir);
}
