//! Monitored execution as a library: an application with its monitors in one
//! store, from loading to the monitors' `wasm:exit`.
//!
//! [`Session`] is the pipeline the `wizeng` command runs, for embedders and
//! tests: create it with a [`SessionConfig`] and a WASI context, optionally
//! announce the app ([`Session::announce_app`]: the monitors' start functions
//! may then read its declared memories and data), load monitors
//! ([`Session::load_monitors`]: instantiated first, their start functions run),
//! load the app ([`Session::load_app`]: matched against the monitors' rules
//! while it is validated; for compiled tiers, woven), [`Session::instantiate`]
//! it, run an export with [`Session::run`], and end with [`Session::finish`],
//! which folds block counts into the monitors and calls their `wasm:exit`.
//!
//! ```
//! use wizeng::monitor::session::{Session, SessionConfig};
//! use wizeng::wasi::{CaptureBuffer, WasiCtx};
//!
//! // A monitor counting `i32.add` executions, and an app that adds twice.
//! let monitor = wat::parse_str(r#"(module
//!     (global $n (mut i32) (i32.const 0))
//!     (func (export "wasm:opcode:i32.add") (global.set $n (i32.add (global.get $n) (i32.const 1))))
//!     (func (export "count") (result i32) (global.get $n)))"#).unwrap();
//! let app = wat::parse_str(r#"(module
//!     (func (export "run") (result i32)
//!         (i32.add (i32.add (i32.const 1) (i32.const 2)) (i32.const 3))))"#).unwrap();
//!
//! let dir = std::env::temp_dir().join(format!("wizeng-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let mon_path = dir.join("count.wasm");
//! std::fs::write(&mon_path, &monitor).unwrap();
//!
//! let out = CaptureBuffer::new();
//! let mut s = Session::new(SessionConfig::default(), WasiCtx::new().capture_stdout(&out));
//! s.load_monitors(&mon_path.display().to_string()).unwrap();
//! s.load_app(&app).unwrap();
//! let inst = s.instantiate().unwrap();
//! let run = s.store().export_func(inst, "run").unwrap();
//! s.begin().unwrap();
//! let result = s.run(run, &[]);
//! s.finish().unwrap();
//! assert_eq!(result.unwrap(), [wizeng::Value::I32(6)]);
//!
//! let mon = s.monitor_instances()[0];
//! let count = s.store().export_func(mon, "count").unwrap();
//! assert_eq!(s.store_mut().invoke(count, &[]).unwrap(), [wizeng::Value::I32(2)]);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::core::error::{InstantiateError, LoadError, LoadErrorKind, Trap};
use crate::core::module::Module;
use crate::core::types::{FuncAddr, InstanceId, Value};
use crate::monitor::blockcount::BlockCounters;
use crate::monitor::builtin::{self, Format, ReportOptions};
use crate::monitor::inline::{InlineConfig, InlineStats};
use crate::monitor::matcher::{self, Monitors};
use crate::monitor::{dyninstr, frames, match_cache, report, script, standalone, weave};
use crate::runtime::store::{Config, Linker, Store, Tier};
use crate::runtime::wasi::{self, WasiCtx};
use monitor_abi::report::ReportLayout;

/// How a session runs the app.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The tier, its limits and the dyn tier's threshold.
    pub engine: Config,
    /// Inlining, block counting and specialisation of probes in woven code.
    pub inline: InlineConfig,
    /// Monitor warnings are errors.
    pub fatal: bool,
    /// The built-in monitors' report format unless a monitor names its own
    /// (`--report`).
    pub report_format: Format,
    /// Where the built-in monitors' reports go unless a monitor names its
    /// own file (`--report-file`); `None`: the app's stdout.
    pub report_file: Option<std::path::PathBuf>,
    /// Time each start-up phase ([`SessionMetrics`]); matching is then
    /// timed at a sample of sites (`Timed`), which costs a little.
    pub metrics: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            engine: Config::default(),
            inline: InlineConfig::default(),
            fatal: false,
            report_format: Format::Table,
            report_file: None,
            metrics: false,
        }
    }
}

/// Why a session could not go on. [`SessionError::exit_status`] is the
/// `wizeng` command's documented exit status for each.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A monitor could not be loaded or one of its rules could not be bound.
    #[error("{0}")]
    Monitor(String),
    /// A `.mm` monitor did not compile: the diagnostics, rendered as
    /// `whamm check` prints them (several lines, ending in a newline).
    #[error("{0}")]
    Compile(String),
    /// The app could not be read, decoded or validated, or a rule failed to
    /// bind at one of its sites.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// The app's imports could not be resolved.
    #[error("link error: {0}")]
    Link(crate::core::error::LinkError),
    /// The app trapped while it was instantiated (segments, start function).
    #[error("trap during instantiation: {0}")]
    Instantiate(Trap),
    /// A call out of order: e.g. instantiating before an app was loaded.
    #[error("{0}")]
    Usage(&'static str),
}

impl SessionError {
    /// The `wizeng` command's exit status for this error (README, `docs/monitor-abi.md`).
    pub fn exit_status(&self) -> u8 {
        match self {
            SessionError::Monitor(_) | SessionError::Compile(_) => 3,
            SessionError::Load(e) if e.kind == LoadErrorKind::MonitorBind => 3,
            SessionError::Load(_) => 125,
            SessionError::Link(_) => 126,
            SessionError::Instantiate(_) => 134,
            SessionError::Usage(_) => 2,
        }
    }
}

