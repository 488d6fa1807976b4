//! Block counting is exact: the C test programs with a counter on every
//! instruction site (and on `func:entry`, and after loads, divisions and calls)
//! print every site's count at exit; the JIT with block counters must print
//! exactly what independent per-site executions of the probes print: the JIT
//! with `--block-counts=off` (probes inlined at every site), the lazy tier, and
//! on the short programs the interpreter.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

const MONITOR: &str = "--monitors=tests/monitors/blocks_trap_load/monitor.wat";

fn run(args: &[&str]) -> String {
    common::process::wizeng(&root(), &[], args)
}

#[test]
fn block_counts_equal_per_site_counts() {
    let programs = [
        ("exitcode.wasm", true),
        ("mainret.wasm", true),
        ("bulkmem.wasm", false),
        ("recursion.wasm", false),
        ("indirect.wasm", false),
        ("int64.wasm", false),
        ("hash.wasm", false),
        ("matrix.wasm", false),
        ("float.wasm", false),
        ("sort.wasm", false),
        ("memory.wasm", false),
        ("strings.wasm", false),
    ];
    let mut failures = Vec::new();
    for (prog, int) in programs {
        let app = format!("tests/programs/{prog}");
        let counted = run(&["--mode=jit", MONITOR, &app]);
        // A probe on every instruction: thousands of lines, one per site.
        assert!(
            counted.lines().count() > 1000,
            "{prog}: too few sites:\n{counted}"
        );
        let mut refs = vec![
            (
                "jit --block-counts=off",
                vec!["--mode=jit", "--block-counts=off"],
            ),
            ("lazy", vec!["--mode=lazy"]),
        ];
        if int {
            refs.push(("int", vec!["--mode=int"]));
        }
        for (name, mut args) in refs {
            args.extend([MONITOR, app.as_str()]);
            let ok = run(&args) == counted;
            println!("{} {prog}: jit vs {name}", if ok { "ok  " } else { "FAIL" });
            if !ok {
                failures.push(format!("{prog}: jit vs {name}"));
            }
        }
    }
    assert!(failures.is_empty(), "counts differ: {failures:?}");
}

/// One probe per basic block (`block:end`, as whamm's basic-block profiling
/// script): every straight-line block holds one countable probe, and each is
/// counted through a block counter (none inlined), with the counts of
/// per-site probes (`--block-counts=off`, the lazy tier).
#[test]
fn one_probe_blocks_are_counted() {
    const ONE: &str = "--monitors=tests/monitors/blocks_single/monitor.wat";
    let mut failures = Vec::new();
    for prog in ["recursion.wasm", "hash.wasm", "sort.wasm", "strings.wasm"] {
        let app = format!("tests/programs/{prog}");
        let counted = run(&["--mode=jit", ONE, &app]);
        assert!(
            counted.lines().count() > 20,
            "{prog}: too few sites:\n{counted}"
        );
        for (name, args) in [
            (
                "jit --block-counts=off",
                vec!["--mode=jit", "--block-counts=off"],
            ),
            ("lazy", vec!["--mode=lazy"]),
        ] {
            let mut args = args;
            args.extend([ONE, app.as_str()]);
            if run(&args) != counted {
                failures.push(format!("{prog}: jit vs {name}"));
            }
        }
        let metrics = run(&["--mode=jit", "--metrics", ONE, &app]);
        let line = |key: &str| {
            metrics
                .lines()
                .find(|l| l.contains(key))
                .unwrap_or_else(|| panic!("{prog}: no `{key}` in\n{metrics}"))
                .to_string()
        };
        assert!(
            line("probe calls inlined").contains("inlined 0, called 0"),
            "{prog}: {}",
            line("probe calls inlined")
        );
        // `counting N probes at N sites`: every site of the app is counted.
        let sites = line("probes attached at");
        let n = sites.split_whitespace().nth(5).unwrap();
        assert!(
            line("block counters").contains(&format!("counting {n} probes at {n} sites")),
            "{prog}: {sites} / {}",
            line("block counters")
        );
    }
    assert!(failures.is_empty(), "counts differ: {failures:?}");
}

/// Planning the counters in parts, on several threads (as on a large app;
/// `WIZENG_PLAN_THREADS` forces the number of parts), gives the counters of
/// one part: the same woven module, fold code included, and the same counts.
#[test]
fn counters_planned_in_parts_are_those_of_one_part() {
    let dir = std::env::temp_dir().join(format!("wizeng-plan-parts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for prog in ["sort.wasm", "strings.wasm", "matrix.wasm"] {
        let app = format!("tests/programs/{prog}");
        let woven = |parts: &str| {
            let out = dir.join(format!("{prog}.{parts}.wasm"));
            let status = Command::new(env!("CARGO_BIN_EXE_wizeng"))
                .current_dir(root())
                .env("WIZENG_PLAN_THREADS", parts)
                .arg(MONITOR)
                .arg(format!("--emit-woven={}", out.display()))
                .arg(&app)
                .status()
                .expect("run wizeng");
            assert!(status.success(), "{prog}: --emit-woven with {parts} parts");
            std::fs::read(&out).unwrap()
        };
        let one = woven("1");
        assert!(one.len() > 1000, "{prog}: woven module too small");
        for parts in ["2", "3", "64"] {
            assert!(woven(parts) == one, "{prog}: {parts} parts weave otherwise");
        }
        let counts = |parts: &str| {
            let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
                .current_dir(root())
                .env("WIZENG_PLAN_THREADS", parts)
                .args(["--mode=jit", MONITOR, &app])
                .output()
                .expect("run wizeng");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let want = counts("1");
        assert!(want.lines().count() > 1000, "{prog}: too few sites");
        assert_eq!(counts("3"), want, "{prog}: counts with 3 parts");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
