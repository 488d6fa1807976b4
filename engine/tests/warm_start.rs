//! The dyn tier's warm start (`exec/jit/warm.rs`): a run records which
//! functions got hot in the code cache's directory, the next run compiles
//! them at their first call. Output never changes; `--metrics` counts the
//! functions installed from a record; a damaged record is ignored and
//! replaced; `--cache=off` neither reads nor writes one.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::process::metric_numbers;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// (exit status and stdout, stderr) of a `wizeng` run.
fn run(args: &[String]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .current_dir(repo_root())
        .args(args)
        .output()
        .expect("run wizeng");
    (
        format!(
            "exit {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout)
        ),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `warm start: I functions compiled at their first call, P handed to the
/// compiler thread at start (N named by records), R damaged records ignored`
/// of a `--metrics` run: [I + P, N, R].
fn warm_counts(stderr: &str) -> Option<[usize; 3]> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("wizeng: metrics: warm start: "))?;
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    Some([n[0] + n[1], n[2], n[3]])
}

/// Of a `--metrics` run with a compiler thread: (functions handed to it at
/// start, JIT set-ups it built).
fn prefetch_and_setups(stderr: &str) -> (usize, usize) {
    let bg = metric_numbers(stderr, "background compile ");
    (metric_numbers(stderr, "warm start: ")[1], bg[bg.len() - 1])
}

/// A fresh cache directory for one test's runs (`tag`: what they are of).
fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wizeng-warm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `--dyn-threshold=10 --metrics --cache-dir=DIR`, then `flags` and `extra`,
/// then the program `tests/programs/PROG`.
fn warm_args(dir: &Path, flags: &[String], extra: &[&str], prog: &str) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "--dyn-threshold=10".into(),
        "--metrics".into(),
        format!("--cache-dir={}", dir.display()),
    ];
    a.extend(flags.iter().cloned());
    a.extend(extra.iter().map(|s| s.to_string()));
    a.push(format!("tests/programs/{prog}"));
    a
}

/// Programs with functions that get hot at a low threshold; `exitcode` ends
/// by `proc_exit`.
const PROGRAMS: &[&str] = &[
    "sort.wasm",
    "recursion.wasm",
    "matrix.wasm",
    "exitcode.wasm",
];

#[test]
fn a_record_compiles_hot_functions_first_and_changes_no_output() {
    for name in PROGRAMS {
        let dir = fresh_dir(name.trim_end_matches(".wasm"));
        let flags = ["--mode=dyn".to_string()];
        let args = |extra: &[&str]| warm_args(&dir, &flags, extra, name);
        let (cold, e1) = run(&args(&[]));
        assert_eq!(warm_counts(&e1), Some([0, 0, 0]), "{name}: {e1}");
        let (warm, e2) = run(&args(&[]));
        let [installed, named, bad] = warm_counts(&e2).unwrap();
        assert!(
            installed > 0 && named >= installed && bad == 0,
            "{name}: {e2}"
        );
        assert_eq!(cold, warm, "{name}: output with the record");
        // The first run set the JIT up on the store's thread at its first
        // tier-up; a warm run that hands functions to the compiler thread
        // at start has it build the set-up too.
        assert_eq!(prefetch_and_setups(&e1), (0, 0), "{name}: {e1}");
        let (prefetched, setups) = prefetch_and_setups(&e2);
        assert_eq!(setups, usize::from(prefetched > 0), "{name}: {e2}");
        // Without background compiles too (the record does not depend on it).
        // (A record only grows: what the last run compiled is added.)
        let (sync, e3) = run(&args(&["--background-compile=off"]));
        let [i3, n3, b3] = warm_counts(&e3).unwrap();
        assert!(i3 > 0 && n3 >= named && b3 == 0, "{name}: {e3}");
        assert_eq!(cold, sync, "{name}");
        // Damage every entry: the record is ignored (counted), the code
        // compiled afresh, the output the same; the next run has a record again.
        // (Only entries: a compiler thread cut off at exit can leave an
        // unfinished `NAME.tmpPID` behind, possibly empty.)
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some() {
                continue;
            }
            let mut b = std::fs::read(&p).unwrap();
            *b.last_mut().unwrap() ^= 0x55;
            std::fs::write(&p, b).unwrap();
        }
        let (damaged, e4) = run(&args(&[]));
        assert_eq!(warm_counts(&e4), Some([0, 0, 1]), "{name}: {e4}");
        assert_eq!(cold, damaged, "{name}: output with a damaged record");
        let (again, e5) = run(&args(&[]));
        let [i5, _, b5] = warm_counts(&e5).unwrap();
        assert!(i5 > 0 && b5 == 0, "{name}: {e5}");
        assert_eq!(cold, again, "{name}");
        // No cache, no record: nothing read, nothing written.
        let (off, e6) = run(&args(&["--cache=off"]));
        assert_eq!(warm_counts(&e6), None, "{name}: {e6}");
        assert_eq!(cold, off, "{name}: output without the cache");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A record names functions of one module only: a different program in the
/// same cache directory is not affected by it.
#[test]
fn a_record_belongs_to_its_module() {
    let dir = fresh_dir("two");
    let args = |prog: &str| warm_args(&dir, &[], &[], prog);
    let (_, e1) = run(&args("sort.wasm"));
    assert_eq!(warm_counts(&e1), Some([0, 0, 0]), "{e1}");
    let (_, e2) = run(&args("sort.O0.wasm"));
    assert_eq!(warm_counts(&e2), Some([0, 0, 0]), "{e2}");
    let (_, e3) = run(&args("sort.wasm"));
    assert!(warm_counts(&e3).unwrap()[0] > 0, "{e3}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With monitors, the woven app and each monitor get records like any
/// module: the monitors' reports and the app's output are the same cold,
/// warm and without a cache, with block counters (`hotness`) and with probe
/// calls that stay calls (`branches`).
#[test]
fn monitored_runs_warm_start_with_the_same_reports() {
    for (mon, prog) in [
        ("hotness{csv}", "sort.wasm"),
        ("branches{csv}", "matrix.wasm"),
    ] {
        let dir = fresh_dir(&format!("mon-{}", prog.trim_end_matches(".wasm")));
        let flags = [format!("--monitors={mon}")];
        let args = |extra: &[&str]| warm_args(&dir, &flags, extra, prog);
        let (cold, e1) = run(&args(&[]));
        assert_eq!(warm_counts(&e1), Some([0, 0, 0]), "{mon}: {e1}");
        let (warm, e2) = run(&args(&[]));
        assert!(warm_counts(&e2).unwrap()[0] > 0, "{mon}: {e2}");
        assert_eq!(cold, warm, "{mon}: report with the record");
        let (off, _) = run(&args(&["--cache=off"]));
        assert_eq!(cold, off, "{mon}: report without the cache");
        assert!(cold.lines().count() > 10, "{mon}: no report?\n{cold}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