/// What a session measured and decided, for `--metrics`.
#[derive(Clone, Debug, Default)]
pub struct SessionMetrics {
    /// Reading, decoding, validating, matching and weaving the app.
    pub load: Duration,
    /// Loading the monitors: compiling `.mm` scripts, instantiating.
    pub monitors: Duration,
    /// Decoding, validating and translating the app (matching included).
    pub decode: Duration,
    /// Of `decode`, the time spent matching rules at sites (static
    /// predicates and calls included); measured with
    /// [`SessionConfig::metrics`] only, at every site of a small app and at
    /// a sample of a large one's (`Timed`).
    pub matching: Duration,
    /// Weaving the match into the app's code (compiled tiers).
    pub weave: Duration,
    /// Decoding and validating the woven module.
    pub woven_decode: Duration,
    /// Why a compiled tier runs the app in the interpreter, if it does.
    pub interpreted: Option<&'static str>,
    /// What the weaver inlined (compiled tiers with monitors).
    pub inline: Option<InlineStats>,
    /// `.mm` monitors compiled, and taken from the cache (`monitor::script`).
    pub scripts: [usize; 2],
    /// Whether matching was restored from the match cache, or stored there.
    pub match_cache: Option<match_cache::Outcome>,
    /// With a kept match: whether the block counters were the ones kept
    /// beside it (else planned, and kept for the next run); `None` too when
    /// they are planned per function as each is woven (not kept).
    pub counters_kept: Option<bool>,
    /// With a kept match: whether the weave's decisions were the ones kept
    /// beside it, its plan not decoded (`weave::Kept`), or were kept for
    /// the next run.
    pub weave_kept: Option<bool>,
    /// Monitor functions of the exit's code handed to the compiler thread
    /// while the app runs ([`Session::begin`]).
    pub exit_prefetched: usize,
    /// [`Session::finish`]: folding block counts, the monitors' `wasm:exit`
    /// and writing their reports.
    pub finish: Duration,
}

/// What matching gave: the plan, or (a restored match) the decisions an
/// earlier lazy weave of it kept, its plan not decoded.
enum Matched {
    Plan(weave::Plan),
    Kept(weave::Kept),
}

/// Decodes an app whose match was restored without walking its bodies: the
/// entry exists only because an earlier run of this executable matched (and
/// so validated) these very bytes (the key covers them), and every body the
/// app runs is validated again where it is run, woven or copied, when a tier
/// translates or compiles it (a compiled-code entry only for bodies an
/// earlier compile validated). atax + `coverage`: 3.5M instructions.
struct RestoredBodies;

impl crate::core::module::BodyTranslator for RestoredBodies {
    fn body(
        &mut self,
        _: &crate::core::module::BodyCtx<'_>,
        _: &mut crate::core::module::BodyValidator,
        _: &wasmparser::FunctionBody<'_>,
    ) -> Result<(), LoadError> {
        Ok(())
    }

    fn finish(&mut self) -> Box<dyn std::any::Any> {
        Box::new(())
    }
}

/// An application and its monitors in one store (see the module docs).
pub struct Session {
    store: Store,
    /// The app's imports: WASI, exposed host modules, woven probe imports.
    linker: Linker,
    wasi: Rc<RefCell<WasiCtx>>,
    config: SessionConfig,
    monitors: Option<Monitors>,
    module: Option<Arc<Module>>,
    /// The tier the app's code runs in (the interpreter when monitors need
    /// frames or dynamic probes).
    app_tier: Tier,
    app: Option<InstanceId>,
    counters: Option<BlockCounters>,
    /// Block counters planned per function as each is woven
    /// (`weave::Woven::lazy_counters`), folded with `counters`.
    lazy_counters: Option<std::sync::Arc<std::sync::Mutex<BlockCounters>>>,
    /// Where the app trapped, for exact block counts.
    trap_site: Option<(u32, u32)>,
    metrics: SessionMetrics,
    /// Per monitor (in `--monitors` order): the built-in monitor whose
    /// report is rendered as a table, and how.
    reports: Vec<Option<(&'static str, ReportOptions)>>,
    /// The app's function names (name section), for rendered reports.
    app_names: std::collections::HashMap<u32, String>,
    /// The app's DWARF line table, if it has one, for rendered reports.
    app_lines: Option<super::dwarf::LineTable>,
    /// The app as declared, when announced before the monitors are loaded.
    announced: Option<matcher::AppDecl>,
    /// Its bytes, for `whamm:reflect` in the monitors' start functions.
    announced_bytes: Option<Vec<u8>>,
    /// The app's path as the user gave it (`Session::set_app_path`).
    app_path: String,
    /// Monitor functions handed to the compiler thread for the exit
    /// (`Session::prefetch_exit`).
    prefetched: Vec<FuncAddr>,
}

impl Session {
    /// A store with WASI preview1 (from `wasi`) for the app.
    pub fn new(config: SessionConfig, wasi: WasiCtx) -> Session {
        let mut store = Store::new(config.engine.clone());
        let mut linker = Linker::new();
        let wasi = Rc::new(RefCell::new(wasi));
        wasi::add_to_linker(&mut linker, &mut store, wasi.clone());
        Session {
            app_tier: config.engine.tier,
            store,
            linker,
            wasi,
            config,
            monitors: None,
            module: None,
            app: None,
            counters: None,
            lazy_counters: None,
            trap_site: None,
            metrics: SessionMetrics::default(),
            reports: Vec::new(),
            app_names: Default::default(),
            app_lines: None,
            announced: None,
            announced_bytes: None,
            app_path: String::new(),
            prefetched: Vec::new(),
        }
    }

