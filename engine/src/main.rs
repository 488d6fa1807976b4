//! The `wizeng` command line.

use std::cell::RefCell;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use clap::Parser;

use wizeng::wasi::WasiCtx;
use wizeng::monitor::matcher as monitor;
use wizeng::{InstantiateError, Linker, Module, Store, Value};

/// Exit statuses of the engine itself (the app's own status is passed through).
mod status {
    /// Command-line usage error (also what clap uses).
    pub const USAGE: u8 = 2;
    /// A monitor could not be loaded or bound (monitor ABI A7).
    pub const MONITOR_BIND: u8 = 3;
    /// The module could not be read, decoded, validated, or needs an unsupported feature.
    pub const LOAD: u8 = 125;
    /// Linking or instantiation (segment initialisation) failed.
    pub const LINK: u8 = 126;
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
    #[arg(long, default_value = "dyn")]
    mode: String,
    /// Dyn tier: compile a function at its N-th call, enter a loop's compiled
    /// code at its N-th iteration.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    dyn_threshold: u32,
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
    #[arg(long = "emit-woven", value_name = "OUT.wasm", requires = "monitors")]
    emit_woven: Option<PathBuf>,
    /// The application module (.wasm or .wat).
    app: PathBuf,
    /// Arguments passed to the application.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

fn main() -> ExitCode {
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
    let result = run(cli);
    #[cfg(feature = "op-stats")]
    wizeng::interp::print_op_stats();
    match result {
        Ok(code) => code,
        Err(Failure(code, err)) => {
            eprintln!("wizeng: {err:#}");
            ExitCode::from(code)
        }
    }
}

struct Failure(u8, anyhow::Error);

fn fail(code: u8) -> impl FnOnce(anyhow::Error) -> Failure {
    move |e| Failure(code, e)
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    let tier = match cli.mode.as_str() {
        "int" => wizeng::Tier::Int,
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
    if cli.dyn_threshold == 0 {
        return Err(Failure(
            status::USAGE,
            anyhow!("--dyn-threshold=0: expected at least 1"),
        ));
    }
    let t0 = std::time::Instant::now();
    let mut store = Store::new(wizeng::Config {
        tier,
        dyn_threshold: cli.dyn_threshold,
        ..Default::default()
    });
    if cli.perf_map {
        let path = format!("/tmp/perf-{}.map", std::process::id());
        let f = std::fs::File::create(&path)
            .with_context(|| format!("--perf-map: cannot create {path}"))
            .map_err(fail(status::USAGE))?;
        store.set_perf_map(f);
    }
    if cli.perf_jitdump {
        store
            .enable_jitdump()
            .context("--perf-jitdump: cannot create /tmp/jit-<pid>.dump")
            .map_err(fail(status::USAGE))?;
    }
    let mut linker = Linker::new();
    let app_name = cli
        .app
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
    let ctx = Rc::new(RefCell::new(ctx));
    wizeng::wasi::add_to_linker(&mut linker, &mut store, ctx.clone());
    if cli.expose.iter().any(|e| e == "wizeng") {
        monitor::define_wizeng_imports(&mut linker, &mut store, ctx.clone());
    }

    // Monitors are instantiated first (their start functions run), then matched
    // against the app while it is validated and translated.
    let specs = cli
        .monitors
        .as_deref()
        .map(monitor::parse_monitor_list)
        .unwrap_or_default();
    let mut monitors = if specs.is_empty() {
        None
    } else {
        let mut mon_linker = Linker::new();
        monitor::define_wizeng_imports(&mut mon_linker, &mut store, ctx.clone());
        wizeng::frames::define_frame_accessor(&mut mon_linker, &mut store);
        wizeng::dyninstr::define_dyninstr(&mut mon_linker, &mut store);
        Some(
            monitor::Monitors::load(&mut store, &specs, &mon_linker, cli.fatal)
                .map_err(|e| Failure(status::MONITOR_BIND, anyhow!("{e}")))?,
        )
    };
    let bytes = wizeng::module::read_binary(&cli.app)
        .map_err(|e| Failure(status::LOAD, anyhow!("{}: {e}", cli.app.display())))?;
    // In the JIT, probes are woven into the app's code (calls to imports bound
    // to the monitor functions); frame accessors (other than direct reads in
    // inlined probes: intrinsics) and dynamic probes need the interpreter, so
    // with those the app runs there (monitors stay compiled).
    let mut app_tier = tier;
    // Why a compiled tier runs the app in the interpreter (for `--metrics`).
    let mut interpreted: Option<&str> = None;
    let inline_cfg = wizeng::inline::InlineConfig {
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
    let mut inline_stats: Option<wizeng::inline::InlineStats> = None;
    let mut counters: Option<wizeng::blockcount::BlockCounters> = None;
    let (mut app, mut trap_site) = (None, None);
    let mut standalone: Option<Vec<u8>> = None;
    let module = match monitors.as_mut() {
        None => Module::new_for_tier(&bytes, tier),
        Some(m) if tier == wizeng::Tier::Int && cli.emit_woven.is_none() => {
            m.set_app(&bytes);
            Module::new_instrumented(&bytes, &mut m.matcher(&mut store))
        }
        Some(m) => {
            m.set_app(&bytes);
            let dynamic = m.dynamic;
            let mut matcher = m.matcher(&mut store);
            let mut rec = wizeng::weave::Recorder {
                inner: &mut matcher,
                plan: Default::default(),
            };
            let orig = Module::new_instrumented_for_tier(&bytes, &mut rec, tier);
            let plan = std::mem::take(&mut rec.plan);
            drop(rec);
            drop(matcher);
            match orig {
                Err(e) => Err(e),
                Ok(orig) if cli.emit_woven.is_some() => {
                    let life = m.lifecycle();
                    let emitted =
                        wizeng::standalone::emit(&orig, &plan, &store, &inline_cfg, dynamic, &life);
                    emitted.map(|b| {
                        standalone = Some(b);
                        orig
                    })
                }
                Ok(orig)
                    if plan.is_empty()
                        || dynamic
                        || plan.frames_need_interpreter(&orig, &store, &inline_cfg) =>
                {
                    // (a non-empty plan got here because it needs frames)
                    if dynamic || !plan.is_empty() {
                        app_tier = wizeng::Tier::Int;
                        interpreted = Some(match dynamic {
                            true => "a monitor inserts probes at run time",
                            false => "probes access frames other than through intrinsics",
                        });
                    }
                    Ok(orig)
                }
                Ok(orig) => {
                    // Woven code (probe calls, inlined monitor code, block
                    // counters) relies on the JIT's trap attribution, so in the
                    // dyn tier it is compiled on first call, as in lazy.
                    if tier == wizeng::Tier::Dyn {
                        app_tier = wizeng::Tier::Lazy;
                    }
                    wizeng::weave::weave(&orig, &plan, &store, &inline_cfg).and_then(|w| {
                        for (name, e) in &w.imports {
                            linker.define(wizeng::weave::PROBE_MODULE, name, *e);
                        }
                        inline_stats = Some(w.stats.clone());
                        counters = Some(w.counters);
                        let mut wm = Module::new(&w.bytes).map_err(|e| wizeng::LoadError {
                            message: format!("woven module does not validate: {}", e.message),
                            ..e
                        })?;
                        wm.origin = Some(w.origin);
                        Ok(wm)
                    })
                }
            }
        }
    };
    let module = module.map_err(|e| {
        let code = if e.kind == wizeng::LoadErrorKind::MonitorBind {
            status::MONITOR_BIND
        } else {
            status::LOAD
        };
        Failure(code, anyhow!("{}: {e}", cli.app.display()))
    })?;
    if let (Some(path), Some(b)) = (&cli.emit_woven, &standalone) {
        std::fs::write(path, b)
            .with_context(|| format!("--emit-woven: cannot write {}", path.display()))
            .map_err(fail(status::USAGE))?;
        return Ok(ExitCode::SUCCESS);
    }
    // The app's unexported globals are its own (monitors' are not: woven code
    // imports them): compiled code may keep them in the vmctx.
    let mut module = module;
    module.private_globals_in_vmctx = true;
    let module = Arc::new(module);
    let t_load = t0.elapsed();

    let result = (|| -> Result<ExitCode, Failure> {
        store.config.tier = app_tier;
        let inst = linker.instantiate(&mut store, &module);
        // An app interpreted for its monitors' sake still calls compiled
        // monitors; a woven app in dyn runs as lazy (monitors included).
        if app_tier == wizeng::Tier::Int {
            store.config.tier = tier;
        }
        let inst = match inst {
            Ok(i) => i,
            Err(InstantiateError::Link(e)) => {
                return Err(Failure(
                    status::LINK,
                    anyhow!("{}: link error: {e}", cli.app.display()),
                ))
            }
            Err(InstantiateError::Trap(t)) => {
                if let Some(c) = t.exit_code() {
                    return Ok(exit_code(c));
                }
                return Err(Failure(
                    status::TRAP,
                    anyhow!("{}: trap during instantiation: {t}", cli.app.display()),
                ));
            }
        };
        store.set_app(inst);
        app = Some(inst);
        let (func, args) = match &cli.invoke {
            Some(name) => {
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
                (f, args)
            }
            None => {
                let f = store
                    .export_func(inst, "_start")
                    .or_else(|| store.export_func(inst, "main"))
                    .ok_or_else(|| Failure(status::USAGE, anyhow!("{}: no entry point: export `_start` or `main`, or use --invoke=NAME", cli.app.display())))?;
                if !store.func_type(f).params.is_empty() {
                    return Err(Failure(
                        status::USAGE,
                        anyhow!(
                            "entry point takes parameters {}; use --invoke=NAME with arguments",
                            store.func_type(f)
                        ),
                    ));
                }
                (f, Vec::new())
            }
        };
        if let Some(m) = &monitors {
            if let Err(t) = m.begin(&mut store) {
                return Err(Failure(status::TRAP, anyhow!("trap: {t}")));
            }
        }
        let t1 = std::time::Instant::now();
        let c1 = thread_cpu_time();
        let r = store.invoke(func, &args);
        let run_cpu = thread_cpu_time().saturating_sub(c1);
        if let Err(t) = &r {
            trap_site = wizeng::blockcount::BlockCounters::trap_site(t);
        }
        // The app's buffered output comes before anything the engine prints.
        let _ = ctx.borrow_mut().flush();
        if cli.metrics {
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
            if tier == wizeng::Tier::Dyn {
                let (funcs, osr) = store.dyn_stats();
                eprintln!(
                    "wizeng: metrics: dyn tier compiled {funcs} functions and {osr} loop entries (OSR)"
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
    })();
    // `wasm:exit` runs after the app ends: normally, by proc_exit, or after a
    // trap (then after the trap message). The exit status stays the app's.
    let _ = ctx.borrow_mut().flush();
    if let (Some(c), Some(app)) = (&counters, app) {
        // Block counts into the monitors' memories, before `wasm:exit` reads them.
        if let Err(t) = c.settle(&mut store, app, trap_site) {
            eprintln!("wizeng: trap: {t}");
        }
    }
    let result = match (&result, &monitors) {
        (Err(Failure(code, err)), Some(m)) if *code == status::TRAP => {
            eprintln!("wizeng: {err:#}");
            if let Err(t) = m.exit(&mut store) {
                let _ = ctx.borrow_mut().flush();
                eprintln!("wizeng: trap: {t}");
            }
            Ok(ExitCode::from(status::TRAP))
        }
        (Ok(_), Some(m)) => match m.exit(&mut store) {
            Ok(()) => result,
            Err(t) => {
                let _ = ctx.borrow_mut().flush();
                Err(Failure(status::TRAP, anyhow!("trap: {t}")))
            }
        },
        _ => result,
    };
    let _ = ctx.borrow_mut().flush();
    if cli.metrics {
        if let Some(m) = &monitors {
            eprintln!(
                "wizeng: metrics: probes attached at {} sites, {} calls",
                m.stats.sites, m.stats.calls
            );
            if m.stats.direct_sites > 0 {
                eprintln!(
                    "wizeng: metrics: interpreter: probes at {} sites are direct counter increments",
                    m.stats.direct_sites
                );
            }
            if let Some(why) = interpreted {
                eprintln!("wizeng: metrics: application interpreted: {why}");
            }
            if let Some(s) = &inline_stats {
                let why: Vec<String> = s.reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
                eprintln!(
                    "wizeng: metrics: probe calls inlined {}, called {}{}",
                    s.inlined,
                    s.called,
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", why.join(", "))
                    }
                );
                eprintln!(
                    "wizeng: metrics: block counters {}, counting {} probes at {} sites",
                    s.blocks, s.folded, s.folded_sites
                );
                eprintln!(
                    "wizeng: metrics: probe calls specialised on a zero-tested operand {}",
                    s.specialized
                );
            }
        }
    }
    result
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
