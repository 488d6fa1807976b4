//! File-based command-line tests: each `tests/cli/NAME.wat` (or `.wasm`) is run
//! through the `wizeng` binary and its exit status, stdout and stderr are
//! compared with `tests/cli/NAME.out`. A first-line comment `;; args: ...` gives
//! the options and app arguments. `BLESS=1` rewrites the `.out` files.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn args_of(path: &Path) -> Vec<String> {
    if path.extension().is_some_and(|e| e == "wat") {
        let text = std::fs::read_to_string(path).unwrap();
        if let Some(rest) = text.lines().next().and_then(|l| l.strip_prefix(";; args:")) {
            return rest.split_whitespace().map(String::from).collect();
        }
    }
    Vec::new()
}

/// The files of `dir` with one of `exts`, sorted; at least `min` of them.
fn case_files(dir: &Path, exts: &[&str], min: usize) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= min,
        "expected the cases in {}",
        dir.display()
    );
    cases
}

fn run_case(root: &Path, rel: &Path) -> String {
    let mut args = args_of(&root.join(rel));
    // Options go before the app; everything after `--invoke=f` that isn't an option is an app arg.
    let split = args
        .iter()
        .position(|a| !a.starts_with("--"))
        .unwrap_or(args.len());
    let rest = args.split_off(split);
    let mut full = args;
    full.push(rel.display().to_string());
    full.extend(rest);
    run_wizeng(root, &full)
}

