//! The `wizeng` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::Parser;

use wizeng::monitor::session::{Session, SessionConfig, SessionError};
use wizeng::wasi::WasiCtx;
use wizeng::{Store, Value};

// The library leaves the allocator to its users; the command line picks one
// made for many small, short-lived allocations (Cargo.toml says why).
// (`--features system-alloc` keeps the system's, for heap profilers.)
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc gives freed memory back to the system after a delay of 10 ms
/// (`purge_delay`); this makes it a second (`MIMALLOC_PURGE_DELAY` still
/// overrides). Loading a large monitored app frees and reallocates hundreds
/// of megabytes within a second: with 10 ms, boa's load gave about 140 MB
/// back (splitting huge pages) and faulted part of it in again, a varying
/// 0.5-3k page faults more per run; with a second, none is given back before
/// exit and the count is the same in every run (scripts/README.md, "Attach
/// cost"). A second is longer than a load, and memory still goes back during
/// long runs.
#[cfg(not(feature = "system-alloc"))]
fn tune_allocator() {
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15; // mimalloc.h, `mi_option_e`
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain store to one of mimalloc's options, made first thing in
        // `main`, before any other thread exists.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 1000) };
    }
}

/// Exit statuses of the engine itself (the app's own status is passed through).
/// Those of a monitored session's errors (3: monitor bind, 125: load, 126:
/// link, 134: trap during instantiation) come from `SessionError::exit_status`.
mod status {
    /// Command-line usage error (also what clap uses).
    pub const USAGE: u8 = 2;
    /// The module could not be read, decoded, validated, or needs an unsupported feature.
    pub const LOAD: u8 = 125;
    /// The application trapped (128 + SIGABRT, as other engines do).
    pub const TRAP: u8 = 134;
}