    /// The app's path as the user gave it, for monitors that ask
    /// (`whamm:reflect.read_module_path`).
    pub fn set_app_path(&mut self, path: &str) {
        self.app_path = path.to_string();
        if let Some(m) = self.monitors.as_mut() {
            m.set_app_path(path);
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// The app's linker (define more imports before [`Session::instantiate`]).
    pub fn linker_mut(&mut self) -> &mut Linker {
        &mut self.linker
    }

    /// The WASI context (to flush the app's buffered output).
    pub fn wasi(&self) -> &Rc<RefCell<WasiCtx>> {
        &self.wasi
    }

    /// Give the app the engine's own host module (`--expose=wizeng`).
    pub fn expose_wizeng(&mut self) {
        matcher::define_wizeng_imports(&mut self.linker, &mut self.store, self.wasi.clone());
    }

    /// Tell the monitors loaded next which app they will run with, so their
    /// start functions can query its declared memories and data through
    /// `wizeng:app` (docs/monitor-abi.md#lifecycle) and ask `whamm:reflect`.
    /// Optional: without it those queries answer -1 (`whamm:reflect` traps)
    /// until [`Session::load_app`].
    pub fn announce_app(&mut self, bytes: &[u8]) {
        self.announced = Some(matcher::AppDecl::read(bytes));
        self.announced_bytes = Some(bytes.to_vec());
    }

    /// Load and instantiate the monitors of a `--monitors` list
    /// (`M1[+lib.wasm...][,M2...]`). An empty list loads none. An item is a
    /// monitor module (`.wasm`, `.wat`), a probe script (`.mm`, compiled
    /// here with the whamm compiler, its libraries' signatures from the
    /// `+lib` files), or a built-in monitor's name with options
    /// (`hotness{top=10}`, [`builtin`]).
    pub fn load_monitors(&mut self, list: &str) -> Result<(), SessionError> {
        let t0 = Instant::now();
        let r = self.load_monitors_inner(list);
        self.metrics.monitors += t0.elapsed();
        r
    }

    fn load_monitors_inner(&mut self, list: &str) -> Result<(), SessionError> {
        let items = builtin::parse_list(list).map_err(SessionError::Monitor)?;
        if items.is_empty() {
            return Ok(());
        }
        let mut specs = Vec::new();
        for item in &items {
            match item {
                builtin::Item::Builtin(b, o) => {
                    // A trace writes while the app runs (to its file, if any);
                    // the others' reports are captured at exit.
                    let trace = builtin::is_trace(b.name);
                    specs.push(matcher::MonitorSpec {
                        path: b.name.into(),
                        libs: vec![],
                        bytes: Some(b.wasm.to_vec()),
                        output: o.file.clone().filter(|_| trace),
                    });
                    self.reports.push((!trace).then(|| (b.name, o.clone())));
                }
                builtin::Item::Script { path, libs } => {
                    let cache = self.store.config.code_cache.as_deref();
                    let (bytes, cached) = script::compile(path, libs, cache)?;
                    self.metrics.scripts[cached as usize] += 1;
                    specs.push(matcher::MonitorSpec {
                        path: path.into(),
                        libs: libs.iter().map(std::path::PathBuf::from).collect(),
                        bytes: Some(bytes),
                        output: None,
                    });
                    self.reports.push(None);
                }
                builtin::Item::File(item) => {
                    for spec in matcher::parse_monitor_list(item) {
                        specs.push(spec);
                        self.reports.push(None);
                    }
                }
            }
        }
        let mut mon_linker = Linker::new();
        // Monitors and their libraries may use WASI, as in Wizard (same context as the app's).
        wasi::add_to_linker(&mut mon_linker, &mut self.store, self.wasi.clone());
        matcher::define_wizeng_imports(&mut mon_linker, &mut self.store, self.wasi.clone());
        frames::define_frame_accessor(&mut mon_linker, &mut self.store);
        dyninstr::define_dyninstr(&mut mon_linker, &mut self.store);
        let mut m = Monitors::load(
            &mut self.store,
            &specs,
            &mon_linker,
            self.config.fatal,
            self.announced.take(),
            self.announced_bytes
                .take()
                .map(|b| (b, self.app_path.clone())),
        )
        .map_err(|e| SessionError::Monitor(e.to_string()))?;
        m.set_app_path(&self.app_path);
        self.monitors = Some(m);
        Ok(())
    }

    /// Whether monitors are loaded.
    pub fn has_monitors(&self) -> bool {
        self.monitors.is_some()
    }

    /// The monitors' instances, in `--monitors` order.
    pub fn monitor_instances(&self) -> Vec<InstanceId> {
        self.monitors
            .as_ref()
            .map(|m| m.instances())
            .unwrap_or_default()
    }

    /// Decode and validate the app, matching the monitors' rules at every
    /// site; for compiled tiers, weave the match into its code.
    pub fn load_app(&mut self, bytes: &[u8]) -> Result<(), SessionError> {
        let t0 = Instant::now();
        if self.reports.iter().any(Option::is_some) {
            self.app_names = crate::core::module::read_func_names(bytes);
            self.app_lines = super::dwarf::LineTable::from_wasm(bytes);
        }
        let mut module = self.load_app_module(bytes)?;
        // The app's unexported globals are its own (monitors' are not: woven
        // code imports them): compiled code may keep them in the vmctx.
        module.private_globals_in_vmctx = true;
        self.module = Some(Arc::new(module));
        self.metrics.load = t0.elapsed();
        Ok(())
    }

    fn load_app_module(&mut self, bytes: &[u8]) -> Result<Module, SessionError> {
        let tier = self.config.engine.tier;
        let module = match self.monitors.as_mut() {
            None => Module::new_for_tier(bytes, tier)?,
            // The interpreter runs the app with its probes: matched while
            // it is translated. So do compiled tiers when a monitor inserts
            // probes at run time.
            Some(m) if tier == Tier::Int || m.dynamic => {
                if tier != Tier::Int {
                    self.app_tier = Tier::Int;
                    self.metrics.interpreted = Some("a monitor inserts probes at run time");
                }
                m.set_app(bytes);
                let t0 = Instant::now();
                let mut matcher = m.matcher(&mut self.store);
                let mut timed = Timed::new(&mut matcher, self.config.metrics);
                let module = Module::new_instrumented_for_tier(bytes, &mut timed, tier);
                self.metrics.matching = timed.spent;
                self.metrics.decode = t0.elapsed();
                module?
            }
            Some(_) => self.load_woven(bytes)?,
        };
        if let Some(m) = self.monitors.as_ref() {
            let n = m.static_probe_ids();
            crate::exec::state_mut(&mut self.store)
                .dyn_sites
                .set_static_ids(n);
        }
        Ok(module)
    }

    /// Match for a compiled tier and weave, or fall back to the interpreter
    /// when probes access frames beyond what woven code can give them.
    fn load_woven(&mut self, bytes: &[u8]) -> Result<Module, SessionError> {
        let tier = self.config.engine.tier;
        let (orig, matched, kept) = self.match_app(bytes, true)?;
        let plan = match matched {
            Matched::Plan(plan) => plan,
            Matched::Kept(k) => {
                let t0 = Instant::now();
                let inline = &self.config.inline;
                if let Some(w) = weave::weave_lazy_kept(orig.shared_info(), k, &self.store, inline)?
                {
                    drop(orig);
                    self.metrics.weave_kept = Some(true);
                    self.metrics.counters_kept = Some(true);
                    return self.woven_module(w, t0);
                }
                // Decisions that do not fit after all: the plan is in the
                // match's entry (restored again: the same state).
                self.restored_plan(kept.as_ref())?
            }
        };
        // (Matched without translating: `orig` cannot run.)
        if plan.is_empty() {
            drop(orig);
            return Ok(Module::new_for_tier(bytes, tier)?);
        }
        if plan.frames_need_interpreter(&orig, &self.store, &self.config.inline) {
            drop(orig);
            self.app_tier = Tier::Int;
            self.metrics.interpreted = Some("probes access frames other than through intrinsics");
            let m = self.monitors.as_mut().expect("matched above");
            let mut matcher = m.matcher(&mut self.store);
            let mut replay = weave::Replay {
                plan: &plan,
                inner: &mut matcher,
            };
            return Ok(Module::new_instrumented_for_tier(bytes, &mut replay, tier)?);
        }
        // In the dyn tier the woven code runs as any app's: interpreted (its
        // inlined increments and block counters are ordinary code; traps are
        // attributed as the JIT attributes them, `exec::interp::woven`) until
        // a function or loop is hot, then compiled in the background.
        let t0 = Instant::now();
        // Bodies are woven at their first use: the match result moves into
        // the woven module (`weave::weave_lazy`). A kept match keeps the
        // block counters planned for it too.
        let inline = &self.config.inline;
        let ckey = kept.as_ref().map(|k| match_cache::counters::key(k, inline));
        let counters = ckey.as_ref().and_then(match_cache::counters::restore);
        let keep = kept.is_some();
        let w = weave::weave_lazy_keeping(
            orig.shared_info(),
            plan,
            &self.store,
            inline,
            counters,
            keep,
        )?;
        drop(orig);
        if let Some(k) = &ckey {
            // (Counters planned per function as woven are not kept.)
            self.metrics.counters_kept = w.lazy_counters.is_none().then_some(w.counters_reused);
            if !w.counters_reused && w.lazy_counters.is_none() {
                match_cache::counters::save(k, &w.counters);
            }
        }
        if let (Some(k), Some(entry)) = (&kept, &w.kept) {
            weave::Kept::key(k, inline).write(entry);
            self.metrics.weave_kept = Some(false);
        }
        self.woven_module(w, t0)
    }

    /// The plan of the match restored under `key` (the store gets the same
    /// state again), for a run whose kept weave decisions did not fit.
    fn restored_plan(
        &mut self,
        key: Option<&match_cache::Key>,
    ) -> Result<weave::Plan, SessionError> {
        let restored = key.map(|k| match_cache::restore(k, &mut self.store, true));
        match restored {
            Some(Ok(Some(match_cache::Restored { plan: Some(p), .. }))) => Ok(p),
            _ => Err(LoadError {
                kind: LoadErrorKind::MonitorBind,
                offset: None,
                message: "the match cache's entry changed while it was read".into(),
            }
            .into()),
        }
    }

    /// The woven module `w` decoded for the app's tier, its probe imports
    /// defined (`t0`: when weaving started).
    fn woven_module(&mut self, w: weave::Woven, t0: Instant) -> Result<Module, SessionError> {
        self.metrics.weave = t0.elapsed();
        for (name, e) in &w.imports {
            self.linker.define(weave::PROBE_MODULE, name, *e);
        }
        self.metrics.inline = Some(w.stats.clone());
        self.counters = Some(w.counters);
        self.lazy_counters = w.lazy_counters;
        let t0 = Instant::now();
        let mut wm = Module::new_for_tier(&w.bytes, self.app_tier).map_err(|e| LoadError {
            message: format!("woven module does not validate: {}", e.message),
            ..e
        })?;
        self.metrics.woven_decode = t0.elapsed();
        if w.lazy.as_ref().is_some_and(|l| l.deferred_count() > 0)
            && !crate::exec::interp::load::translated_lazily(&wm)
        {
            // `weave_lazy` defers bodies only where this cannot happen.
            return Err(LoadError {
                kind: LoadErrorKind::MonitorBind,
                offset: None,
                message: "weaving: the lazily woven module was translated at load".into(),
            }
            .into());
        }
        wm.origin = Some(w.origin);
        wm.lazy = w.lazy;
        if self.app_tier == Tier::Dyn && wm.lazy.is_some() {
            // Functions run interpreted from their plain bodies, probes
            // beside them, and are woven when compiled (`exec::interp::plain`).
            super::plain::enable(&mut self.store);
        }
        Ok(wm)
    }

    /// Match the app against the monitors, recording the plan, without
    /// translating it ([`Module::new_matched`]).
    /// A run whose monitors did not look outside the store restores the
    /// match of an earlier run of the same inputs instead ([`match_cache`]).
    /// The key is given back when the match is kept (restored or stored).
    ///
    /// With `weaving`, a restored match whose lazy weave kept its decisions
    /// ([`weave::Kept`]) comes back as those, its plan not decoded.
    fn match_app(
        &mut self,
        bytes: &[u8],
        weaving: bool,
    ) -> Result<(Module, Matched, Option<match_cache::Key>), SessionError> {
        let m = self
            .monitors
            .as_mut()
            .ok_or(SessionError::Usage("no monitors loaded"))?;
        m.set_app(bytes);
        let t0 = Instant::now();
        let key = match_cache::key(&self.store, &m.names(), bytes);
        let mut damaged = false;
        if let Ok(k) = &key {
            let kept = weaving
                .then(|| {
                    weave::Kept::restore(&weave::Kept::key(k, &self.config.inline), &self.store)
                })
                .flatten();
            match match_cache::restore(k, &mut self.store, kept.is_none()) {
                Ok(Some(r)) => {
                    m.restore_match(r.stats, r.probe_ids);
                    let features = crate::core::module::supported_features();
                    let orig = Module::decode(bytes, features, &mut RestoredBodies)?;
                    self.metrics.decode = t0.elapsed();
                    self.metrics.match_cache = Some(match_cache::Outcome::Hit);
                    let matched = match (r.plan, kept) {
                        (Some(plan), _) => Matched::Plan(plan),
                        (None, Some(k)) => Matched::Kept(k),
                        (None, None) => unreachable!("decoded without a plan only when kept"),
                    };
                    return Ok((orig, matched, key.ok()));
                }
                Ok(None) => {}
                Err(()) => damaged = true,
            }
        }
        let before = key
            .is_ok()
            .then(|| match_cache::Before::capture(&self.store));
        let mut matcher = m.matcher(&mut self.store);
        let mut timed = Timed::new(&mut matcher, self.config.metrics);
        let mut rec = weave::Recorder::new(&mut timed);
        let orig = Module::new_matched(bytes, &mut rec);
        let plan = rec.into_plan();
        self.metrics.matching = timed.spent;
        self.metrics.decode = t0.elapsed();
        let orig = orig?;
        let outcome = match (&key, before) {
            (Ok(k), Some(b)) => {
                let (stats, ids) = (&m.stats, m.static_probe_ids());
                match match_cache::save(k, &b, &self.store, &plan, stats, ids) {
                    Ok(()) if damaged => match_cache::Outcome::Damaged,
                    Ok(()) => match_cache::Outcome::Stored,
                    Err(why) => match_cache::Outcome::NotKept(why),
                }
            }
            (Err(why), _) => match_cache::Outcome::NotKept(why),
            (Ok(_), None) => unreachable!("captured with the key"),
        };
        let kept = matches!(
            outcome,
            match_cache::Outcome::Stored | match_cache::Outcome::Damaged
        );
        self.metrics.match_cache = Some(outcome);
        Ok((orig, Matched::Plan(plan), key.ok().filter(|_| kept)))
    }

    /// The app with the monitors' probes woven in and the monitors merged
    /// into one standalone module (`--emit-woven`); nothing runs.
    pub fn emit_woven(&mut self, bytes: &[u8]) -> Result<Vec<u8>, SessionError> {
        if self.monitors.is_none() {
            return Err(SessionError::Usage(
                "--emit-woven needs at least one monitor (--monitors=...)",
            ));
        }
        let (orig, matched, _) = self.match_app(bytes, false)?;
        let Matched::Plan(plan) = matched else {
            unreachable!("matched with the plan when not weaving lazily")
        };
        let m = self.monitors.as_ref().expect("checked above");
        let dynamic = m.dynamic;
        let life = m.lifecycle();
        Ok(standalone::emit(
            &orig,
            &plan,
            &self.store,
            &self.config.inline,
            dynamic,
            &life,
        )?)
    }

    /// Instantiate the loaded app (its start function runs) and make it the
    /// target of dynamic probes.
    pub fn instantiate(&mut self) -> Result<InstanceId, SessionError> {
        let module = self
            .module
            .clone()
            .ok_or(SessionError::Usage("instantiate before load_app"))?;
        let tier = self.config.engine.tier;
        self.store.config.tier = self.app_tier;
        let inst = self.linker.instantiate(&mut self.store, &module);
        // An app interpreted for its monitors' sake still calls compiled
        // monitors.
        if self.app_tier == Tier::Int {
            self.store.config.tier = tier;
        }
        let inst = inst.map_err(|e| match e {
            InstantiateError::Link(e) => SessionError::Link(e),
            InstantiateError::Trap(t) => SessionError::Instantiate(t),
        })?;
        self.store.set_app(inst);
        self.app = Some(inst);
        Ok(inst)
    }

    /// Run the monitors' `wasm:begin` probes.
    pub fn begin(&mut self) -> Result<(), Trap> {
        self.prefetch_exit();
        match &self.monitors {
            Some(m) => m.begin(&mut self.store),
            None => Ok(()),
        }
    }

    /// A repeated run (its match restored) whose monitors' `wasm:exit` will
    /// be compiled at its first call ([`Session::finish`]): hand the code the
    /// exit runs (the exit functions and what they call directly) to the
    /// compiler thread now, so that it compiles while the app runs instead
    /// of on the main thread at exit (`branches-hw.mm` on atax: 16 functions,
    /// 9.3M of the exit's 10.9M instructions). Only then: in a first run the
    /// app's own hot functions, found while it runs, must not queue behind
    /// these; in a repeated one its warm-start record handed them over at
    /// instantiation. The functions are waited for at exit
    /// ([`Session::finish`]).
    fn prefetch_exit(&mut self) {
        let hit = self.metrics.match_cache == Some(match_cache::Outcome::Hit);
        let dyn_tier = self.store.config.tier == Tier::Dyn;
        if !hit || !dyn_tier || self.monitor_sites() < EXIT_COMPILE_SITES {
            return;
        }
        let layouts = self.report_layouts();
        let Some(m) = &self.monitors else { return };
        let exits: Vec<FuncAddr> = (0..m.len())
            .filter(|i| layouts.get(*i).is_none_or(Option::is_none))
            .filter_map(|i| m.exit_func(i))
            .collect();
        if exits.is_empty() || crate::exec::jit::ensure_prepared(&mut self.store).is_err() {
            return;
        }
        for f in exit_code(&self.store, &exits) {
            crate::exec::tiering::settle(&mut self.store, f);
            self.prefetched.push(f);
        }
        self.metrics.exit_prefetched = self.prefetched.len();
    }

    /// Call a function of the app (or any store function).
    pub fn run(&mut self, f: FuncAddr, args: &[Value]) -> Result<Vec<Value>, Trap> {
        let r = self.store.invoke(f, args);
        if let Err(t) = &r {
            self.trap_site = BlockCounters::trap_site(t);
        }
        r
    }

    /// After the app ended (normally, by a trap or by `proc_exit`):
    /// fold block counts into the monitors' state, then run their `wasm:exit`.
    /// A trap while folding is reported on stderr and the exit probes still run.
    pub fn finish(&mut self) -> Result<(), Trap> {
        let t0 = Instant::now();
        let r = self.finish_inner();
        self.metrics.finish = t0.elapsed();
        r
    }

    fn finish_inner(&mut self) -> Result<(), Trap> {
        let _ = self.wasi.borrow_mut().flush();
        if let (Some(c), Some(app)) = (&self.counters, self.app) {
            if let Err(t) = c.settle(&mut self.store, app, self.trap_site) {
                eprintln!("wizeng: trap: {t}");
            }
        }
        if let (Some(c), Some(app)) = (&self.lazy_counters, self.app) {
            let c = c.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(t) = c.settle(&mut self.store, app, self.trap_site) {
                eprintln!("wizeng: trap: {t}");
            }
        }
        // A report's loop over many sites is compiled at its first call;
        // over few, interpreting it is cheaper than compiling the monitor's
        // report code (whole process, every thread, atax + `calls`, 116
        // sites: 57.0M instructions interpreted, 59.8M compiled; `profile`,
        // 100 sites: 59.2M and 68.8M; `branches`, 602 sites: 105M and 94M,
        // as its loop gets hot and is compiled in the background anyway).
        // (Only monitors run after this: without them, preparing the JIT
        // here would be all cost; figma-startpage: 60M instructions.)
        // (Reports read from memory run no monitor code.)
        let layouts = self.report_layouts();
        let runs_exit = layouts.iter().any(Option::is_none);
        if runs_exit && self.monitor_sites() >= EXIT_COMPILE_SITES {
            // (What `prefetch_exit` handed over is waited for, not
            // compiled twice.)
            for f in std::mem::take(&mut self.prefetched) {
                crate::exec::jit::wait_for(&mut self.store, f);
            }
            crate::exec::tiering::compile_from_now_on(&mut self.store);
        }
        let r = self.exit_monitors(&layouts);
        let _ = self.wasi.borrow_mut().flush();
        if let Some(m) = &self.monitors {
            if let Err(e) = m.flush_outputs() {
                eprintln!("wizeng: monitor output: {e}");
            }
        }
        r
    }

    /// Per monitor, its report layout when its report is read from its
    /// memory instead of printed by its `wasm:exit`
    /// (docs/monitor-abi.md#report-layout): a built-in monitor with the
    /// layout section, whose report is not asked for as the CSV it prints.
    fn report_layouts(&self) -> Vec<Option<ReportLayout>> {
        let Some(m) = &self.monitors else {
            return vec![];
        };
        (0..m.len())
            .map(|i| {
                let (_, opts) = self.reports.get(i)?.as_ref()?;
                let format = opts.format.unwrap_or(self.config.report_format);
                if matches!(format, Format::Csv | Format::Folded | Format::Flamegraph) {
                    return None;
                }
                m.report_layout(&self.store, i)
            })
            .collect()
    }

    /// Every monitor's `wasm:exit`, in order; a built-in monitor's report
    /// (read from its memory when `layouts` has its layout, else the CSV
    /// its `wasm:exit` prints, captured) is written in its format
    /// ([`report::render_sites`]) to its file or the app's stdout. The first
    /// report written to a file replaces its contents; later ones append.
    fn exit_monitors(&mut self, layouts: &[Option<ReportLayout>]) -> Result<(), Trap> {
        let Some(m) = &self.monitors else {
            return Ok(());
        };
        let mut written: Vec<std::path::PathBuf> = Vec::new();
        for i in 0..m.len() {
            let Some((name, opts)) = self.reports.get(i).cloned().flatten() else {
                m.exit_one(&mut self.store, i)?;
                continue;
            };
            let names = report::Names {
                names: &self.app_names,
                lines: self.app_lines.as_ref(),
            };
            let format = opts.format.unwrap_or(self.config.report_format);
            let read = layouts.get(i).and_then(Option::as_ref).map(|l| {
                report::render_from_memory(
                    name,
                    &self.store,
                    m.instance(i),
                    l,
                    &names,
                    &opts,
                    format,
                )
            });
            let captured;
            let (text, r) = match read {
                Some(Ok(Some(text))) => (std::borrow::Cow::Owned(text), Ok(())),
                other => {
                    if let Some(Err(e)) = other {
                        eprintln!("wizeng: warning: monitor {name}: {e}; printing its report");
                    }
                    // A row is about 100 bytes, one or two per site.
                    let sites = m.stats.sites as usize;
                    let buf = crate::runtime::wasi::CaptureBuffer::with_capacity(
                        sites.min(1 << 20) * 128,
                    );
                    let saved = self.wasi.borrow_mut().redirect_stdout(&buf);
                    let r = m.exit_one(&mut self.store, i);
                    self.wasi.borrow_mut().restore_stdout(saved);
                    captured = buf.take_string_lossy();
                    let names = report::Names {
                        names: &self.app_names,
                        lines: self.app_lines.as_ref(),
                    };
                    (report::render(name, &captured, &names, &opts, format), r)
                }
            };
            match opts.file.as_ref().or(self.config.report_file.as_ref()) {
                None => {
                    let _ = self.wasi.borrow_mut().write_stdout(text.as_bytes());
                }
                Some(path) => {
                    // The app's output first (the file may be a terminal or /dev/stdout).
                    let _ = self.wasi.borrow_mut().flush();
                    let append = written.contains(path);
                    write_report(path, &text, append)
                        .map_err(|e| Trap::host(format!("report file {}: {e}", path.display())))?;
                    written.push(path.clone());
                }
            }
            r?;
        }
        Ok(())
    }

    /// The sites the monitors' rules matched (0 without monitors).
    fn monitor_sites(&self) -> u64 {
        self.monitors.as_ref().map_or(0, |m| m.stats.sites)
    }

    /// Load time, tier decisions and inlining statistics.
    pub fn metrics(&self) -> &SessionMetrics {
        &self.metrics
    }

    /// Free what a lazily woven app keeps to weave the functions that have
    /// not run yet (the match result: on a large app, hundreds of MB), for a
    /// caller that runs no more app code, before [`Session::finish`] (whose
    /// reports then reuse that memory). A function not woven yet traps if
    /// it is called after this.
    pub fn release_unwoven(&mut self) {
        if let Some(l) = self.module.as_ref().and_then(|m| m.lazy.as_ref()) {
            l.release();
        }
    }

    /// For a lazily woven app: (defined functions, bodies deferred at load,
    /// of those woven since).
    pub fn lazy_bodies(&self) -> Option<(usize, usize, usize)> {
        let m = self.module.as_ref()?;
        let l = m.lazy.as_ref()?;
        Some((m.bodies.len(), l.deferred_count(), l.made_count()))
    }

    /// For a lazily woven app in the dyn tier: how many functions the
    /// interpreter ran from their plain bodies, probes beside the code,
    /// without weaving them (`exec::interp::plain`).
    pub fn plain_bodies(&self) -> Option<usize> {
        let m = self.module.as_ref()?;
        m.lazy.as_ref()?;
        Some(crate::exec::interp::plain::plain_count(m))
    }

    /// The monitors' own counters (sites, calls, direct increments).
    pub fn monitor_stats(&self) -> Option<&matcher::MonitorStats> {
        self.monitors.as_ref().map(|m| &m.stats)
    }
}

/// From this many matched sites on, the monitors' `wasm:exit` code is
/// compiled at its first call (dyn tier); below, it is interpreted.
const EXIT_COMPILE_SITES: u64 = 300;

/// At most this many functions of a monitor's exit code are handed to the
/// compiler thread ahead of the exit ([`Session::prefetch_exit`]).
const EXIT_PREFETCH_MAX: usize = 64;

/// The functions `exits` run: each, and the functions of its module that
/// it calls directly (transitively; at most [`EXIT_PREFETCH_MAX`]).
fn exit_code(store: &Store, exits: &[FuncAddr]) -> Vec<FuncAddr> {
    use crate::runtime::store::FuncKind;
    let mut out: Vec<FuncAddr> = exits.to_vec();
    let mut next = 0;
    while next < out.len() && out.len() < EXIT_PREFETCH_MAX {
        let FuncKind::Wasm { instance, func_idx } = store.funcs[out[next].0 as usize].kind else {
            next += 1;
            continue;
        };
        next += 1;
        let inst = store.instance(instance);
        let m = &inst.module;
        if func_idx < m.num_imported_funcs || func_idx >= m.num_funcs() {
            continue;
        }
        let mut ops = m.operators(func_idx);
        while !ops.eof() && out.len() < EXIT_PREFETCH_MAX {
            let callee = match ops.read() {
                Ok(wasmparser::Operator::Call { function_index })
                | Ok(wasmparser::Operator::ReturnCall { function_index }) => function_index,
                Ok(_) => continue,
                Err(_) => break,
            };
            let defined = (m.num_imported_funcs..m.num_funcs()).contains(&callee);
            match inst.funcs.get(callee as usize) {
                Some(a) if defined && !out.contains(a) => out.push(*a),
                _ => {}
            }
        }
    }
    out
}

/// An instrumenter that times another's `probes` (when `on`). Reading
/// the clock costs 20-45 ns, and timing a call reads it twice: on boa's
/// 1.87M sites, timing every one cost about 85 ms of the start-up it
/// measured. So the first [`Timed::EXACT`] calls are timed, then one in
/// [`Timed::EVERY`] (picked pseudo-randomly, so no period in the sites can
/// line up with it) counts for that many, unless it took so long that
/// something else happened in it ([`Timed::OUTLIER`]): `spent` is then an
/// estimate. The decode-and-match total around it is read from the clock
/// as ever, so only the split between the two is estimated.
struct Timed<'a> {
    inner: &'a mut dyn crate::core::probe::Instrumenter,
    on: bool,
    spent: Duration,
    /// `probes` calls so far, and the sampler's state (xorshift).
    calls: u64,
    rng: u32,
}

impl<'a> Timed<'a> {
    /// Calls timed one by one before sampling starts (every site of a
    /// PolyBench program).
    const EXACT: u64 = 1 << 16;
    /// One call in this many is timed after that.
    const EVERY: u32 = 16;
    /// A sampled call longer than this counts once (matching a site takes
    /// well under a microsecond).
    const OUTLIER: Duration = Duration::from_micros(50);

