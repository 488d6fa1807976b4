//! Block counters planned per function when it is first woven (what a large
//! app gets, `blockcount::LazyBlocks`; `WIZENG_LAZY_COUNTERS=on` forces it
//! on any app) count exactly what counters planned for every function at
//! load count: the same output in every compiled tier, with traps, with
//! probes that are not countable beside countable ones, and with the match
//! cache (whose restored plans carry each function's bound). In `jit` every
//! function is woven, so every function's counters are planned into the
//! range reserved for it: a range too small is an error, not a wrong count.

use std::path::{Path, PathBuf};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run_in(dir: &Path, lazy: &str, args: &[&str]) -> String {
    common::process::wizeng(dir, &[("WIZENG_LAZY_COUNTERS", lazy)], args)
}

/// Monitors with a probe on every instruction site: the per-site counters
/// of the block-count tests, whamm's hotness as a built-in, and `branches`
/// (its probes are not all countable).
const MONITORS: [&str; 3] = [
    "--monitors=tests/monitors/blocks_trap_load/monitor.wat",
    "--monitors=hotness",
    "--monitors=branches",
];

#[test]
fn lazily_planned_counters_count_what_eager_ones_do() {
    let programs = [
        "recursion.wasm",
        "indirect.wasm",
        "hash.wasm",
        "sort.wasm",
        "strings.wasm",
    ];
    let mut failures = Vec::new();
    let mut compared = 0;
    for prog in programs {
        let app = format!("tests/programs/{prog}");
        for mon in MONITORS {
            for mode in ["--mode=jit", "--mode=lazy", "--mode=dyn"] {
                let args = [mode, "--cache=off", mon, app.as_str()];
                let eager = run_in(&root(), "off", &args);
                let lazy = run_in(&root(), "on", &args);
                assert!(
                    eager.starts_with("exit Some(0)"),
                    "{prog} {mon} {mode}:\n{eager}"
                );
                compared += 1;
                if lazy != eager {
                    failures.push(format!("{prog} {mon} {mode}"));
                }
            }
        }
    }
    assert_eq!(compared, 45);
    assert!(failures.is_empty(), "counts differ: {failures:?}");
}

/// A trap leaves a block partly executed: its counts are exact either way
/// (the case's expected stdout, and the eager run's whole output).
#[test]
fn a_trap_in_a_lazily_planned_block_is_counted_exactly() {
    let case = root().join("tests/monitors/blocks_trap_load");
    let args = std::fs::read_to_string(case.join("args")).unwrap();
    let expected = std::fs::read_to_string(case.join("expected.out")).unwrap();
    let stdout = expected.split_once("--- stdout\n").unwrap().1;
    let stdout = stdout.split("\n--- ").next().unwrap();
    assert!(stdout.lines().count() > 20, "{stdout}");
    for mode in ["--mode=jit", "--mode=lazy", "--mode=dyn"] {
        let mut a = vec![mode, "--cache=off"];
        a.extend(args.split_whitespace());
        let got = run_in(&case, "on", &a);
        assert!(got.starts_with("exit Some(134)"), "{mode}:\n{got}");
        assert!(got.contains(stdout), "{mode}: want\n{stdout}\ngot\n{got}");
        assert_eq!(got, run_in(&case, "off", &a), "{mode}");
    }
}

/// The metrics: as many probes and sites counted as with eager planning,
/// and at least as many counters reserved as eager planning makes (at most
/// 2% more here: the bound is close).
#[test]
fn reserved_counters_bound_the_planned_ones() {
    let app = "tests/programs/sort.wasm";
    let line = |lazy: &str| {
        let out = run_in(
            &root(),
            lazy,
            &["--mode=jit", "--metrics", "--cache=off", MONITORS[0], app],
        );
        out.lines()
            .find(|l| l.contains("metrics: block counters"))
            .unwrap_or_else(|| panic!("no block counters line in\n{out}"))
            .to_string()
    };
    let (eager, lazy) = (line("off"), line("on"));
    let count = |l: &str| -> u64 {
        let n = l.split_whitespace().nth(4).unwrap();
        n.trim_end_matches(',').parse().unwrap()
    };
    let rest = |l: &str| l.split_once(", ").unwrap().1.to_string();
    assert_eq!(rest(&lazy), rest(&eager));
    let (e, l) = (count(&eager), count(&lazy));
    assert!(
        e > 100 && l >= e && l <= e + e / 50,
        "eager {e}, reserved {l}"
    );
}

/// With the match cache: the first run plans lazily and keeps no counters;
/// the next restores the match, whose plan carries the bounds, and plans
/// lazily again; both print what an uncached eager run prints.
#[test]
fn a_restored_match_plans_lazily_too() {
    let dir = std::env::temp_dir().join(format!("wizeng-lazy-counters-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = format!("--cache-dir={}", dir.display());
    let app = "tests/programs/hash.wasm";
    let want = run_in(
        &root(),
        "off",
        &["--mode=jit", "--cache=off", MONITORS[0], app],
    );
    for run in ["first", "second"] {
        let got = run_in(
            &root(),
            "on",
            &["--mode=jit", "--metrics", &cache, MONITORS[0], app],
        );
        assert!(got.starts_with(&want), "{run} run:\n{got}");
        let restored = got.contains("match cache: hit");
        assert_eq!(restored, run == "second", "{run} run:\n{got}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