#[derive(Parser, Debug)]
#[command(
    name = "wizeng",
    version,
    about = "A WebAssembly engine whose instrumentation monitors are Wasm modules"
)]
struct Cli {
    /// Execution tier: dyn (interpret, compile hot functions and enter hot
    /// loops in compiled code; the default), jit (compile everything first),
    /// lazy (compile each function on its first call) or int (interpreter).
    /// The JIT is built for x86-64 Linux only; elsewhere dyn interprets and
    /// jit/lazy are refused.
    #[arg(long, default_value = "dyn")]
    mode: String,
    /// Dyn tier: compile a function at its N-th call, enter a loop's compiled
    /// code at its N-th iteration [default: 1000, and then, without monitors,
    /// code that no earlier run compiled waits until it has run twice as long
    /// as compiling it would take]
    #[arg(long, value_name = "N")]
    dyn_threshold: Option<u32>,
    /// Dyn tier: compile hot code on a background thread while the
    /// interpreter keeps running (on), or stop and compile it (off).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    background_compile: String,
    /// Compiled-code cache (JIT tiers): reuse machine code compiled by
    /// earlier runs, and with monitors their match results (on), or compile
    /// and match everything afresh (off).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    cache: String,
    /// Directory of the compiled-code cache (default: $WIZENG_CACHE_DIR, else
    /// $XDG_CACHE_HOME/wizeng, else ~/.cache/wizeng).
    #[arg(long = "cache-dir", value_name = "PATH")]
    cache_dir: Option<std::path::PathBuf>,
    /// Most bytes the cache's entries may take (e.g. 512M, 2G; 0: no
    /// limit): at most hourly, the least recently used beyond it are removed.
    #[arg(long = "cache-limit", value_name = "SIZE", default_value = "1G",
          value_parser = parse_cache_limit)]
    cache_limit: u64,
    /// Preopen a host directory for WASI: PATH, or HOST::GUEST to map it to another guest path.
    #[arg(long = "dir", value_name = "PATH")]
    dirs: Vec<String>,
    /// Set an environment variable for the app (repeatable).
    #[arg(long = "env", value_name = "K=V")]
    envs: Vec<String>,
    /// Call this export instead of `_start`/`main`; the app args are its arguments.
    #[arg(long)]
    invoke: Option<String>,
    /// Monitors to run beside the app: M1[+lib.wasm...][,M2...].
    #[arg(long)]
    monitors: Option<String>,
    /// Built-in monitors' report format: table, csv (whamm's) or json.
    #[arg(long, default_value = "table", value_parser = ["table", "csv", "json"])]
    report: String,
    /// Write the built-in monitors' reports to this file instead of stdout.
    #[arg(long = "report-file", value_name = "PATH")]
    report_file: Option<std::path::PathBuf>,
    /// Run the coverage monitor and write its counts as an lcov tracefile.
    #[arg(long, value_name = "FILE")]
    lcov: Option<String>,
    /// Treat monitor warnings as errors.
    #[arg(long)]
    fatal: bool,
    /// Print load/validate/compile/run times to stderr.
    #[arg(long)]
    metrics: bool,
    /// JIT: inline small monitor functions into instrumented code (on|off).
    #[arg(long, default_value = "on")]
    inline: String,
    /// JIT: largest monitor function (in instructions) that is inlined.
    #[arg(long = "inline-max-size", default_value_t = 64)]
    inline_max_size: usize,
    /// JIT with inlining: count pure counter probes once per block (on|off).
    #[arg(long = "block-counts", default_value = "on", value_parser = ["on", "off"])]
    block_counts: String,
    /// JIT with inlining: inline a probe that only tests an operand against
    /// zero twice, under a test of the operand, so each copy folds (on|off).
    #[arg(long = "specialize", default_value = "on", value_parser = ["on", "off"])]
    specialize: String,
    /// Write /tmp/perf-<pid>.map (one line per compiled function) for Linux perf.
    #[arg(long = "perf-map")]
    perf_map: bool,
    /// Write /tmp/jit-<pid>.dump (jitdump, with code) for `perf record -k mono` + `perf inject --jit`.
    #[arg(long = "perf-jitdump")]
    perf_jitdump: bool,
    /// Colored output (accepted for compatibility).
    #[arg(long, value_name = "BOOL")]
    colors: Option<String>,
    /// Expose host modules to the app (e.g. `wizeng`).
    #[arg(long)]
    expose: Vec<String>,
    /// Write the app with the monitors' probes woven in (as the JIT compiles it,
    /// per --inline/--block-counts) and the monitors merged into ONE standalone
    /// module (needs only WASI and multi-memory, e.g. `wasmtime run`); don't run it.
    #[arg(long = "emit-woven", value_name = "OUT.wasm")]
    emit_woven: Option<PathBuf>,
    /// Sweep this cache directory and exit (leftover temporary files, then
    /// the least recently used entries beyond --cache-limit): what a run
    /// starts, at most hourly, as a detached low-priority process.
    #[arg(long = "sweep-cache", value_name = "DIR", hide = true)]
    sweep_cache: Option<PathBuf>,
    /// The application module (.wasm or .wat).
    #[arg(required_unless_present = "sweep_cache")]
    app: Option<PathBuf>,
    /// Arguments passed to the application.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

impl Cli {
    /// The application (clap requires it unless `--sweep-cache` is given,
    /// which [`main`] handles before anything reads this).
    fn app(&self) -> &std::path::Path {
        self.app.as_deref().unwrap_or(std::path::Path::new(""))
    }

    /// The code cache's directory, if the cache is on.
    fn cache_dir(&self) -> Option<PathBuf> {
        (self.cache == "on")
            .then(|| self.cache_dir.clone().or_else(default_cache_dir))
            .flatten()
    }
}

fn main() -> ExitCode {
    #[cfg(not(feature = "system-alloc"))]
    tune_allocator();
    // `--ext:NAME` enables a Wasm feature by name; every feature we implement is always on.
    let argv: Vec<String> = std::env::args()
        .filter(|a| !a.starts_with("--ext:"))
        .collect();
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { status::USAGE } else { 0 });
        }
    };
    if let Some(dir) = &cli.sweep_cache {
        return sweep_cache(dir, cli.cache_limit);
    }
    // The cache's hourly sweep, if due, is claimed now (before a compiler
    // thread could start one it may not finish) and runs after the app.
    let limit = cli.cache_limit;
    let sweep = cli
        .cache_dir()
        .filter(|d| wizeng::jit::cache::claim_sweep(d));
    let result = run(cli);
    if let Some(dir) = sweep {
        start_cache_sweep(&dir, limit);
    }
    #[cfg(feature = "op-stats")]
    wizeng::interp::print_op_stats();
    match result {
        Ok(code) => code,
        Err(Failure(code, err)) => {
            match err.downcast_ref::<Raw>() {
                Some(Raw(text)) => eprint!("{text}"),
                None => eprintln!("wizeng: {err:#}"),
            }
            ExitCode::from(code)
        }
    }
}