    fn new(inner: &'a mut dyn crate::core::probe::Instrumenter, on: bool) -> Self {
        Timed {
            inner,
            on,
            spent: Duration::ZERO,
            calls: 0,
            rng: 0x9e37_79b9,
        }
    }

    /// Whether to time the next `probes` call, and how many calls its time
    /// stands for.
    fn sample(&mut self) -> Option<u32> {
        if !self.on {
            return None;
        }
        self.calls += 1;
        if self.calls <= Self::EXACT {
            return Some(1);
        }
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        x.is_multiple_of(Self::EVERY).then_some(Self::EVERY)
    }
}

impl crate::core::probe::Instrumenter for Timed<'_> {
    fn begin_function(&mut self, f: u32, body: &[u8], off: usize) -> Result<(), LoadError> {
        let t0 = self.on.then(Instant::now);
        let r = self.inner.begin_function(f, body, off);
        self.spent += t0.map_or(Duration::ZERO, |t| t.elapsed());
        r
    }
    fn dynamic(&self) -> bool {
        self.inner.dynamic()
    }
    fn after_sites(&self) -> bool {
        self.inner.after_sites()
    }
    fn probes(
        &mut self,
        when: crate::core::probe::When,
        site: &crate::core::probe::Site<'_, '_>,
    ) -> Result<crate::core::probe::Probes, LoadError> {
        let Some(weight) = self.sample() else {
            return self.inner.probes(when, site);
        };
        let t0 = Instant::now();
        let r = self.inner.probes(when, site);
        let t = t0.elapsed();
        // (A call that took far longer than a site's matching does was
        // interrupted, or compiled a static call's function: that happened
        // once, not once per call it stands for.)
        self.spent += if t > Self::OUTLIER { t } else { t * weight };
        r
    }
    fn direct_increments(
        &mut self,
        calls: &[crate::core::probe::ProbeCall],
    ) -> Option<Vec<crate::core::probe::Direct>> {
        let t0 = self.on.then(Instant::now);
        let r = self.inner.direct_increments(calls);
        self.spent += t0.map_or(Duration::ZERO, |t| t.elapsed());
        r
    }
}

fn write_report(path: &std::path::Path, text: &str, append: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path)?;
    f.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::Timed;
    use crate::core::error::LoadError;
    use crate::core::probe::{Instrumenter, Probes, Site, When};

