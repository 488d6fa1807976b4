//! The dyn tier with monitors interprets a function from its plain body (the
//! app's code, the probes fired beside it as `--mode=int` fires them) and
//! weaves it only when it compiles it (`exec::interp::plain`). Every case of
//! `tests/plain/cases.txt` (`NAME: ARGS...`) runs the `wizeng` binary in
//! `tests/plain`:
//!
//! - its stdout, stderr and exit status equal `NAME.expected` in `int`,
//!   `jit`, `dyn` (background compiles; and stopping to compile at
//!   thresholds 1 and 10, so calls and loops tier up from plain bodies at
//!   different points), `dyn` twice with a cache (warm the second time), and `dyn` weaving
//!   every function it interprets (`WIZENG_WEAVE_INTERPRETED=1`);
//! - `NAME.policy` holds what `--metrics` says `dyn` (threshold 10, no
//!   cache, compiling in the foreground) wove and ran from plain bodies.
//!
//! `BLESS=1` rewrites both from `int` and that `dyn` run.

mod common;

use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/plain")
}

/// The `--metrics` lines that say what was woven and what ran plain.
fn policy(out: &str) -> String {
    let keep = ["lazy weaving:", "plain bodies", "dyn tier compiled"];
    out.lines()
        .filter(|l| l.starts_with("wizeng: metrics:") && keep.iter().any(|k| l.contains(k)))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn plain_bodies_give_every_tier_the_same_reports() {
    let bless = std::env::var("BLESS").is_ok_and(|v| v == "1");
    let cases = common::process::cases(&dir().join("cases.txt"));
    let cache = std::env::temp_dir().join(format!("wizeng-plain-{}", std::process::id()));
    let cache_dir = format!("--cache-dir={}", cache.display());
    let mut failures = Vec::new();
    let mut n = 0;
    for (name, args) in &cases {
        let name = name.as_str();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        n += 1;
        let run = |envs: &[(&str, &str)], opts: &[&str]| {
            let all: Vec<&str> = opts.iter().chain(&args).copied().collect();
            common::process::wizeng(&dir(), envs, &all)
        };
        let fg = ["--mode=dyn", "--background-compile=off", "--cache=off"];
        let runs: Vec<(String, String)> = vec![
            ("int".into(), run(&[], &["--mode=int"])),
            ("jit".into(), run(&[], &["--mode=jit", "--cache=off"])),
            ("dyn".into(), run(&[], &["--mode=dyn", "--cache=off"])),
            (
                "dyn threshold 1".into(),
                run(&[], &[&fg[..], &["--dyn-threshold=1"]].concat()),
            ),
            (
                "dyn threshold 10".into(),
                run(&[], &[&fg[..], &["--dyn-threshold=10"]].concat()),
            ),
            (
                "dyn with a cache".into(),
                run(&[], &["--mode=dyn", &cache_dir]),
            ),
            (
                "dyn with a cache, again".into(),
                run(&[], &["--mode=dyn", &cache_dir]),
            ),
            (
                "dyn, every function woven".into(),
                run(
                    &[("WIZENG_WEAVE_INTERPRETED", "1")],
                    &["--mode=dyn", "--cache=off"],
                ),
            ),
        ];
        let got_policy = policy(&run(
            &[],
            &[&fg[..], &["--dyn-threshold=10", "--metrics"]].concat(),
        ));
        let expected = dir().join(format!("{name}.expected"));
        let policy_file = dir().join(format!("{name}.policy"));
        if bless {
            std::fs::write(&expected, &runs[0].1).unwrap();
            std::fs::write(&policy_file, &got_policy).unwrap();
        }
        let want = std::fs::read_to_string(&expected).unwrap_or_default();
        for (how, got) in &runs {
            if *got != want {
                failures.push(format!(
                    "{name} ({how}): differs from {}\n--- got:\n{got}--- expected:\n{want}",
                    expected.display()
                ));
            }
        }
        let want_policy = std::fs::read_to_string(&policy_file).unwrap_or_default();
        if got_policy != want_policy {
            failures.push(format!("{name}: policy differs from {}\n--- got:\n{got_policy}--- expected:\n{want_policy}", policy_file.display()));
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    assert!(n >= 3, "expected cases in {}", dir().display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
