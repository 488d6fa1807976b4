//! Runs our own C test programs (`tests/programs/*.c`) natively and as
//! committed wasm32-wasi builds (`tests/programs/NAME.wasm`, `NAME.*.wasm`)
//! through the `wizeng` binary, and checks that stdout and exit status are
//! identical.
//!
//! Environment:
//! - `WIZENG_MODES`: engine modes to run, comma- or space-separated (default
//!   `int,jit,lazy,dyn`; dyn runs with `--dyn-threshold=2`).
//! - `WIZENG`: engine command to use instead of the built `wizeng` binary
//!   (split on whitespace), e.g. `python3 scripts/run_wasmtime.py`.
//! - `WIZENG_PROGRAMS`: only run programs whose wasm file name contains this substring.
//! - `WIZENG_PROGRAM_TIMEOUT`: per-run timeout in seconds (default 120).
//! - `CC`: native C compiler (default `cc`; needs libm).
//!
//! Rebuild the `.wasm` files with `scripts/build-test-programs.sh`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// Flags shared with scripts/build-test-programs.sh (no FMA contraction, so
/// native and Wasm floating point agree bit for bit).
const NATIVE_FLAGS: &[&str] = &["-O2", "-ffp-contract=off", "-w"];

struct Outcome {
    stdout: Vec<u8>,
    /// Exit code; `None` if killed by a signal.
    code: Option<i32>,
    elapsed: Duration,
}

fn run_with_timeout(mut cmd: Command, cwd: &Path, timeout: Duration) -> Result<Outcome> {
    let start = Instant::now();
    let mut child = cmd
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {cmd:?}"))?;
    // Drain the pipes on threads so a chatty child cannot block.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            bail!("timed out after {}s", timeout.as_secs());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let stdout = t_out.join().unwrap();
    let stderr = t_err.join().unwrap();
    if status.code().is_none() {
        bail!(
            "killed by a signal ({status}); stderr: {}",
            String::from_utf8_lossy(&stderr).trim()
        );
    }
    // Engine diagnostics are useful in failure reports.
    if status.code() != Some(0) && !stderr.is_empty() {
        let head: String = String::from_utf8_lossy(&stderr)
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join(" | ");
        eprintln!("    stderr: {head}");
    }
    Ok(Outcome {
        stdout,
        code: status.code(),
        elapsed,
    })
}

/// The first differing line of two outputs, for failure reports.
fn diff_head(expected: &[u8], actual: &[u8]) -> String {
    let e = String::from_utf8_lossy(expected);
    let a = String::from_utf8_lossy(actual);
    let (el, al): (Vec<&str>, Vec<&str>) = (e.split('\n').collect(), a.split('\n').collect());
    for i in 0..el.len().max(al.len()) {
        let (x, y) = (el.get(i), al.get(i));
        if x != y {
            return format!(
                "line {}: expected {:?}, got {:?} ({} vs {} bytes)",
                i + 1,
                x.unwrap_or(&"<eof>"),
                y.unwrap_or(&"<eof>"),
                expected.len(),
                actual.len()
            );
        }
    }
    String::from("outputs differ")
}

fn engine_command() -> (String, Vec<String>) {
    if let Ok(w) = std::env::var("WIZENG") {
        let mut parts = w.split_whitespace().map(String::from);
        if let Some(prog) = parts.next() {
            return (prog, parts.collect());
        }
    }
    (env!("CARGO_BIN_EXE_wizeng").to_string(), Vec::new())
}

/// `dir/NAME.wasm` and `dir/NAME.<variant>.wasm`, sorted.
fn wasm_variants(dir: &Path, name: &str) -> Result<Vec<PathBuf>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        let f = p.file_name().unwrap().to_string_lossy().into_owned();
        if f.ends_with(".wasm") && f.split('.').next() == Some(name) {
            v.push(p);
        }
    }
    v.sort();
    Ok(v)
}

#[test]
fn c_programs_match_native() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let dir = root.join("tests/programs");
    let modes: Vec<String> = std::env::var("WIZENG_MODES")
        .unwrap_or_else(|_| "int,jit,lazy,dyn".into())
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let filter = std::env::var("WIZENG_PROGRAMS").unwrap_or_default();
    let timeout = Duration::from_secs(
        std::env::var("WIZENG_PROGRAM_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120),
    );
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let (engine, engine_pre) = engine_command();

    let tmp = std::env::temp_dir().join(format!("wizeng-programs-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    sources.sort();

    let (mut passed, mut failed) = (0usize, 0usize);
    let mut failures = Vec::new();
    for src in &sources {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let wasms: Vec<PathBuf> = wasm_variants(&dir, &name)?
            .into_iter()
            .filter(|w| {
                w.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .contains(filter.as_str())
            })
            .collect();
        if wasms.is_empty() {
            continue;
        }
        // Native reference.
        let exe = tmp.join(&name);
        let cc_out = Command::new(&cc)
            .args(NATIVE_FLAGS)
            .arg("-o")
            .arg(&exe)
            .arg(src)
            .arg("-lm")
            .output()
            .with_context(|| format!("cannot run the native C compiler `{cc}`"))?;
        let native = if cc_out.status.success() {
            run_with_timeout(Command::new(&exe), &tmp, timeout)
        } else {
            Err(anyhow::anyhow!(
                "native compile failed: {}",
                String::from_utf8_lossy(&cc_out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ))
        };
        for wasm in &wasms {
            let wname = wasm.file_name().unwrap().to_string_lossy().into_owned();
            for mode in &modes {
                let label = format!("{wname} [{mode}]");
                let native = match &native {
                    Ok(n) => n,
                    Err(e) => {
                        println!("FAIL {label}: {e:#}");
                        failures.push(label);
                        failed += 1;
                        continue;
                    }
                };
                let cwd = tmp.join("cwd");
                std::fs::create_dir_all(&cwd)?;
                let mut cmd = Command::new(&engine);
                cmd.args(&engine_pre)
                    .arg(format!("--mode={mode}"))
                    .args((mode == "dyn").then_some("--dyn-threshold=2"))
                    .arg(wasm);
                let verdict = match run_with_timeout(cmd, &cwd, timeout) {
                    Err(e) => Err(format!("{e:#}")),
                    Ok(w) if w.code != native.code => Err(format!(
                        "exit status {}, expected {}{}",
                        w.code.unwrap_or(-1),
                        native.code.unwrap_or(-1),
                        if w.stdout != native.stdout {
                            format!("; stdout differs: {}", diff_head(&native.stdout, &w.stdout))
                        } else {
                            String::new()
                        }
                    )),
                    Ok(w) if w.stdout != native.stdout => Err(format!(
                        "stdout differs: {}",
                        diff_head(&native.stdout, &w.stdout)
                    )),
                    Ok(w) => Ok(format!(
                        "{:.2}s (native {:.3}s), exit {}",
                        w.elapsed.as_secs_f64(),
                        native.elapsed.as_secs_f64(),
                        w.code.unwrap_or(-1)
                    )),
                };
                match verdict {
                    Ok(info) => {
                        println!("PASS {label}: {info}");
                        passed += 1;
                    }
                    Err(why) => {
                        println!("FAIL {label}: {why}");
                        failures.push(label);
                        failed += 1;
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{passed} passed, {failed} failed");
    if passed + failed == 0 {
        bail!(
            "no test programs found in {} (filter {filter:?})",
            dir.display()
        );
    }
    if failed > 0 {
        bail!("{failed} program run(s) failed: {}", failures.join(", "));
    }
    Ok(())
}