/// `--sweep-cache=DIR`: sweep the directory at low priority; 0, or 1 with
/// a message if it cannot be read.
fn sweep_cache(dir: &std::path::Path, limit: u64) -> ExitCode {
    // SAFETY: setpriority only changes this process's scheduling priority.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
    // Idle I/O class too (unlinking 100k files otherwise slows other
    // processes' reads): ioprio_set(IOPRIO_WHO_PROCESS, self, IDLE << 13).
    #[cfg(target_os = "linux")]
    // SAFETY: ioprio_set takes three integers and changes only this
    // process's I/O priority; a failure is ignored.
    unsafe {
        libc::syscall(libc::SYS_ioprio_set, 1, 0, 3 << 13)
    };
    match wizeng::jit::cache_limit::sweep(dir, limit) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wizeng: --sweep-cache: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Sweep cache directory `dir` in a detached process of this executable
/// (`--sweep-cache`): listing a large directory takes longer than a short
/// run lives. Not waited for; if it cannot be started, the next claim (in
/// an hour) tries again.
fn start_cache_sweep(dir: &std::path::Path, limit: u64) {
    use std::process::{Command, Stdio};
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let _ = Command::new(exe)
        .arg("--sweep-cache")
        .arg(dir)
        .arg(format!("--cache-limit={limit}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

struct Failure(u8, anyhow::Error);

/// An error message printed as it is, without the `wizeng: ` prefix (a
/// monitor script's compiler diagnostics).
#[derive(Debug)]
struct Raw(String);

impl std::fmt::Display for Raw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Raw {}

fn fail(code: u8) -> impl FnOnce(anyhow::Error) -> Failure {
    move |e| Failure(code, e)
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    let config = session_config(&cli)?;
    let t0 = std::time::Instant::now();
    // A module validated by an earlier run is not validated again at load
    // (its bodies still are, each at its first use).
    if let Some(dir) = &config.engine.code_cache {
        wizeng::interp::validated::remember_validated_modules_in(dir);
    }
    let mut s = Session::new(config, wasi_ctx(&cli)?);
    if cli.perf_map {
        let path = format!("/tmp/perf-{}.map", std::process::id());
        let f = std::fs::File::create(&path)
            .with_context(|| format!("--perf-map: cannot create {path}"))
            .map_err(fail(status::USAGE))?;
        s.store_mut().set_perf_map(f);
    }
    if cli.perf_jitdump {
        s.store_mut()
            .enable_jitdump()
            .context("--perf-jitdump: cannot create /tmp/jit-<pid>.dump")
            .map_err(fail(status::USAGE))?;
    }
    if cli.expose.iter().any(|e| e == "wizeng") {
        s.expose_wizeng();
    }
    // Monitors are instantiated first (their start functions run, knowing the
    // app as declared), then matched against the app while it is validated
    // and translated.
    s.set_app_path(&cli.app().display().to_string());
    let bytes = wizeng::module::read_binary(cli.app())
        .map_err(|e| Failure(status::LOAD, anyhow!("{}: {e}", cli.app().display())))?;
    let monitors = monitor_list(&cli);
    if !monitors.is_empty() {
        s.announce_app(&bytes);
    }
    s.load_monitors(&monitors).map_err(session_failure(&cli))?;
    // The dyn tier compiles what got hot in the last run at its first call
    // (a record in the code cache's directory, per module: with monitors,
    // the woven app's and each monitor's).
    s.store_mut().enable_warm_start();
    // The default threshold, without monitors: compiles that would miss the
    // cache wait for the run to have lasted long enough (`tiering.rs`, `Budget`).
    if cli.dyn_threshold.is_none() && monitors.is_empty() {
        s.store_mut().enable_compile_budget();
    }
    if let Some(path) = &cli.emit_woven {
        let b = s.emit_woven(&bytes).map_err(session_failure(&cli))?;
        std::fs::write(path, b)
            .with_context(|| format!("--emit-woven: cannot write {}", path.display()))
            .map_err(fail(status::USAGE))?;
        return Ok(ExitCode::SUCCESS);
    }
    s.load_app(&bytes).map_err(session_failure(&cli))?;
    let t_load = t0.elapsed();
    let result = run_app(&cli, &mut s, t_load);
    s.store_mut().save_warm_start();
    // No app code runs after this: the exit's reports reuse the memory.
    s.release_unwoven();
    // `wasm:exit` runs after the app ends: normally, by proc_exit, or after a
    // trap (then after the trap message). The exit status stays the app's.
    let result = match result {
        Err(Failure(code, err)) if code == status::TRAP && s.has_monitors() => {
            eprintln!("wizeng: {err:#}");
            if let Err(t) = s.finish() {
                eprintln!("wizeng: trap: {t}");
            }
            Ok(ExitCode::from(status::TRAP))
        }
        Ok(code) => match s.finish() {
            Ok(()) => Ok(code),
            Err(t) => Err(Failure(status::TRAP, anyhow!("trap: {t}"))),
        },
        Err(f) => Err(f),
    };
    if cli.metrics {
        print_monitor_metrics(&s);
        if let Some(kib) = peak_rss_kib() {
            // Start-up with monitors is largely memory: fresh pages cost.
            eprintln!(
                "wizeng: metrics: peak memory (max RSS) {:.1} MiB",
                kib as f64 / 1024.0
            );
        }
    }
    // The process ends here: freeing the store, the app's code and the
    // monitors' match results one by one would only delay the exit (every
    // output was flushed by `finish`).
    std::mem::forget(s);
    result
}

/// The tier, its threshold and the weaving options from the command line.
fn session_config(cli: &Cli) -> Result<SessionConfig, Failure> {
    let tier = match cli.mode.as_str() {
        "int" => wizeng::Tier::Int,
        // Without the JIT (targets other than x86-64 Linux), dyn interprets.
        "dyn" if !wizeng::jit::AVAILABLE => wizeng::Tier::Int,
        "jit" | "lazy" if !wizeng::jit::AVAILABLE => {
            return Err(Failure(
                status::USAGE,
                anyhow!(
                    "--mode={}: this build has no JIT (x86-64 Linux only); use --mode=int",
                    cli.mode
                ),
            ))
        }
        "jit" => wizeng::Tier::Jit,
        "lazy" => wizeng::Tier::Lazy,
        "dyn" => wizeng::Tier::Dyn,
        other => {
            return Err(Failure(
                status::USAGE,
                anyhow!("--mode={other}: expected int, jit, lazy or dyn"),
            ))
        }
    };
    if cli.dyn_threshold == Some(0) {
        return Err(Failure(
            status::USAGE,
            anyhow!("--dyn-threshold=0: expected at least 1"),
        ));
    }
    let inline = wizeng::inline::InlineConfig {
        enabled: match cli.inline.as_str() {
            "on" => true,
            "off" => false,
            other => {
                return Err(Failure(
                    status::USAGE,
                    anyhow!("--inline={other}: expected on or off"),
                ))
            }
        },
        max_size: cli.inline_max_size,
        block_counts: cli.block_counts == "on",
        specialize: cli.specialize == "on",
        ..Default::default()
    };
    Ok(SessionConfig {
        engine: wizeng::Config {
            tier,
            dyn_threshold: cli
                .dyn_threshold
                .unwrap_or(wizeng::Config::default().dyn_threshold),
            background_compile: cli.background_compile == "on",
            code_cache: cli.cache_dir(),
            code_cache_limit: cli.cache_limit,
            ..Default::default()
        },
        inline,
        fatal: cli.fatal,
        metrics: cli.metrics,
        report_format: wizeng::monitor::builtin::Format::parse(&cli.report).unwrap_or_default(),
        report_file: cli.report_file.clone(),
    })
}

/// `--monitors`, plus the coverage monitor writing lcov for `--lcov=FILE`.
/// `--cache-limit`: a size in bytes, or with a binary suffix (`512M`).
fn parse_cache_limit(s: &str) -> Result<u64, String> {
    parse_size(s)
        .ok_or_else(|| format!("`{s}` is not a size (bytes, or a number with K, M, G or T)"))
}

/// Parse a size as the command line takes it: bytes, or a number with a
/// suffix `K`, `M`, `G` or `T` (powers of 1024; `KiB` etc. and lower case
/// are accepted too).
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(digits);
    let num: u64 = num.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    num.checked_mul(1u64 << shift)
}

/// The compiled-code cache's default directory: `$WIZENG_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/wizeng`, else `~/.cache/wizeng` (none without a home).
fn default_cache_dir() -> Option<std::path::PathBuf> {
    let var = |k| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = var("WIZENG_CACHE_DIR") {
        return Some(d.into());
    }
    if let Some(d) = var("XDG_CACHE_HOME") {
        return Some(std::path::PathBuf::from(d).join("wizeng"));
    }
    var("HOME").map(|h| std::path::PathBuf::from(h).join(".cache").join("wizeng"))
}

fn monitor_list(cli: &Cli) -> String {
    let mut list = cli.monitors.clone().unwrap_or_default();
    if let Some(file) = &cli.lcov {
        if !list.is_empty() {
            list.push(',');
        }
        list.push_str(&format!("coverage{{lcov,file={file}}}"));
    }
    list
}

/// The app's WASI context: its name and arguments, environment, preopens.
fn wasi_ctx(cli: &Cli) -> Result<WasiCtx, Failure> {
    let app_name = cli
        .app()
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut ctx = WasiCtx::new().arg(app_name);
    if cli.invoke.is_none() {
        ctx = ctx.args(cli.args.iter().cloned());
    }
    for e in &cli.envs {
        let (k, v) = e
            .split_once('=')
            .ok_or_else(|| Failure(status::USAGE, anyhow!("--env={e}: expected K=V")))?;
        ctx = ctx.env(k, v);
    }
    for d in &cli.dirs {
        ctx = ctx
            .preopened_dir_spec(d)
            .with_context(|| format!("--dir={d}"))
            .map_err(fail(status::USAGE))?;
    }
    Ok(ctx)
}

/// A session error as the command reports it: the app's path, the message,
/// and the error's documented exit status.
fn session_failure(cli: &Cli) -> impl Fn(SessionError) -> Failure + '_ {
    move |e| {
        let code = e.exit_status();
        match e {
            SessionError::Monitor(m) => Failure(code, anyhow!("{m}")),
            // Printed as `whamm check` prints them (main prints nothing more).
            SessionError::Compile(m) => Failure(code, anyhow!(Raw(m))),
            SessionError::Usage(m) => Failure(code, anyhow!("{m}")),
            e => Failure(code, anyhow!("{}: {e}", cli.app().display())),
        }
    }
}

/// Instantiate the app, find its entry point, run it; the exit status.
fn run_app(cli: &Cli, s: &mut Session, t_load: std::time::Duration) -> Result<ExitCode, Failure> {
    let inst = match s.instantiate() {
        Ok(i) => i,
        Err(SessionError::Instantiate(t)) if t.exit_code().is_some() => {
            return Ok(exit_code(t.exit_code().unwrap_or(0)))
        }
        Err(e) => return Err(session_failure(cli)(e)),
    };
    let (func, args) = entry_point(cli, s.store(), inst)?;
    if let Err(t) = s.begin() {
        return Err(Failure(status::TRAP, anyhow!("trap: {t}")));
    }
    let t1 = std::time::Instant::now();
    let c1 = thread_cpu_time();
    let r = s.run(func, &args);
    let run_cpu = thread_cpu_time().saturating_sub(c1);
    // The app's buffered output comes before anything the engine prints.
    let _ = s.wasi().borrow_mut().flush();
    if cli.metrics {
        let store = s.store();
        eprintln!(
            "wizeng: metrics: load+validate+translate {:.3} ms, jit compile {:.3} ms, run {:.3} ms",
            t_load.as_secs_f64() * 1e3,
            store.jit_compile_time().as_secs_f64() * 1e3,
            t1.elapsed().as_secs_f64() * 1e3
        );
        // On a shared machine, the run's CPU time varies less than its wall time.
        eprintln!(
            "wizeng: metrics: run cpu {:.3} ms",
            run_cpu.as_secs_f64() * 1e3
        );
        if store.config().tier != wizeng::Tier::Int {
            eprintln!(
                "wizeng: metrics: {} functions run interpreted (exception handling or Wasm GC)",
                store.interp_only_funcs()
            );
        }
        if store.config().tier == wizeng::Tier::Dyn {
            let (funcs, osr) = store.dyn_stats();
            eprintln!(
                "wizeng: metrics: dyn tier compiled {funcs} functions and {osr} loop entries (OSR), {} requests put off until the run had lasted long enough",
                store.compile_budget_deferrals()
            );
            let w = store.warm_start_stats();
            if store.config().code_cache.is_some() {
                eprintln!(
                    "wizeng: metrics: warm start: {} functions compiled at their first call, {} handed to the compiler thread at start ({} named by records), {} damaged records ignored",
                    w.compiled_first, w.prefetched, w.named, w.rejected
                );
            }
            let bg = store.background_stats();
            if store.config().background_compile {
                eprintln!(
                    "wizeng: metrics: background compile {:.3} ms ({} done, {} still compiling at exit, {} taken back by the main thread), linking {:.3} ms, {} JIT set-up built there",
                    bg.compile_time.as_secs_f64() * 1e3,
                    bg.done,
                    bg.in_flight,
                    bg.taken_back,
                    bg.link_time.as_secs_f64() * 1e3,
                    bg.setups
                );
            }
        }
        if store.config().code_cache.is_some() && store.config().tier != wizeng::Tier::Int {
            let (hits, misses, rejected) = store.code_cache_stats();
            let (by_source, woven) = store.code_cache_hits_by_source();
            eprintln!(
                "wizeng: metrics: code cache {hits} hits, {misses} misses, {rejected} damaged entries ignored; {by_source} functions placed by source, {woven} of them woven (no IR built)"
            );
        }
        let gc = store.gc_stats();
        if gc.allocated_objects > 0 {
            let mb = |b: u64| b as f64 / (1 << 20) as f64;
            eprintln!(
                "wizeng: metrics: gc: {} collections, {} objects allocated ({:.1} MiB), {} freed, peak live {:.1} MiB",
                gc.collections,
                gc.allocated_objects,
                mb(gc.allocated_bytes),
                gc.freed_objects,
                mb(gc.peak_live_bytes)
            );
        }
    }
    match r {
        Ok(results) => {
            if cli.invoke.is_some() {
                for v in results {
                    println!("{}", format_value(&v));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(t) => match t.exit_code() {
            Some(c) => Ok(exit_code(c)),
            None => Err(Failure(status::TRAP, anyhow!("trap: {t}"))),
        },
    }
}

/// The function to run and its arguments: `--invoke=NAME ARGS...`, else
/// the first function export named `_start` or `main` (export order, as
/// Wizard picks it) without arguments.
fn entry_point(
    cli: &Cli,
    store: &Store,
    inst: wizeng::InstanceId,
) -> Result<(wizeng::FuncAddr, Vec<Value>), Failure> {
    let Some(name) = &cli.invoke else {
        let f = store
            .instance(inst)
            .module
            .exports
            .iter()
            .filter(|e| e.name == "_start" || e.name == "main")
            .find_map(|e| store.export_func(inst, &e.name))
            .ok_or_else(|| {
                Failure(
                    status::USAGE,
                    anyhow!(
                        "{}: no entry point: export `_start` or `main`, or use --invoke=NAME",
                        cli.app().display()
                    ),
                )
            })?;
        if !store.func_type(f).params.is_empty() {
            return Err(Failure(
                status::USAGE,
                anyhow!(
                    "entry point takes parameters {}; use --invoke=NAME with arguments",
                    store.func_type(f)
                ),
            ));
        }
        return Ok((f, Vec::new()));
    };
    let f = store.export_func(inst, name).ok_or_else(|| {
        Failure(
            status::USAGE,
            anyhow!("--invoke={name}: no exported function named `{name}`"),
        )
    })?;
    let ty = store.func_type(f).clone();
    if ty.params.len() != cli.args.len() {
        return Err(Failure(
            status::USAGE,
            anyhow!(
                "--invoke={name}: the function takes {} arguments {ty}, {} given",
                ty.params.len(),
                cli.args.len()
            ),
        ));
    }
    let args = ty
        .params
        .iter()
        .zip(&cli.args)
        .map(|(t, a)| parse_arg(*t, a))
        .collect::<anyhow::Result<Vec<_>>>()
        .map_err(fail(status::USAGE))?;
    Ok((f, args))
}

/// `--metrics` lines about monitors: sites, direct increments, inlining.
fn print_monitor_metrics(s: &Session) {
    let Some(stats) = s.monitor_stats() else {
        return;
    };
    eprintln!(
        "wizeng: metrics: probes attached at {} sites, {} calls",
        stats.sites, stats.calls
    );
    if stats.direct_sites > 0 {
        eprintln!(
            "wizeng: metrics: interpreter: probes at {} sites are direct counter increments",
            stats.direct_sites
        );
    }
    let m = s.metrics();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "wizeng: metrics: start-up: monitors {:.3} ms, app decode+validate+translate {:.3} ms, matching {:.3} ms, weave {:.3} ms, woven module decode {:.3} ms",
        ms(m.monitors),
        ms(m.decode.saturating_sub(m.matching)),
        ms(m.matching),
        ms(m.weave),
        ms(m.woven_decode)
    );
    eprintln!(
        "wizeng: metrics: exit: fold counts, wasm:exit and reports {:.3} ms",
        ms(m.finish)
    );
    if m.scripts != [0, 0] {
        eprintln!(
            "wizeng: metrics: .mm monitors: {} compiled, {} from the cache",
            m.scripts[0], m.scripts[1]
        );
    }
    if let Some(o) = &m.match_cache {
        eprintln!("wizeng: metrics: match cache: {}", o.describe());
    }
    if let Some(kept) = m.counters_kept {
        let how = if kept {
            "kept from an earlier run"
        } else {
            "planned, kept for the next run"
        };
        eprintln!("wizeng: metrics: block counter plan: {how}");
    }
    if let Some(kept) = m.weave_kept {
        let how = if kept {
            "kept from an earlier run (the match's plan not decoded)"
        } else {
            "made from the match's plan, kept for the next run"
        };
        eprintln!("wizeng: metrics: weave decisions: {how}");
    }
    if m.exit_prefetched > 0 {
        eprintln!(
            "wizeng: metrics: monitor exit code handed to the compiler thread before the run: {} functions",
            m.exit_prefetched
        );
    }
    if let Some(why) = m.interpreted {
        eprintln!("wizeng: metrics: application interpreted: {why}");
    }
    if let Some(st) = &m.inline {
        let why: Vec<String> = st.reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        eprintln!(
            "wizeng: metrics: probe calls inlined {}, called {}{}",
            st.inlined,
            st.called,
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({})", why.join(", "))
            }
        );
        eprintln!(
            "wizeng: metrics: block counters {}, counting {} probes at {} sites",
            st.blocks, st.folded, st.folded_sites
        );
        eprintln!(
            "wizeng: metrics: probe calls specialised on a zero-tested operand {}",
            st.specialized
        );
    }
    if let Some((n, deferred, made)) = s.lazy_bodies() {
        eprintln!(
            "wizeng: metrics: lazy weaving: {} of {n} functions woven ({deferred} deferred at load, {made} of them woven since)",
            n - deferred + made
        );
    }
    if let Some(p) = s.plain_bodies().filter(|p| *p > 0) {
        eprintln!("wizeng: metrics: {p} functions run interpreted with their probes beside the code (plain bodies)");
    }
}

/// The process's peak resident set size so far, in KiB.
fn peak_rss_kib() -> Option<u64> {
    // SAFETY: an all-zero `rusage` is a valid value (integers and timevals).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage for the duration of the call.
    let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (r == 0).then_some(ru.ru_maxrss as u64)
}

/// CPU time of the calling thread (it runs the app in every tier).
fn thread_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if r != 0 {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn exit_code(c: i32) -> ExitCode {
    ExitCode::from(c as u8)
}

fn parse_arg(t: wizeng::ValType, a: &str) -> anyhow::Result<Value> {
    use wizeng::ValType::*;
    Ok(match t {
        I32 => Value::I32(parse_int(a)? as i32),
        I64 => Value::I64(parse_int(a)? as i64),
        F32 => Value::F32(
            a.parse::<f32>()
                .with_context(|| format!("`{a}` is not an f32"))?
                .to_bits(),
        ),
        F64 => Value::F64(
            a.parse::<f64>()
                .with_context(|| format!("`{a}` is not an f64"))?
                .to_bits(),
        ),
        other => bail!("cannot pass a {other} argument on the command line"),
    })
}

fn parse_int(a: &str) -> anyhow::Result<i128> {
    let (neg, body) = match a.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, a),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        i128::from_str_radix(h, 16)
    } else {
        body.parse::<i128>()
    }
    .with_context(|| format!("`{a}` is not an integer"))?;
    Ok(if neg { -v } else { v })
}

fn format_value(v: &Value) -> String {
    match v {
        Value::F32(b) => format!("{}", f32::from_bits(*b)),
        Value::F64(b) => format!("{}", f64::from_bits(*b)),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("3 GiB"), Some(3 << 30));
        assert_eq!(parse_size("1KB"), Some(1024));
        assert_eq!(parse_size("1.5G"), None);
        assert_eq!(parse_size("G"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }
}
