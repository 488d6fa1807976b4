//! Wasm 3.0 programs (GC and exception handling): every `tests/wasm3/*.wat`
//! runs in each mode of `WIZENG_MODES` (default int, jit, lazy, dyn; dyn
//! tiers up at the second call) and must print `NAME.expected`, which is what
//! Wasmtime prints for it (`scripts/wasm3-vs-wasmtime.py --write`
//! regenerates the files from Wasmtime, never from us).
//!
//! `gc_reclaims_garbage` runs the binary-trees program far past the heap's
//! live size and checks the process's peak resident memory.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wasm3")
}

fn modes() -> Vec<String> {
    std::env::var("WIZENG_MODES")
        .unwrap_or_else(|_| "int,jit,lazy,dyn".into())
        .split(',')
        .map(String::from)
        .collect()
}

fn mode_args(mode: &str) -> Vec<String> {
    let mut v = vec![format!("--mode={mode}")];
    if mode == "dyn" {
        v.push("--dyn-threshold=2".into());
    }
    v
}

#[test]
fn programs_print_what_wasmtime_prints() {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "wat"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 3, "tests/wasm3 has its programs");
    let mut failures = Vec::new();
    for p in &programs {
        let want = std::fs::read_to_string(p.with_extension("expected")).unwrap();
        for mode in modes() {
            let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
                .args(mode_args(&mode))
                .arg(p)
                .output()
                .unwrap();
            let got = String::from_utf8_lossy(&out.stdout);
            if !out.status.success() || got != want {
                failures.push(format!(
                    "{} --mode={mode}: status {}\n--- got:\n{got}--- expected:\n{want}--- stderr:\n{}",
                    p.display(),
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs wizeng and returns (stdout, stderr, peak resident set in KiB).
fn run_measured(args: &[String]) -> (String, String, i64) {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (String::new(), String::new());
    // The outputs are small: read them to the end, then reap the child.
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "wizeng failed: {err}"
    );
    (out, err, ru.ru_maxrss)
}

/// Binary trees of depth 16: about 1.6 GB of objects allocated in total, at
/// most ~15 MB live at once. The process must stay far below the total.
#[test]
fn gc_reclaims_garbage() {
    let wat = dir().join("binary_trees.wat");
    let args: Vec<String> = vec![
        "--mode=int".into(),
        "--metrics".into(),
        "--invoke=run".into(),
        wat.display().to_string(),
        "16".into(),
    ];
    let (out, err, peak_kib) = run_measured(&args);
    assert!(out.contains("long-lived 131071"), "{out}");
    let line = err
        .lines()
        .find(|l| l.contains("metrics: gc:"))
        .unwrap_or_else(|| panic!("no gc metrics in {err}"));
    // "... N objects allocated (X MiB) ..."
    let allocated_mib: f64 = line
        .split('(')
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("allocated MiB in {line}"));
    let peak_mib = peak_kib as f64 / 1024.0;
    eprintln!("binary trees 16: allocated {allocated_mib:.0} MiB, peak resident {peak_mib:.0} MiB ({line})");
    assert!(allocated_mib > 1000.0, "{line}");
    assert!(
        peak_mib < 250.0,
        "peak resident {peak_mib:.0} MiB: garbage is not reclaimed"
    );
}

/// `run` (GC code, interpreted in every tier) keeps a 1 MiB array in a
/// local and tail-calls `middle` (numeric: compiled in jit), which has
/// `alloc` (interpreted) allocate 1 MiB arrays. The tail call ends `run`'s
/// activation, so its array is garbage: under a 1.5 MiB heap limit (arrays count 8 bytes an element) every tier
/// must get through. The interpreter kept the frame of a tail call out of
/// it (into compiled code) as a GC root, so the JIT tiers ran out of heap
/// where the interpreter did not (differential seed 3010575).
#[test]
fn a_tail_call_out_of_the_interpreter_drops_the_callers_references() {
    const APP: &str = r#"(module
      (type $bytes (array (mut i8)))
      (func $alloc
        (drop (array.new_default $bytes (i32.const 131072))))
      (func $middle (param $n i32)
        (loop $again
          (call $alloc)
          (local.tee $n (i32.sub (local.get $n) (i32.const 1)))
          (br_if $again)))
      (func (export "run")
        (local $kept (ref null $bytes))
        (local.set $kept (array.new_default $bytes (i32.const 131072)))
        (return_call $middle (i32.const 8))))"#;
    let bytes = wat::parse_str(APP).unwrap();
    let mut failures = Vec::new();
    for tier in [
        wizeng::Tier::Int,
        wizeng::Tier::Jit,
        wizeng::Tier::Lazy,
        wizeng::Tier::Dyn,
    ] {
        let module = std::sync::Arc::new(wizeng::Module::new_for_tier(&bytes, tier).unwrap());
        let mut store = wizeng::Store::new(wizeng::Config {
            tier,
            max_gc_heap_bytes: 3 << 19,
            ..wizeng::Config::default()
        });
        let inst = wizeng::Linker::new()
            .instantiate(&mut store, &module)
            .unwrap();
        let run = store.export_func(inst, "run").unwrap();
        if let Err(e) = store.invoke(run, &[]) {
            failures.push(format!("{tier:?}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