    struct NoProbes;
    impl Instrumenter for NoProbes {
        fn begin_function(&mut self, _: u32, _: &[u8], _: usize) -> Result<(), LoadError> {
            Ok(())
        }
        fn probes(&mut self, _: When, _: &Site<'_, '_>) -> Result<Probes, LoadError> {
            Ok(Probes::new())
        }
    }

    /// Every call is timed up to `EXACT`, then about one in `EVERY`, each
    /// standing for `EVERY` calls; none when timing is off.
    #[test]
    fn matching_is_timed_at_every_site_then_at_a_sample() {
        let mut inner = NoProbes;
        let mut t = Timed::new(&mut inner, true);
        let exact = Timed::EXACT as usize;
        let every = Timed::EVERY as u64;
        let weights: Vec<Option<u32>> = (0..exact).map(|_| t.sample()).collect();
        assert!(weights.iter().all(|w| *w == Some(1)));
        let n = 1_000_000u64;
        let sampled: Vec<u32> = (0..n).filter_map(|_| t.sample()).collect();
        assert!(sampled.iter().all(|w| u64::from(*w) == every));
        // The calls they stand for: within 2% of the calls made.
        let stood_for: u64 = sampled.iter().map(|w| u64::from(*w)).sum();
        assert!(stood_for.abs_diff(n) < n / 50, "{stood_for} of {n}");
        let mut inner = NoProbes;
        let mut off = Timed::new(&mut inner, false);
        assert!((0..exact + 100).all(|_| off.sample().is_none()));
    }
}