fn run_wizeng(cwd: &Path, args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run wizeng");
    let status = match out.status.code() {
        Some(c) => c.to_string(),
        None => format!("killed: {:?}", out.status),
    };
    format!(
        "exit: {status}\n--- stdout\n{}--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Tiers to run file-based cases in (`WIZENG_MODES=int,jit`); all must agree.
fn modes() -> Vec<String> {
    std::env::var("WIZENG_MODES")
        .unwrap_or_else(|_| "int,jit,lazy,dyn".into())
        .split(',')
        .map(String::from)
        .collect()
}

/// The engine flags of a mode: `dyn` tiers up at the second call or loop
/// iteration, so that small cases exercise both tiers and OSR.
fn mode_args(mode: &str) -> Vec<String> {
    let mut v = vec![format!("--mode={mode}")];
    if mode == "dyn" {
        v.push("--dyn-threshold=2".into());
    }
    v
}

/// Whether `BLESS` asks to rewrite expectations: `1` (or any value but empty
/// and `0`), so that `BLESS=0` checks as if it were unset.
fn bless_requested(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

fn bless() -> bool {
    bless_requested(std::env::var("BLESS").ok().as_deref())
}

#[test]
fn bless_zero_checks() {
    assert!(!bless_requested(Some("0")));
    assert!(!bless_requested(Some("")));
    assert!(!bless_requested(None));
    assert!(bless_requested(Some("1")));
}

fn check(expected_path: &Path, got: &str, name: &str, failed: &mut Vec<String>) {
    if bless() {
        std::fs::write(expected_path, got).unwrap();
        return;
    }
    match std::fs::read_to_string(expected_path) {
        Ok(exp) if exp == got => println!("ok   {name}"),
        Ok(exp) => {
            println!("FAIL {name}\n--- expected\n{exp}--- got\n{got}");
            failed.push(name.to_string());
        }
        Err(_) => {
            println!(
                "FAIL {name}: no {} (run with BLESS=1)",
                expected_path.display()
            );
            failed.push(name.to_string());
        }
    }
}

/// The directories of `tests/monitors/`, sorted.
fn monitor_case_dirs() -> Vec<PathBuf> {
    let root = repo_root().join("tests/monitors");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 15);
    dirs
}

/// A monitor case's arguments (its `args` file, else the default).
fn monitor_case_args(dir: &Path) -> Vec<String> {
    match std::fs::read_to_string(dir.join("args")) {
        Ok(a) => a.split_whitespace().map(String::from).collect(),
        Err(_) => vec!["--monitors=monitor.wat".into(), "../app.wat".into()],
    }
}

/// Monitor cases: each directory of `tests/monitors/` has a `monitor.wat`, an
/// optional `args` file (default `--monitors=monitor.wat ../app.wat`), and the
/// expected `expected.out`. Run in the case directory, in every mode.
#[test]
fn monitor_cases() {
    let mut failed = Vec::new();
    for dir in &monitor_case_dirs() {
        let args = monitor_case_args(dir);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        for mode in modes() {
            let mut full = mode_args(&mode);
            full.extend(args.iter().cloned());
            let got = run_wizeng(dir, &full);
            check(
                &dir.join("expected.out"),
                &got,
                &format!("{name} [{mode}]"),
                &mut failed,
            );
        }
    }
    assert!(
        failed.is_empty(),
        "{} monitor case(s) failed: {failed:?}",
        failed.len()
    );
}

#[test]
fn cli_cases() {
    let root = repo_root();
    let dir = root.join("tests/cli");
    let bless = bless();
    let cases = case_files(&dir, &["wat", "wasm"], 20);
    let mut failed = Vec::new();
    for case in &cases {
        let rel = case.strip_prefix(&root).unwrap();
        let got = run_case(&root, rel);
        let expected_path = case.with_extension("out");
        if bless {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(exp) if exp == got => println!("ok   {}", rel.display()),
            Ok(exp) => {
                println!("FAIL {}\n--- expected\n{exp}--- got\n{got}", rel.display());
                failed.push(rel.display().to_string());
            }
            Err(_) => {
                println!(
                    "FAIL {}: no {} (run with BLESS=1)",
                    rel.display(),
                    expected_path.display()
                );
                failed.push(rel.display().to_string());
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} CLI case(s) failed: {failed:?}",
        failed.len()
    );
}

/// Exception handling: each `tests/eh/NAME.wat` runs in every mode (its
/// first-line `;; args:` as for `tests/cli/`) and must give `NAME.out`, the
/// same in all of them. In the JIT tiers the functions with exception
/// handling run interpreted and the rest compiled, so exceptions cross
/// compiled frames.
#[test]
fn exception_cases() {
    let root = repo_root();
    let cases = case_files(&root.join("tests/eh"), &["wat"], 4);
    let mut failed = Vec::new();
    for case in &cases {
        let rel = case.strip_prefix(&root).unwrap();
        let mut args = args_of(case);
        args.push(rel.display().to_string());
        for mode in modes() {
            let mut full = mode_args(&mode);
            full.extend(args.iter().cloned());
            let got = run_wizeng(&root, &full);
            let name = format!("{} [{mode}]", rel.display());
            check(&case.with_extension("out"), &got, &name, &mut failed);
        }
    }
    assert!(
        failed.is_empty(),
        "{} exception case(s) failed: {failed:?}",
        failed.len()
    );
}

/// `--metrics` in the JIT tiers counts the functions that run interpreted
/// because of exception handling (`tests/eh/tiers.wat`: the thrower, the
/// catchers and the exnref functions; `mid` and `mid2` are compiled).
#[test]
fn metrics_count_interpreted_functions() {
    let root = repo_root();
    for mode in ["jit", "lazy", "dyn"] {
        let args: Vec<String> = vec![
            format!("--mode={mode}"),
            "--metrics".into(),
            "--invoke=main".into(),
            "tests/eh/tiers.wat".into(),
        ];
        let out = run_wizeng(&root, &args);
        assert!(
            out.contains(
                "wizeng: metrics: 8 functions run interpreted (exception handling or Wasm GC)"
            ),
            "{mode}: {out}"
        );
        // Woven for the monitor of `tests/monitors/exceptions`: the thrower
        // and the two catchers stay interpreted, the rest is compiled.
        let out = metrics(mode, "exceptions");
        assert!(
            out.contains(
                "wizeng: metrics: 3 functions run interpreted (exception handling or Wasm GC)"
            ),
            "{mode}: {out}"
        );
    }
}

/// Every prefix of a valid module is rejected with an error, never a panic.
#[test]
fn truncated_modules_never_panic() {
    let bin = wat::parse_str(
        r#"(module (import "env" "f" (func (param i32))) (memory 1) (global (mut i32) (i32.const 5))
           (table 2 funcref) (elem (i32.const 0) 1)
           (func (export "g") (param i32) (result i32) (local i64)
             (block (result i32) (loop (br_if 1 (local.get 0) (i32.eqz (local.get 0)))
               (local.set 0 (i32.sub (local.get 0) (i32.const 1))) (br 0)) (i32.const 0)))
           (data (i32.const 8) "hello"))"#,
    )
    .unwrap();
    assert!(wizeng::Module::new(&bin).is_ok());
    let mut rejected = 0;
    for n in 0..bin.len() {
        // A prefix ending exactly at a section boundary is itself a valid module.
        match std::panic::catch_unwind(|| wizeng::Module::new(&bin[..n])) {
            Ok(Err(_)) => rejected += 1,
            Ok(Ok(_)) => {}
            Err(_) => panic!("prefix of {n} bytes panicked"),
        }
    }
    assert!(
        rejected > bin.len() / 2,
        "most prefixes must be rejected ({rejected} of {})",
        bin.len()
    );
    assert!(wizeng::Module::new(&bin[..bin.len() - 1]).is_err());
    // Single-byte corruptions: load or reject, but never panic.
    for i in 8..bin.len() {
        for b in [0x00u8, 0x01, 0x7f, 0x80, 0xff] {
            let mut m = bin.clone();
            m[i] = b;
            assert!(
                std::panic::catch_unwind(|| wizeng::Module::new(&m)).is_ok(),
                "byte {i} = {b:#x} panicked"
            );
        }
    }
}

/// `--perf-map` lists every compiled function once, with non-empty,
/// non-overlapping ranges, named from the name section.
#[test]
fn perf_map_lists_every_compiled_function() {
    let root = repo_root();
    let app = root.join("tests/programs/sort.wasm");
    let child = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .args(["--mode=jit", "--perf-map"])
        .arg(&app)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run wizeng");
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let path = format!("/tmp/perf-{pid}.map");
    let text = std::fs::read_to_string(&path).expect("perf map written");
    let _ = std::fs::remove_file(&path);
    let module = wizeng::Module::new(&std::fs::read(&app).unwrap()).unwrap();
    let mut ranges: Vec<(u64, u64, String)> = text
        .lines()
        .map(|l| {
            let mut p = l.splitn(3, ' ');
            let start = u64::from_str_radix(p.next().unwrap(), 16).unwrap();
            let size = u64::from_str_radix(p.next().unwrap(), 16).unwrap();
            (start, size, p.next().unwrap_or("").to_string())
        })
        .collect();
    let wasm_funcs: Vec<&(u64, u64, String)> = ranges
        .iter()
        .filter(|r| !r.2.starts_with("host trampoline") && !r.2.starts_with("lazy stub"))
        .collect();
    assert_eq!(
        wasm_funcs.len(),
        module.bodies.len(),
        "one line per defined function"
    );
    for i in module.num_imported_funcs..module.num_funcs() {
        let name = module.func_name(i);
        assert!(
            wasm_funcs.iter().any(|r| r.2 == name),
            "{name} missing from the perf map"
        );
    }
    ranges.sort();
    for w in ranges.windows(2) {
        assert!(
            w[0].1 > 0 && w[0].0 + w[0].1 <= w[1].0,
            "overlapping or empty ranges: {:?} {:?}",
            w[0],
            w[1]
        );
    }
}

/// `--perf-jitdump` writes a well-formed jitdump: the header, then one
/// JIT_CODE_LOAD record per compiled function whose code bytes match the
/// size announced, with the function names.
#[test]
fn jitdump_records_every_compiled_function() {
    let root = repo_root();
    let app = root.join("tests/programs/recursion.wasm");
    let child = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .args(["--mode=jit", "--perf-jitdump"])
        .arg(&app)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run wizeng");
    let pid = child.id();
    assert!(child.wait_with_output().unwrap().status.success());
    let path = format!("/tmp/jit-{pid}.dump");
    let d = std::fs::read(&path).expect("jitdump written");
    let _ = std::fs::remove_file(&path);
    let u32_at = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(d[o..o + 8].try_into().unwrap());
    assert_eq!(u32_at(0), 0x4A69_5444, "magic");
    assert_eq!(u32_at(4), 1, "version");
    assert_eq!(u32_at(8), 40, "header size");
    assert_eq!(u32_at(20), pid, "pid");
    let mut o = 40;
    let mut names = Vec::new();
    let mut last_ts = 0;
    while o < d.len() {
        let (id, size, ts) = (u32_at(o), u32_at(o + 4) as usize, u64_at(o + 8));
        assert_eq!(id, 0, "JIT_CODE_LOAD");
        assert!(ts >= last_ts, "timestamps are monotonic");
        last_ts = ts;
        let code_size = u64_at(o + 40) as usize;
        let name_end = o + 56 + d[o + 56..].iter().position(|b| *b == 0).unwrap();
        names.push(String::from_utf8(d[o + 56..name_end].to_vec()).unwrap());
        assert_eq!(
            size,
            name_end + 1 - o + code_size,
            "record size covers name and code"
        );
        assert!(code_size > 0);
        o += size;
    }
    assert_eq!(o, d.len());
    let module = wizeng::Module::new(&std::fs::read(&app).unwrap()).unwrap();
    for i in module.num_imported_funcs..module.num_funcs() {
        assert!(
            names.contains(&module.func_name(i)),
            "{} missing",
            module.func_name(i)
        );
    }
}

/// The dyn tier's OSR (`tests/osr/`): every `;; args:` line of each case runs
/// in the interpreter and in dyn at several thresholds (so compiled code is
/// entered at different loops and iterations); all outputs must be identical.
#[test]
fn osr_matches_interpreter() {
    let root = repo_root();
    let cases = case_files(&root.join("tests/osr"), &["wat"], 3);
    let mut failed = Vec::new();
    let mut runs = 0;
    for case in &cases {
        let rel = case.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(case).unwrap();
        for line in text.lines().filter_map(|l| l.strip_prefix(";; args:")) {
            let mut args: Vec<String> = line.split_whitespace().map(String::from).collect();
            let rest = args.split_off(args.iter().take_while(|a| a.starts_with("--")).count());
            let run = |mode: &[&str]| {
                let mut full: Vec<String> = mode.iter().map(|s| s.to_string()).collect();
                full.extend(args.iter().cloned());
                full.push(rel.clone());
                full.extend(rest.iter().cloned());
                run_wizeng(&root, &full)
            };
            let expected = run(&["--mode=int"]);
            assert!(!expected.contains("invalid module"), "{rel}: {expected}");
            for t in [1, 2, 3, 45, 60, 200] {
                let th = format!("--dyn-threshold={t}");
                let got = run(&["--mode=dyn", &th]);
                runs += 1;
                if got != expected {
                    println!("FAIL {rel} [{line}] {th}\n--- int\n{expected}--- dyn\n{got}");
                    failed.push(format!("{rel} {th}"));
                }
            }
        }
    }
    println!("{runs} dyn runs compared with the interpreter");
    assert!(failed.is_empty(), "OSR cases differ: {failed:?}");
}

/// `--mode=jit --metrics` output of monitor case `name` (its args as in `monitor_cases`).
fn jit_metrics(name: &str) -> String {
    metrics("jit", name)
}

/// `--mode=MODE --metrics` output of monitor case `name`.
fn metrics(mode: &str, name: &str) -> String {
    let dir = repo_root().join("tests/monitors").join(name);
    let mut args: Vec<String> = vec![format!("--mode={mode}"), "--metrics".into()];
    match std::fs::read_to_string(dir.join("args")) {
        Ok(a) => args.extend(a.split_whitespace().map(String::from)),
        Err(_) => args.extend(["--monitors=monitor.wat".into(), "../app.wat".into()]),
    }
    run_wizeng(&dir, &args)
}

/// The interpreter performs the probes of a site that are nothing but counter
/// increments at fixed addresses itself (`Op::MonInc*`), also when the
/// address depends only on whether an operand is zero (`Op::MonIncSel`):
/// every site of `hotness`; `branches`' `if` and `br_if` sites (3 + 1) but
/// not its `br_table` site (the tally's address depends on the index); none of
/// `two_monitors`. `monitor_cases` checks the counts against expected output
/// in every tier.
#[test]
fn interpreter_performs_pure_increments_directly() {
    let out = metrics("int", "hotness");
    let sites = out
        .split("probes attached at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .expect("sites in --metrics");
    for (name, direct) in [("hotness", sites), ("branches", "4")] {
        let out = metrics("int", name);
        assert!(
            out.contains(&format!(
                "probes at {direct} sites are direct counter increments"
            )),
            "{name}: expected {direct} direct sites:\n{out}"
        );
    }
    let out = metrics("int", "two_monitors");
    assert!(
        !out.contains("direct counter increments"),
        "two_monitors: no site should be direct:\n{out}"
    );
}

/// Frame accessor calls with constant indices in an inlined probe are
/// intrinsics: the JIT inlines these cases' `frame` probes and compiles the
/// app (their output is compared with the interpreter's by `monitor_cases`);
/// `frame_write` also has block counters between the frame probes' sites
/// (its 9 inlined calls are the frame probes: every counter increment there
/// is counted through its block, also alone in one). Any other frame use
/// keeps the app in the interpreter.
#[test]
fn frame_probes_are_inlined() {
    const FALLBACK: &str =
        "application interpreted: probes access frames other than through intrinsics";
    for (name, calls) in [
        ("frame_inlined", 2),
        ("frame_write", 9),
        ("frame_heights", 100),
        ("frame_operand_order", 5),
    ] {
        let out = jit_metrics(name);
        assert!(
            out.contains(&format!("probe calls inlined {calls}, called 0"))
                && !out.contains(FALLBACK),
            "{name}: frame probes not inlined:\n{out}"
        );
    }
    let out = jit_metrics("frame_write");
    assert!(
        out.contains("block counters ") && !out.contains("block counters 0,"),
        "frame_write: no block counters:\n{out}"
    );
    // A type mismatch at one site, an index that is not a constant, an
    // operand out of range at one site, frame handles passed on.
    for name in [
        "frame_mismatch",
        "frame_dynamic_index",
        "frame_operand_range",
        "frame_param",
    ] {
        let out = jit_metrics(name);
        assert!(
            out.contains(FALLBACK) && !out.contains("probe calls inlined"),
            "{name}: the app should run in the interpreter:\n{out}"
        );
    }
}

/// The JIT inlines a probe that only tests an operand against zero, and uses
/// a test's result as a value, twice, with 1 and 0 (`--specialize`):
/// `specialize`'s `if` and `i32.and` probes; not its `br_if` probe (it
/// branches on the operand: each side already has a fixed address), its
/// `i32.or` (uses the value) or its `i32.xor` (writes the parameter) probe;
/// `monitor_cases` compares the counts with the interpreter's and
/// `inline_off_cases_match` with `--specialize=off`.
#[test]
fn zero_tested_probes_are_specialised() {
    for (name, n) in [("specialize", 2), ("specialize_off", 0)] {
        let out = jit_metrics(name);
        assert!(
            out.contains(&format!("specialised on a zero-tested operand {n}\n")),
            "{name}: expected {n} specialised probe calls:\n{out}"
        );
    }
}

/// Cases run with `--inline=off` or `--specialize=off` (`NAME_off`) must print
/// what `NAME` prints.
#[test]
fn inline_off_cases_match() {
    let root = repo_root().join("tests/monitors");
    for name in [
        "frame_write",
        "frame_heights",
        "inline_counters",
        "specialize",
    ] {
        let on = std::fs::read_to_string(root.join(name).join("expected.out")).unwrap();
        let off = std::fs::read_to_string(root.join(format!("{name}_off/expected.out"))).unwrap();
        assert_eq!(on, off, "{name} vs {name}_off");
    }
}

/// `tests/interp/fused.wat`: every export gives the same output (results, or
/// the trap and its site) in the interpreter with superinstructions, without
/// them (`WIZENG_NO_FUSE=1`) and in the JIT; and the interpreter really does
/// translate the file into each superinstruction it is meant to cover.
#[test]
fn fused_ops_agree() {
    let root = repo_root();
    let rel = "tests/interp/fused.wat";
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    let exports: Vec<&str> = text
        .split("(export \"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert!(exports.len() >= 8, "exports: {exports:?}");
    let run = |mode: &str, export: &str, no_fuse: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_wizeng"));
        cmd.current_dir(&root).args([
            format!("--mode={mode}"),
            format!("--invoke={export}"),
            rel.into(),
        ]);
        if no_fuse {
            cmd.env("WIZENG_NO_FUSE", "1");
        }
        let out = cmd.output().expect("run wizeng");
        format!(
            "exit {:?}\n{}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    for export in &exports {
        let fused = run("int", export, false);
        assert_eq!(
            fused,
            run("int", export, true),
            "{export}: fused vs unfused"
        );
        assert_eq!(
            fused,
            run("jit", export, false),
            "{export}: interpreter vs JIT"
        );
    }
    let dump = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .current_dir(&root)
        .env("WIZENG_DUMP_OPS", "all")
        .args(["--mode=int", "--invoke=muladd_ll", rel])
        .output()
        .expect("run wizeng");
    let dump = String::from_utf8_lossy(&dump.stderr);
    for op in [
        "F64MulAddLoadLL",
        "F64MulAddLoadSL",
        "F64MulAddStore",
        "F64MulAddTeeStore",
        "I64StoreTee",
        "I32StoreTee",
        "SelectGtSLL",
        "SelectLtSLL",
        "I32AddMulLLC",
        "LocalGet3",
        "IncJmpNe",
        "F32AddL",
        "F32MulLL",
        "F32SubC",
        "F32DivLL",
        "F32MulC",
        "Inc2",
        "I32LoadLC",
        "I64LoadLC",
    ] {
        assert!(dump.contains(op), "{rel} no longer translates to {op}");
    }
}

/// The match cache: each monitor case run twice with a fresh cache
/// directory, first in `jit` (which matches and keeps the result), then in
/// `dyn` (which restores it), prints what it expects both times; a third
/// run's metrics show that the result was restored wherever it was kept,
/// and that most cases keep one.
#[test]
fn match_cache_replays_every_monitor_case() {
    let dir = std::env::temp_dir().join(format!("wizeng-match-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = format!("--cache-dir={}", dir.display());
    let (mut failed, mut hits, mut kept_none) = (Vec::new(), 0, Vec::new());
    let dirs = monitor_case_dirs();
    for case in &dirs {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expected = std::fs::read_to_string(case.join("expected.out")).unwrap();
        for mode in ["jit", "dyn"] {
            let mut full = mode_args(mode);
            full.push(cache.clone());
            full.extend(monitor_case_args(case));
            if run_wizeng(case, &full) != expected {
                failed.push(format!("{name} [{mode}]"));
            }
        }
        let mut full = vec!["--metrics".to_string(), cache.clone()];
        full.extend(monitor_case_args(case));
        let out = run_wizeng(case, &full);
        match out
            .lines()
            .find_map(|l| l.strip_prefix("wizeng: metrics: match cache: "))
        {
            Some(l) if l.starts_with("hit") => hits += 1,
            Some(l) if l.starts_with("not used") => kept_none.push(format!("{name}: {l}")),
            // Matching failed (a bind error), or the app is interpreted
            // with its probes (dynamic probes): no match to keep.
            None => kept_none.push(format!("{name}: -")),
            Some(l) => failed.push(format!("{name}: third run: {l}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("match cache hits: {hits} of {}; not kept:", dirs.len());
    kept_none.iter().for_each(|k| println!("  {k}"));
    assert!(failed.is_empty(), "{failed:?}");
    assert!(hits * 2 > dirs.len(), "only {hits} hits of {}", dirs.len());
}

/// A kept match result is checked like every cache entry: damaged, it is
/// ignored (matched afresh, same output) and replaced; `--cache=off` keeps
/// none.
#[test]
fn match_cache_entry_is_checked() {
    let root = repo_root();
    let dir = std::env::temp_dir().join(format!("wizeng-match-damage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args: Vec<String> = vec![
        "--metrics".into(),
        format!("--cache-dir={}", dir.display()),
        "--monitors=coverage".into(),
        "tests/programs/sort.wasm".into(),
    ];
    let outcome = |out: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix("wizeng: metrics: match cache: "))
            .unwrap_or_else(|| panic!("no match cache metrics in: {out}"))
            .to_string()
    };
    let stdout = |out: &str| out.split("--- stderr").next().unwrap().to_string();
    let first = run_wizeng(&root, &args);
    assert_eq!(outcome(&first), "miss, result stored", "{first}");
    let second = run_wizeng(&root, &args);
    assert_eq!(outcome(&second), "hit (matching skipped)", "{second}");
    assert_eq!(stdout(&first), stdout(&second));
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let mut b = std::fs::read(&p).unwrap();
        let mid = b.len() / 2;
        if b.is_empty() {
            continue; // (the sweep's stamp)
        }
        b[mid] ^= 0x55;
        std::fs::write(&p, b).unwrap();
    }
    let third = run_wizeng(&root, &args);
    assert_eq!(
        outcome(&third),
        "damaged entry ignored, result stored",
        "{third}"
    );
    assert_eq!(stdout(&first), stdout(&third));
    let fourth = run_wizeng(&root, &args);
    assert_eq!(outcome(&fourth), "hit (matching skipped)", "{fourth}");
    let mut off = args.clone();
    off.insert(0, "--cache=off".into());
    let fifth = run_wizeng(&root, &off);
    assert_eq!(
        outcome(&fifth),
        "not used: no code cache (--cache=off)",
        "{fifth}"
    );
    assert_eq!(stdout(&first), stdout(&fifth));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kept match keeps the block counters planned for it and the weave's
/// other decisions (per inline configuration), and a repeated run hands the code of a monitor's
/// `wasm:exit` to the compiler thread before the app runs; the report is
/// the same every time.
#[test]
fn kept_block_counters_and_exit_code_ahead() {
    let root = repo_root();
    let dir = std::env::temp_dir().join(format!("wizeng-kept-counters-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a = vec!["--metrics".into(), format!("--cache-dir={}", dir.display())];
        a.extend(extra.iter().map(|s| s.to_string()));
        // (`{csv}`: the monitor's own `wasm:exit` prints the report.)
        a.extend([
            "--monitors=hotness{csv}".into(),
            "tests/programs/sort.wasm".into(),
        ]);
        a
    };
    let metric = |out: &str, what: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("wizeng: metrics: {what}: ")))
            .map(str::to_string)
    };
    let stdout = |out: &str| out.split("--- stderr").next().unwrap().to_string();
    let first = run_wizeng(&root, &args(&[]));
    let plan = "block counter plan";
    let ahead = "monitor exit code handed to the compiler thread before the run";
    assert_eq!(
        metric(&first, plan).as_deref(),
        Some("planned, kept for the next run"),
        "{first}"
    );
    assert_eq!(metric(&first, ahead), None, "{first}");
    let second = run_wizeng(&root, &args(&[]));
    assert_eq!(
        metric(&second, plan).as_deref(),
        Some("kept from an earlier run"),
        "{second}"
    );
    // The weave's decisions were kept too: the second run decodes no plan.
    let decisions = "weave decisions";
    assert_eq!(
        metric(&first, decisions).as_deref(),
        Some("made from the match's plan, kept for the next run"),
        "{first}"
    );
    assert_eq!(
        metric(&second, decisions).as_deref(),
        Some("kept from an earlier run (the match's plan not decoded)"),
        "{second}"
    );
    let n = metric(&second, ahead).unwrap_or_else(|| panic!("nothing ahead: {second}"));
    let n: usize = n.strip_suffix(" functions").unwrap().parse().unwrap();
    assert!(n > 1, "{second}");
    assert_eq!(stdout(&first), stdout(&second));
    // Other inlining options: counters of their own.
    let off = run_wizeng(&root, &args(&["--block-counts=off"]));
    assert_eq!(
        metric(&off, plan).as_deref(),
        Some("planned, kept for the next run"),
        "{off}"
    );
    assert_eq!(stdout(&first), stdout(&off));
    assert_eq!(
        metric(&off, decisions).as_deref(),
        Some("made from the match's plan, kept for the next run"),
        "{off}"
    );
    let again = run_wizeng(&root, &args(&[]));
    assert_eq!(
        metric(&again, plan).as_deref(),
        Some("kept from an earlier run"),
        "{again}"
    );
    assert_eq!(stdout(&first), stdout(&again));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.mm` monitor is compiled once per cache directory: the next run takes
/// it from the cache and prints the same warnings; one that fails to compile
/// fails every time.
#[test]
fn compiled_scripts_are_cached() {
    let dir = std::env::temp_dir().join(format!("wizeng-script-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("warn.mm");
    std::fs::write(
        &script,
        "wasm:opcode:call:before { report unshared var n: u64; n++; 7; }\n",
    )
    .unwrap();
    let args = |s: &Path| -> Vec<String> {
        vec![
            "--metrics".into(),
            format!("--cache-dir={}", dir.join("cache").display()),
            format!("--monitors={}", s.display()),
            "tests/programs/indirect.wasm".into(),
        ]
    };
    let counts = |out: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix("wizeng: metrics: .mm monitors: "))
            .unwrap_or_else(|| panic!("no script metrics in: {out}"))
            .to_string()
    };
    let root = repo_root();
    let first = run_wizeng(&root, &args(&script));
    assert_eq!(counts(&first), "1 compiled, 0 from the cache", "{first}");
    assert!(
        first.contains("warning: expression statement has no effect"),
        "{first}"
    );
    let second = run_wizeng(&root, &args(&script));
    assert_eq!(counts(&second), "0 compiled, 1 from the cache", "{second}");
    assert_eq!(without_metrics(&first), without_metrics(&second));
    let bad = dir.join("bad.mm");
    std::fs::write(&bad, "wasm:opcode:call:before { nosuch++; }\n").unwrap();
    let (e1, e2) = (
        run_wizeng(&root, &args(&bad)),
        run_wizeng(&root, &args(&bad)),
    );
    assert!(e1.starts_with("exit: 3") && e1.contains("nosuch"), "{e1}");
    assert_eq!(e1, e2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `code cache H hits, M misses, R damaged...` of a `--metrics` run.
fn cache_counts(out: &str) -> [usize; 3] {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("wizeng: metrics: code cache "))
        .unwrap_or_else(|| panic!("no code cache metrics in: {out}"));
    let n: Vec<usize> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    [n[0], n[1], n[2]]
}

/// The compiled-code cache: a second run finds everything the first one
/// compiled and prints the same; damaged entries are ignored (compiled
/// afresh, same output); `--cache=off` uses no cache at all.
#[test]
fn code_cache_is_reused_and_checked() {
    let root = repo_root();
    let dir = std::env::temp_dir().join(format!("wizeng-cli-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args: Vec<String> = vec![
        "--mode=jit".into(),
        "--metrics".into(),
        format!("--cache-dir={}", dir.display()),
        "tests/programs/sort.wasm".into(),
    ];
    let stdout = |out: &str| out.split("--- stderr").next().unwrap().to_string();
    let first = run_wizeng(&root, &args);
    let [hits1, misses1, bad1] = cache_counts(&first);
    assert!(misses1 > 0 && bad1 == 0, "{first}");
    let second = run_wizeng(&root, &args);
    assert_eq!(cache_counts(&second), [hits1 + misses1, 0, 0], "{second}");
    assert_eq!(stdout(&first), stdout(&second));
    // Damage every entry (one byte of each payload): all are refused.
    let mut entries = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue; // the sweep's stamp
        }
        let mut b = std::fs::read(&p).unwrap();
        *b.last_mut().unwrap() ^= 0x55;
        std::fs::write(&p, b).unwrap();
        entries += 1;
    }
    let third = run_wizeng(&root, &args);
    let [_, _, bad3] = cache_counts(&third);
    assert!(bad3 > 0 && bad3 <= entries, "{third}");
    assert_eq!(stdout(&first), stdout(&third));
    let mut off = args.clone();
    off.insert(0, "--cache=off".into());
    let fourth = run_wizeng(&root, &off);
    assert!(!fourth.contains("code cache"), "{fourth}");
    assert_eq!(stdout(&first), stdout(&fourth));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run's output without its `--metrics` lines (each line ends in `\n`).
fn without_metrics(out: &str) -> String {
    out.lines()
        .filter(|l| !l.starts_with("wizeng: metrics"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The trapping cases of `tests/cli` (`trap_*.wat`) that run in every mode
/// (a case that names its own mode runs only in that one).
fn trap_cases(root: &Path) -> Vec<PathBuf> {
    let cases: Vec<PathBuf> = case_files(&root.join("tests/cli"), &["wat"], 20)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("trap_") && !args_of(p).iter().any(|a| a.starts_with("--mode"))
        })
        .collect();
    assert!(cases.len() >= 10, "expected the trap cases");
    cases
}

/// The command line of `case` (at `rel`) with `options` first: the case's
/// own options before the app, its app arguments after it.
fn case_args(mut options: Vec<String>, case: &Path, rel: &str) -> Vec<String> {
    let mut own = args_of(case);
    let split = own.iter().position(|a| !a.starts_with("--"));
    let rest = own.split_off(split.unwrap_or(own.len()));
    options.extend(own);
    options.push(rel.to_string());
    options.extend(rest);
    options
}

/// Machine code from the cache, keyed by its source (a plain module's
/// functions, `exec/jit/by_source.rs`), traps as freshly compiled code does:
/// every trapping case of `tests/cli` (`trap_*.wat`) gives its expected
/// output (trap kind, function and pc) in `jit` and `lazy` with an empty
/// cache and again when every function comes from the cache.
#[test]
fn traps_of_cached_code_are_located() {
    let root = repo_root();
    let cases = trap_cases(&root);
    let dir = std::env::temp_dir().join(format!("wizeng-cli-bysource-{}", std::process::id()));
    let mut failed = Vec::new();
    for case in &cases {
        let rel = case.strip_prefix(&root).unwrap().display().to_string();
        let expected = std::fs::read_to_string(case.with_extension("out")).unwrap();
        for mode in ["jit", "lazy"] {
            let _ = std::fs::remove_dir_all(&dir);
            let options = vec![
                format!("--mode={mode}"),
                format!("--cache-dir={}", dir.display()),
            ];
            let mut args = case_args(options, case, &rel);
            let first = run_wizeng(&root, &args);
            args.insert(0, "--metrics".into());
            let second = run_wizeng(&root, &args);
            let [hits, misses, bad] = cache_counts(&second);
            let second = without_metrics(&second);
            if first != expected || second != expected || hits == 0 || misses + bad > 0 {
                println!(
                    "FAIL {rel} [{mode}] ({hits} hits, {misses} misses, {bad} damaged)\n{second}"
                );
                failed.push(format!("{rel} [{mode}]"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failed.is_empty(),
        "{} case(s) failed: {failed:?}",
        failed.len()
    );
}

/// Woven code from the cache, keyed by the woven function's source (no IR
/// built, `exec/jit/by_source.rs`): every trapping case of `tests/cli` under a
/// per-instruction monitor prints the same (trap kind and site, report) in
/// `jit`, `lazy` and `dyn` with an empty cache, with a full one (where `jit`
/// and `lazy` place woven functions by source and compile nothing), and
/// with every entry damaged (refused, compiled afresh).
#[test]
fn woven_code_from_the_cache_is_the_same() {
    let root = repo_root();
    let cases = trap_cases(&root);
    let dir = std::env::temp_dir().join(format!("wizeng-cli-woven-{}", std::process::id()));
    let woven_hits = |out: &str| -> usize {
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("wizeng: metrics: code cache "))
            .unwrap_or_else(|| panic!("no code cache metrics in: {out}"));
        let n: Vec<usize> = line
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        n[4]
    };
    let mut failed = Vec::new();
    for case in &cases {
        let rel = case.strip_prefix(&root).unwrap().display().to_string();
        for mode in ["jit", "lazy", "dyn"] {
            let _ = std::fs::remove_dir_all(&dir);
            let options = vec![
                "--metrics".to_string(),
                format!("--mode={mode}"),
                format!("--cache-dir={}", dir.display()),
                "--monitors=hotness".into(),
            ];
            let args = case_args(options, case, &rel);
            let first = run_wizeng(&root, &args);
            let second = run_wizeng(&root, &args);
            let [_, misses, bad] = cache_counts(&second);
            let placed = woven_hits(&second);
            let compiled = mode != "dyn";
            let cached_ok = !compiled || (placed > 0 && misses + bad == 0);
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                let mut b = std::fs::read(&p).unwrap();
                let mid = b.len() / 2;
                if let Some(x) = b.get_mut(mid) {
                    *x ^= 0x55;
                }
                std::fs::write(&p, b).unwrap();
            }
            let third = run_wizeng(&root, &args);
            let [_, _, bad3] = cache_counts(&third);
            let (a, b, c) = (
                without_metrics(&first),
                without_metrics(&second),
                without_metrics(&third),
            );
            if a != b || a != c || !cached_ok || (compiled && bad3 == 0) || !a.contains("trap") {
                println!(
                    "FAIL {rel} [{mode}] ({placed} woven placed, {misses} misses, {bad} damaged; {bad3} damaged in the third run)\n--- first\n{a}--- second\n{b}--- third\n{c}"
                );
                failed.push(format!("{rel} [{mode}]"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failed.is_empty(),
        "{} case(s) failed: {failed:?}",
        failed.len()
    );
}

/// Every import `monitor_abi::PROVIDED_IMPORTS` lists is provided to a
/// monitor with exactly that signature (a reference of the importer's type
/// at one of its own types): a monitor importing all of them loads and runs
/// (its `wasm:exit` prints), in every mode.
#[test]
fn every_provided_import_links() {
    use monitor_abi::ImporterTyped;
    let mut wat = String::from("(module\n  (type $f (func))\n  (type $a (array (mut i8)))\n");
    for i in monitor_abi::PROVIDED_IMPORTS {
        let list = |ts: &[monitor_abi::ValType]| ts.iter().map(|t| t.name()).collect::<Vec<_>>();
        let (mut params, mut results) = (list(i.sig.params), list(i.sig.results));
        match i.importer_typed {
            Some(ImporterTyped::FuncResult) => results[0] = "(ref null $f)",
            Some(ImporterTyped::I8ArrayParam) => params[0] = "(ref null $a)",
            None => {}
        }
        wat.push_str(&format!(
            "  (import \"{}\" \"{}\" (func (param {}) (result {})))\n",
            i.module,
            i.name,
            params.join(" "),
            results.join(" ")
        ));
    }
    wat.push_str("  (memory (export \"memory\") 1)\n");
    wat.push_str("  (func (export \"wasm:exit\") (call 0 (i32.const 0) (i32.const 0))))\n");
    assert!(
        wat.contains("(array (mut i8)))\n  (import \"wizeng\" \"puts\""),
        "puts must be import 0"
    );
    let dir = std::env::temp_dir().join(format!("wizeng-provided-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("all.wat"), &wat).unwrap();
    let app = repo_root().join("tests/monitors/app.wat");
    for mode in modes() {
        let mut args = mode_args(&mode);
        args.push("--monitors=all.wat".into());
        args.push(app.display().to_string());
        let got = run_wizeng(&dir, &args);
        assert_eq!(
            got, "exit: 0\n--- stdout\napp done\n--- stderr\n",
            "mode {mode}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--metrics` ends with the process's peak memory, a positive number of MiB
/// (on a large app, start-up with monitors is largely memory).
#[test]
fn metrics_report_peak_memory() {
    let out = metrics("dyn", "hotness");
    let mib: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("wizeng: metrics: peak memory (max RSS) "))
        .and_then(|r| r.strip_suffix(" MiB"))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory line:\n{out}"));
    assert!(mib > 1.0, "implausible peak memory {mib} MiB:\n{out}");
}

/// A cache directory of `n` entries of 100 bytes, the oldest first (`0..n`
/// hours old), and a sweep stamp `stamp_age` hours old.
fn cache_dir_with_entries(name: &str, n: u64, stamp_age: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wizeng-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let hours_ago =
        |h: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(h * 3600);
    let set_age = |p: &Path, h: u64| {
        let f = std::fs::File::options().write(true).open(p).unwrap();
        let t = hours_ago(h);
        f.set_times(std::fs::FileTimes::new().set_accessed(t).set_modified(t))
            .unwrap();
    };
    for k in 0..n {
        let p = dir.join(format!("{:02x}", k));
        std::fs::write(&p, [0u8; 100]).unwrap();
        set_age(&p, n - k);
    }
    let stamp = dir.join("swept.stamp");
    std::fs::write(&stamp, b"").unwrap();
    set_age(&stamp, stamp_age);
    dir
}

/// The entries (hex-named files) left in `dir`, sorted.
fn entries_left(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.bytes().all(|b| b.is_ascii_hexdigit()))
        .collect();
    v.sort();
    v
}

/// `--sweep-cache=DIR` removes the least recently used entries beyond
/// `--cache-limit`, down to three quarters of it, and exits 0.
#[test]
fn sweep_cache_keeps_the_most_recent_entries() {
    let dir = cache_dir_with_entries("sweep-now", 10, 0);
    let out = run_wizeng(
        &repo_root(),
        &[
            "--sweep-cache".into(),
            dir.display().to_string(),
            "--cache-limit=800".into(),
        ],
    );
    assert!(out.starts_with("exit: 0"), "{out}");
    // 1000 bytes over a limit of 800: down to 600, the 6 most recent.
    assert_eq!(entries_left(&dir), ["04", "05", "06", "07", "08", "09"]);
    let missing = run_wizeng(
        &repo_root(),
        &[
            "--sweep-cache".into(),
            dir.join("nosuch").display().to_string(),
        ],
    );
    assert!(
        missing.starts_with("exit: 1") && missing.contains("--sweep-cache"),
        "{missing}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run that finds the last sweep more than an hour old claims the next
/// one (the stamp is new) and leaves it to a detached process, which
/// finishes after the run did; a run that finds a recent stamp sweeps not.
#[test]
fn a_due_sweep_runs_in_a_process_of_its_own() {
    let root = repo_root();
    // (Compiles in the foreground: a compiler thread may still be writing
    // an entry after the sweeping process listed the directory, one the
    // next sweep removes, which on a loaded machine made the count below
    // fail now and then.)
    let run = |dir: &Path| {
        run_wizeng(
            &root,
            &[
                format!("--cache-dir={}", dir.display()),
                "--cache-limit=800".into(),
                "--background-compile=off".into(),
                "tests/programs/indirect.wasm".into(),
            ],
        )
    };
    let recent = cache_dir_with_entries("sweep-recent", 10, 0);
    assert!(run(&recent).starts_with("exit: 0"));
    let due = cache_dir_with_entries("sweep-due", 10, 2);
    assert!(run(&due).starts_with("exit: 0"));
    let stamp_age = |d: &Path| {
        std::fs::metadata(d.join("swept.stamp"))
            .unwrap()
            .modified()
            .unwrap()
            .elapsed()
            .unwrap()
    };
    assert!(stamp_age(&due) < std::time::Duration::from_secs(600));
    // The sweeping process is not waited for by the run: wait for it here.
    // The run added entries of its own (the most recent): the sweep goes
    // down to 600 bytes, the oldest first.
    let bytes = |d: &Path| -> u64 {
        entries_left(d)
            .iter()
            .map(|n| std::fs::metadata(d.join(n)).unwrap().len())
            .sum()
    };
    let t0 = std::time::Instant::now();
    while bytes(&due) > 600 && t0.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(bytes(&due) <= 600, "{:?}", entries_left(&due));
    let old: Vec<String> = (0..10).map(|k| format!("{k:02x}")).collect();
    let kept: Vec<&String> = old.iter().filter(|n| due.join(n).exists()).collect();
    assert!(old.ends_with(&kept.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
    assert!(bytes(&recent) > 800, "no sweep where the stamp is recent");
    for d in [recent, due] {
        let _ = std::fs::remove_dir_all(&d);
    }
}
