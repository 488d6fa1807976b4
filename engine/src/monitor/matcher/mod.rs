//! Monitors: Wasm modules instantiated beside the application, in their own
//! instances (own memories, globals, tables), whose probe exports are matched
//! against the application's code at load time (docs/monitor-abi.md#part-a-and-part-b).
//!
//! Flow: [`Monitors::load`] instantiates each monitor (and its `+lib`
//! libraries; start functions run), parses its export names; the application
//! is then loaded with [`crate::Module::new_instrumented`] and this type as the
//! [`Instrumenter`]: at every site it checks rules, runs static predicates and
//! static calls in the monitor, type-checks, and returns the probe calls. The
//! app's code never names a monitor's state: probes are calls the engine makes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use smallvec::SmallVec;

use crate::core::module::BodyValidator;
use monitor_abi::params::{Binding, ParamContext, ParamError, SiteCheck, SiteFacts};
use monitor_abi::pattern::{Event, ExportMeaning, Mode, OpcodeMatch, Param, Pattern, StaticCall};
use monitor_abi::report::ReportLayout;
use monitor_abi::{ConstValue, Opcode};
use wasmparser::{Operator, WasmModuleResources};

use crate::core::error::{LoadError, LoadErrorKind, Trap, TrapKind};
use crate::core::probe::{ArgSource, CallShape, Instrumenter, ProbeCall, Probes, Site, When};
use crate::core::types::*;
use crate::runtime::store::{Caller, Linker, Store};
use crate::runtime::wasi::WasiCtx;

mod app_memory;
pub use app_memory::AppDecl;
mod blocks;
mod lib_memory;
use blocks::Blocks;
mod link;
mod output;
mod reflect;
mod static_call;
mod typed_imports;
use static_call::{Fact, Prepared, StaticArgs};

/// One `--monitors` item: a monitor file and its `+lib.wasm` libraries.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorSpec {
    /// The monitor's file, or (with `bytes`) the name it is shown and linked by.
    pub path: PathBuf,
    pub libs: Vec<PathBuf>,
    /// The monitor module itself when it was made in-process (a built-in
    /// monitor, a compiled `.mm` script) rather than read from `path`.
    pub bytes: Option<Vec<u8>>,
    /// The monitor's `wizeng.puts/puti/putc` output goes to this file
    /// (created or truncated) instead of stdout.
    pub output: Option<PathBuf>,
}

/// Parse `M1[+lib...][,M2...]`.
pub fn parse_monitor_list(s: &str) -> Vec<MonitorSpec> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|item| {
            let mut parts = item.split('+');
            let path = PathBuf::from(parts.next().unwrap_or_default());
            MonitorSpec {
                path,
                libs: parts.map(PathBuf::from).collect(),
                bytes: None,
                output: None,
            }
        })
        .collect()
}

/// Why monitors could not be loaded or bound. The CLI exits with status 3.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct MonitorError(pub String);

/// The rules that may match at a site, by index (usually a few).
type Candidates = SmallVec<[usize; 8]>;

struct Rule {
    export: std::sync::Arc<str>,
    pattern: Rc<Pattern>,
    func: FuncAddr,
    ty: Rc<FuncType>,
    /// `ty`'s parameters and `monitor NAME: \`EXPORT\`` (for messages),
    /// shared by every [`ProbeCall`] of the rule.
    shape: std::sync::Arc<CallShape>,
    /// A placement error of the pattern (docs/monitor-abi.md#where-parameters-are-allowed),
    /// reported as a bind error at the first site the rule's event matches
    /// (as Wizard does): `(in the predicate, message)`. An error outside the
    /// predicate is reported only where the predicate accepts the site.
    invalid: Option<(bool, Rc<str>)>,
    /// Whether a parameter may fail `monitor_abi::check_param_at_site`
    /// (`monitor_abi::checked_at_site`); most rules' never do (none is
    /// checked then).
    checks_site: bool,
}

struct LoadedMonitor {
    name: String,
    instance: InstanceId,
    /// Rules in export order, by event category.
    rules: Vec<Rc<Rule>>,
    /// The rules that can match a site, by its opcode (see [`RuleIndex`]).
    index: RuleIndex,
    begin: Option<FuncAddr>,
    exit: Option<FuncAddr>,
}

/// Which rules a site may match, built once per monitor: a rule for one
/// opcode is a candidate only at that opcode's sites of its kind (before or
/// after the instruction), a rule for any opcode at every opcode's; every
/// other rule (entry, block and exit events) at every site of the kinds its
/// event has. Candidates come in
/// export order, so matching a site costs its candidates, not every rule (a
/// compiled `wasm:opcode:*` script has one rule per opcode).
#[derive(Default)]
struct RuleIndex {
    /// Per site kind (`When` as index: entry, before, after): rules for one
    /// opcode, by opcode index (`Opcode::index`, dense), and the rules that
    /// may match any site of that kind. Shared lists: a site's matching
    /// holds its candidates while it runs static calls.
    by_opcode: [Vec<Rc<[usize]>>; 3],
    general: [Rc<[usize]>; 3],
}

/// The site kinds a rule can match, as [`RuleIndex`] indices.
fn rule_whens(event: &Event) -> &'static [usize] {
    const ENTRY: usize = 0;
    const BEFORE: usize = 1;
    const AFTER: usize = 2;
    match event {
        Event::FuncEntry => &[ENTRY],
        Event::BlockStart | Event::BlockEnd => &[ENTRY, BEFORE],
        Event::FuncExit => &[BEFORE],
        Event::Opcode {
            mode: Mode::Before, ..
        } => &[BEFORE],
        Event::Opcode {
            mode: Mode::After, ..
        } => &[AFTER],
    }
}

fn when_index(when: When) -> usize {
    match when {
        When::Entry => 0,
        When::Before => 1,
        When::After => 2,
    }
}

impl RuleIndex {
    fn new(rules: &[Rc<Rule>]) -> RuleIndex {
        let mut by_opcode: [Vec<Vec<usize>>; 3] = Default::default();
        let mut general: [Vec<usize>; 3] = Default::default();
        let mut add = |w: usize, o: monitor_abi::Opcode, i: usize| {
            let at = usize::from(o.index());
            if by_opcode[w].len() <= at {
                by_opcode[w].resize(at + 1, Vec::new());
            }
            by_opcode[w][at].push(i);
        };
        for (i, r) in rules.iter().enumerate() {
            for &w in rule_whens(&r.pattern.event) {
                match r.pattern.event {
                    Event::Opcode {
                        matches: OpcodeMatch::One(o),
                        ..
                    } => add(w, o, i),
                    // (Sites before and after an instruction all have an
                    // opcode: a rule for any is one for each.)
                    Event::Opcode {
                        matches: OpcodeMatch::Any,
                        ..
                    } => monitor_abi::Opcode::all().for_each(|o| add(w, o, i)),
                    _ => general[w].push(i),
                }
            }
        }
        RuleIndex {
            by_opcode: by_opcode.map(|v| v.into_iter().map(Rc::from).collect()),
            general: general.map(Rc::from),
        }
    }

    /// The rules for `opcode` alone at a site of this kind, in export order.
    fn one_rc(&self, opcode: Option<monitor_abi::Opcode>, when: When) -> Option<&Rc<[usize]>> {
        let at = usize::from(opcode?.index());
        self.by_opcode[when_index(when)].get(at)
    }

    fn one(&self, opcode: Option<monitor_abi::Opcode>, when: When) -> &[usize] {
        self.one_rc(opcode, when).map_or(&[], |v| v)
    }

    /// Candidate rules at a site of this kind with `opcode`, in export order.
    fn candidates(&self, opcode: Option<monitor_abi::Opcode>, when: When) -> Candidates {
        let one = self.one(opcode, when);
        let general = &self.general[when_index(when)];
        if one.is_empty() {
            return general.iter().copied().collect();
        }
        let mut out = Candidates::with_capacity(one.len() + general.len());
        let (mut a, mut b) = (one.iter().peekable(), general.iter().peekable());
        while let (Some(&&x), Some(&&y)) = (a.peek(), b.peek()) {
            out.push(
                if x < y { a.next() } else { b.next() }
                    .copied()
                    .unwrap_or_default(),
            );
        }
        out.extend(a.chain(b).copied());
        out
    }
}

/// What matching computes at a site only when some rule can use it.
#[derive(Default, Clone, Copy)]
struct SiteNeeds {
    /// The instruction's stack effect (its operand count): `argN`, `argtyN`.
    effect: bool,
    /// Its immediates: `immN`.
    imms: bool,
    /// The function's basic blocks: block events.
    blocks: bool,
    /// Sites after instructions: `:after` rules.
    after: bool,
}

impl SiteNeeds {
    fn of(monitors: &[LoadedMonitor]) -> SiteNeeds {
        let mut n = SiteNeeds::default();
        let patterns = monitors.iter().flat_map(|m| &m.rules).map(|r| &*r.pattern);
        for p in patterns {
            n.blocks |= matches!(p.event, Event::BlockStart | Event::BlockEnd);
            n.after |= rule_whens(&p.event).contains(&when_index(When::After));
            let pred = p.predicate.iter().flat_map(|c| &c.params);
            each_param(p.params.iter().chain(pred), &mut |q| {
                n.effect |= matches!(q, Param::Arg(_) | Param::ArgTy(_));
                n.imms |= matches!(q, Param::Imm(_));
            });
        }
        n
    }
}

/// `f` of every parameter, also of those of static calls among them.
fn each_param<'p>(params: impl Iterator<Item = &'p Param>, f: &mut impl FnMut(&Param)) {
    for p in params {
        f(p);
        if let Param::Call(c) = p {
            each_param(c.params.iter(), f);
        }
    }
}

/// The loaded monitors of one run.
pub struct Monitors {
    monitors: Vec<LoadedMonitor>,
    /// What the rules of all of them need computed at a site.
    needs: SiteNeeds,
    /// Probe ids per (monitor, fid, pc), allocated on first use: as in
    /// Wizard, each monitor gets its own id at a site.
    probe_ids: rustc_hash::FxHashMap<(usize, u32, u32), u32>,
    /// Static probe ids given out by a match restored from the match cache
    /// (`monitor::match_cache`), which leaves `probe_ids` empty.
    restored_probe_ids: u32,
    blocks: Blocks,
    func_names: HashMap<u32, String>,
    /// Imported functions of the application: index -> (module, field).
    func_imports: HashMap<u32, (String, String)>,
    pub fatal: bool,
    /// Some monitor imports `whamm:dyninstr` (every instruction must be patchable).
    pub dynamic: bool,
    /// Sites that got at least one probe, and total probe calls attached.
    pub stats: MonitorStats,
    /// The monitors' own output files (`MonitorSpec::output`).
    outputs: Vec<output::MonitorOutput>,
    /// The app's declared memories and data, for the `wizeng:app` queries
    /// answered before it is instantiated.
    app_memories: app_memory::AppMemories,
    /// The app as `whamm:reflect` sees it, and its path as given.
    app_view: reflect::AppView,
    app_path: String,
}

#[derive(Default, Debug, Clone)]
pub struct MonitorStats {
    pub sites: u64,
    pub calls: u64,
    /// Sites whose probes the interpreter performs as direct counter
    /// increments (`Instrumenter::direct_increments`).
    pub direct_sites: u64,
}

/// The `(ptr, len)` string of a `wizeng.puts`/`wizeng.error` call in the
/// caller's memory 0; `None` when it is out of bounds.
fn guest_bytes<'c>(c: &'c mut Caller<'_>, a: &[Value]) -> Result<Option<&'c [u8]>, Trap> {
    let p = a[0].i32().unwrap_or(0) as u32 as usize;
    let n = a[1].i32().unwrap_or(0) as u32 as usize;
    Ok(c.memory0()?.get(p..p.saturating_add(n)).map(|b| &*b))
}

/// Define the `wizeng` module (docs/monitor-abi.md#output-and-time) in a linker. Output goes through the
/// WASI context's stdout so app and monitor output interleave correctly.
pub fn define_wizeng_imports(linker: &mut Linker, store: &mut Store, out: Rc<RefCell<WasiCtx>>) {
    let i32t = ValType::I32;
    let o = out.clone();
    output::define_puts(
        linker,
        store,
        Rc::new(move |b| o.borrow_mut().write_stdout(b)),
    );
    let o = out;
    linker.func(
        store,
        "wizeng",
        "error",
        FuncType::new([i32t, i32t], []),
        move |c, a, _| {
            let msg = guest_bytes(c, a)?
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            let _ = o.borrow_mut().flush();
            Err(Trap::host(format!("wizeng.error: {msg}")))
        },
    );
    linker.clock(store, "wizeng", "rdtsc");
    linker.func(
        store,
        "wizeng",
        "ref_id",
        FuncType::new([ValType::ExternRef], [i32t]),
        |_, a, r| {
            r[0] = Value::I32(crate::runtime::gc::OpaqueRefs::id_of(a[0].to_slot()));
            Ok(())
        },
    );
    define_wizeng_control(linker, store);
}

/// Wizard's `invoke0`, `tail_invoke0` (a call here: only the host stack
/// differs), `crash` (a trap here) and `force_gc` (nothing to force here: the
/// GC heap is collected as it fills).
fn define_wizeng_control(linker: &mut Linker, store: &mut Store) {
    for name in ["invoke0", "tail_invoke0"] {
        let ty = FuncType::new([ValType::FuncRef], []);
        linker.func(store, "wizeng", name, ty, move |c, a, _| {
            let f = match a[0] {
                Value::FuncRef(Some(f)) => f,
                _ => return Err(Trap::new(TrapKind::NullFunctionReference)),
            };
            let ty = c.store.func_type(f);
            if !ty.params.is_empty() || !ty.results.is_empty() {
                return Err(Trap::new(TrapKind::IndirectCallTypeMismatch));
            }
            c.call(f, &[]).map(|_| ())
        });
    }
    linker.func(
        store,
        "wizeng",
        "crash",
        FuncType::new([], []),
        |_, _, _| Err(Trap::host("wizeng.crash() called by program")),
    );
    let ty = FuncType::new([], []);
    linker.func(store, "wizeng", "force_gc", ty, |_, _, _| Ok(()));
}

fn base_name(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether `t` is a reference of the `any` hierarchy (a GC reference): a
/// monitor gets such a value only as an opaque reference
/// (`ArgSource::OpaqueOperand`/`OpaqueLocal`), bound to an `externref`.
fn gc_ref(v: &BodyValidator, t: wasmparser::ValType) -> bool {
    let wasmparser::ValType::Ref(r) = t else {
        return false;
    };
    matches!(
        v.resources().top_type(&r.heap_type()),
        wasmparser::HeapType::Abstract {
            ty: wasmparser::AbstractHeapType::Any,
            ..
        }
    )
}

fn conv_type(t: wasmparser::ValType) -> ValType {
    ValType::from_wasmparser(t)
}

fn abi_type(t: ValType) -> monitor_abi::ValType {
    match t {
        ValType::I32 => monitor_abi::ValType::I32,
        ValType::I64 => monitor_abi::ValType::I64,
        ValType::F32 => monitor_abi::ValType::F32,
        ValType::F64 => monitor_abi::ValType::F64,
        ValType::V128 => monitor_abi::ValType::V128,
        ValType::FuncRef => monitor_abi::ValType::FuncRef,
        // The ABI has no exnref: monitors see it as an opaque reference.
        ValType::ExternRef | ValType::ExnRef => monitor_abi::ValType::ExternRef,
    }
}

/// Define the `wizeng:app` module (docs/monitor-abi.md#application-queries):
/// `table_fid(table, index) -> fid` reads the application's table (the
/// instance named by [`Store::set_app`]); -1 for a null entry, an index out of
/// bounds, a function that is not the app's own or imported by it, or before
/// the app is instantiated.
fn define_app_imports(linker: &mut Linker, store: &mut Store) {
    let i32t = ValType::I32;
    // On raw slots: a monitor asks this at every indirect call it tallies.
    linker.func_raw(
        store,
        monitor_abi::imports::MODULE_APP,
        "table_fid",
        FuncType::new([i32t, i32t], [i32t]),
        |c, s| {
            let (t, i) = (s[0] as u32 as i32, s[1] as u32 as i32);
            s[0] = app_table_fid(c.store, t, i).map_or(-1, |f| f as i32) as u32 as u64;
            Ok(())
        },
    );
}

fn app_table_fid(store: &Store, table: i32, index: i32) -> Option<u32> {
    let app = store.app?;
    let inst = &store.instances[app.0 as usize];
    let t = inst.tables.get(usize::try_from(table).ok()?)?;
    let slot = *store.tables[t.0 as usize]
        .elems
        .get(usize::try_from(index).ok()?)?;
    let func = FuncAddr(u32::try_from(slot.checked_sub(1)?).ok()?);
    // The app's own functions know their index; only imports are looked up.
    let pos = match store.funcs.get(func.0 as usize)?.kind {
        crate::runtime::store::FuncKind::Wasm { instance, func_idx } if instance == app => func_idx,
        _ => inst.funcs.iter().position(|f| *f == func)? as u32,
    };
    // A woven module (JIT) has probe imports after the app's own imports.
    match &inst.module.origin {
        Some(o) if pos >= o.orig_imports + o.shift => Some(pos - o.shift),
        Some(o) if pos >= o.orig_imports => None,
        _ => Some(pos),
    }
}

impl Monitors {
    /// Instantiate every monitor (libraries first) in `store`. Warnings about
    /// malformed probe names go to stderr (errors with `fatal`). `app`, when
    /// the app is known before the monitors start, answers their start
    /// functions' `wizeng:app` queries (its declared memories and data), and
    /// `announced` (its bytes and path) their `whamm:reflect` questions.
    pub fn load(
        store: &mut Store,
        specs: &[MonitorSpec],
        base: &Linker,
        fatal: bool,
        app: Option<AppDecl>,
        announced: Option<(Vec<u8>, String)>,
    ) -> Result<Monitors, MonitorError> {
        let mut monitors = Vec::new();
        let mut dynamic = false;
        let mut outputs = Vec::new();
        let app_memories = app_memory::AppMemories::new(RefCell::new(app.unwrap_or_default()));
        let app_view = reflect::AppView::new(RefCell::new(
            announced.map(|(bytes, path)| Rc::new(reflect::App::new(&bytes, &path))),
        ));
        for spec in specs {
            let name = spec.path.display().to_string();
            let mut linker = base.clone();
            if let Some(path) = &spec.output {
                let out = output::redirect(&mut linker, store, path).map_err(|e| {
                    MonitorError(format!("monitor {name}: {}: {e}", path.display()))
                })?;
                outputs.push(out);
            }
            define_app_imports(&mut linker, store);
            app_memory::define(&mut linker, store, &app_memories);
            let lib_mems = lib_memory::LibMemories::default();
            lib_memory::define(&mut linker, store, &lib_mems);
            reflect::define_reflect(&mut linker, store, &app_view);
            let (m, instance, dyn_group) = link::link_group(store, &mut linker, spec, &lib_mems)?;
            dynamic |= dyn_group;
            let mut lm = LoadedMonitor {
                name: name.clone(),
                instance,
                rules: Vec::new(),
                index: RuleIndex::default(),
                begin: None,
                exit: None,
            };
            for e in &m.exports {
                if e.kind != ExternKind::Func {
                    continue;
                }
                // (the instance's function of the export's index: what
                // `Store::export` finds by name, without hashing 1,000+ names)
                let func = match store.instance(instance).funcs.get(e.index as usize) {
                    Some(f) => *f,
                    None => continue,
                };
                match monitor_abi::parse_export_name(&e.name) {
                    Ok(ExportMeaning::NotProbe) => {}
                    Ok(ExportMeaning::Exit) => lm.exit = Some(func),
                    Ok(ExportMeaning::Begin) => lm.begin = Some(func),
                    Ok(ExportMeaning::Probe(pattern)) => {
                        let mut invalid = None;
                        if let Err(pe) = monitor_abi::params::check_pattern(&pattern) {
                            if fatal {
                                let msg = format!("monitor {name}: export `{}`: {pe}", e.name);
                                return Err(MonitorError(msg));
                            }
                            let in_pred = matches!(
                                &pe,
                                ParamError::DynamicInStaticCall {
                                    context: ParamContext::Predicate(_),
                                    ..
                                } | ParamError::NestedCall {
                                    context: ParamContext::Predicate(_),
                                    ..
                                }
                            );
                            invalid = Some((in_pred, pe.to_string().into()));
                        }
                        let ty = Rc::new(store.func_type(func).clone());
                        let checks_site = pattern.params.iter().any(monitor_abi::checked_at_site);
                        lm.rules.push(Rc::new(Rule {
                            export: e.name.as_str().into(),
                            shape: std::sync::Arc::new(CallShape {
                                types: ty.params.to_vec().into(),
                                origin: format!("monitor {name}: `{}`", e.name).into(),
                            }),
                            pattern: Rc::new(pattern),
                            func,
                            ty,
                            invalid,
                            checks_site,
                        }));
                    }
                    Err(pe) if pe.is_ignorable() => {}
                    Err(pe) => {
                        let msg = format!(
                            "monitor {name}: invalid probe export name: {}\n{}",
                            pe,
                            monitor_abi::pattern::render_caret(&e.name, &pe)
                        );
                        if fatal {
                            return Err(MonitorError(msg));
                        }
                        eprintln!("wizeng: warning: {msg}");
                    }
                }
            }
            lm.index = RuleIndex::new(&lm.rules);
            monitors.push(lm);
        }
        Ok(Monitors {
            needs: SiteNeeds::of(&monitors),
            monitors,
            probe_ids: Default::default(),
            restored_probe_ids: 0,
            blocks: Blocks::default(),
            func_names: HashMap::new(),
            func_imports: HashMap::new(),
            fatal,
            dynamic,
            stats: MonitorStats::default(),
            outputs,
            app_memories,
            app_view,
            app_path: String::new(),
        })
    }

    /// Function names of the application (for `fname`), from its name section.
    pub fn set_app_names(&mut self, names: HashMap<u32, String>) {
        self.func_names = names;
    }

    /// The app's path as the user gave it (`whamm:reflect.read_module_path`).
    pub fn set_app_path(&mut self, path: &str) {
        self.app_path = path.to_string();
    }

    /// How many static `probe_id`s matching gave out (dynamic probe ids
    /// follow them, as in Wizard).
    pub fn static_probe_ids(&self) -> u32 {
        (self.probe_ids.len() as u32).max(self.restored_probe_ids)
    }

    /// What matching counted, for a match restored from the match cache.
    pub(crate) fn restore_match(&mut self, stats: MonitorStats, probe_ids: u32) {
        self.stats = stats;
        self.restored_probe_ids = probe_ids;
    }

    /// The monitors' names as given, in load order.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.monitors.iter().map(|m| m.name.as_str()).collect()
    }

    /// What matching needs to know about the application's module: function
    /// names (name section) and imported functions (`target_fn_*`).
    pub fn set_app(&mut self, bytes: &[u8]) {
        self.func_names = crate::core::module::read_func_names(bytes);
        *self.app_view.borrow_mut() = Some(Rc::new(reflect::App::new(bytes, &self.app_path)));
        *self.app_memories.borrow_mut() = AppDecl::read(bytes);
        self.func_imports.clear();
        for p in wasmparser::Parser::new(0).parse_all(bytes) {
            match p {
                Ok(wasmparser::Payload::ImportSection(r)) => {
                    let funcs = r
                        .into_iter()
                        .flatten()
                        .filter(|i| matches!(i.ty, wasmparser::TypeRef::Func(_)));
                    for (n, i) in funcs.enumerate() {
                        self.func_imports
                            .insert(n as u32, (i.module.to_string(), i.name.to_string()));
                    }
                }
                Ok(wasmparser::Payload::CodeSectionStart { .. }) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }

    /// A function's name for `fname` / `target_fn_name`: its name-section
    /// name, else (imports) its field name, else `func#N`.
    fn func_name(&self, fid: u32) -> String {
        match (self.func_names.get(&fid), self.func_imports.get(&fid)) {
            (Some(n), _) => n.clone(),
            (None, Some((_, field))) => field.clone(),
            (None, None) => format!("func#{fid}"),
        }
    }

    /// Call every monitor's `wasm:begin` (in order).
    pub fn begin(&self, store: &mut Store) -> Result<(), Trap> {
        for m in &self.monitors {
            if let Some(f) = m.begin {
                store
                    .invoke(f, &[])
                    .map_err(|t| wrap_trap(&m.name, "wasm:begin", t))?;
            }
        }
        Ok(())
    }

    /// Call every monitor's `wasm:exit` (in order).
    pub fn exit(&self, store: &mut Store) -> Result<(), Trap> {
        (0..self.monitors.len()).try_for_each(|i| self.exit_one(store, i))
    }

    /// Call monitor `i`'s `wasm:exit`, if it has one.
    pub fn exit_one(&self, store: &mut Store, i: usize) -> Result<(), Trap> {
        let m = &self.monitors[i];
        match m.exit {
            Some(f) => store
                .invoke(f, &[])
                .map(drop)
                .map_err(|t| wrap_trap(&m.name, "wasm:exit", t)),
            None => Ok(()),
        }
    }

    /// Monitor `i`'s `wasm:exit` function, if it has one.
    pub fn exit_func(&self, i: usize) -> Option<FuncAddr> {
        self.monitors.get(i)?.exit
    }

    /// Monitor `i`'s report layout (docs/monitor-abi.md#report-layout), if
    /// its module has one: its `wasm:exit` only prints the report of the
    /// per-site variables the layout describes. A malformed section is
    /// reported on stderr and ignored.
    pub fn report_layout(&self, store: &Store, i: usize) -> Option<ReportLayout> {
        let m = &self.monitors[i];
        let bytes = &store.instance(m.instance).module.bytes;
        match ReportLayout::of_module(bytes) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("wizeng: warning: monitor {}: {e}", m.name);
                None
            }
        }
    }

    /// Monitor `i`'s instance.
    pub fn instance(&self, i: usize) -> InstanceId {
        self.monitors[i].instance
    }

    /// Write out what the monitors wrote to their own files.
    pub fn flush_outputs(&self) -> std::io::Result<()> {
        use std::io::Write as _;
        for o in &self.outputs {
            o.borrow_mut().flush()?;
        }
        Ok(())
    }

    /// Number of monitors loaded.
    pub fn len(&self) -> usize {
        self.monitors.len()
    }

    /// The monitors' instances, in load order.
    pub fn instances(&self) -> Vec<InstanceId> {
        self.monitors.iter().map(|m| m.instance).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.monitors.is_empty()
    }

    /// Each monitor's `wasm:begin` and `wasm:exit`, in order (for a standalone
    /// woven module, which calls them itself).
    pub fn lifecycle(&self) -> crate::monitor::standalone::Lifecycle {
        crate::monitor::standalone::Lifecycle {
            begin: self.monitors.iter().filter_map(|m| m.begin).collect(),
            exit: self.monitors.iter().filter_map(|m| m.exit).collect(),
        }
    }

    /// The instrumenter that matches these monitors against an app module;
    /// static predicates and calls run in `store`.
    pub fn matcher<'a>(&'a mut self, store: &'a mut Store) -> Matcher<'a> {
        Matcher {
            mons: self,
            store,
            last_effect: None,
            ref_func: (None, None),
            buf_used: 0,
            zero_tested: Default::default(),
            static_funcs: Default::default(),
            last_static: None,
            static_args: Default::default(),
            calls_made: Default::default(),
            buffers: Default::default(),
            fname: None,
            probe_id_bound: false,
        }
    }
}

/// Matches monitors against an application while it is translated.
pub struct Matcher<'a> {
    mons: &'a mut Monitors,
    store: &'a mut Store,
    /// The stack effect computed before the current instruction.
    last_effect: Option<(u32, u32, Option<monitor_abi::StackEffect>)>,
    /// `ref_func_before` of the current instruction, and N if the current
    /// instruction is `ref.func N` (the next one's).
    ref_func: (Option<u32>, Option<u32>),
    /// Bytes of `whamm_buffer` used by the current static call's strings.
    buf_used: usize,
    /// Which probe functions only test an operand against zero.
    zero_tested: crate::monitor::inline::ZeroTested,
    /// Static calls resolved to their function and type, by monitor and the
    /// call's address (it lives in a rule's `Rc<Pattern>`, which outlives
    /// the matcher and never moves).
    static_funcs: rustc_hash::FxHashMap<(usize, *const StaticCall), Prepared>,
    /// The last of them asked for.
    last_static: Option<((usize, *const StaticCall), Prepared)>,
    /// The arguments of the static call being made.
    static_args: StaticArgs,
    /// Static calls made so far, by monitor.
    calls_made: SmallVec<[u32; 4]>,
    /// Per monitor: its `whamm_buffer` memory and the globals bounding it.
    buffers: Vec<Option<(MemAddr, GlobalAddr, GlobalAddr)>>,
    /// The name (`fname`) of the last function asked for, as bytes.
    fname: Option<(u32, Box<[u8]>)>,
    /// Whether a rule of the current monitor bound `probe_id` at this site.
    probe_id_bound: bool,
}

/// A trap in monitor code, reported with the monitor and export it came from.
pub fn wrap_trap(monitor: &str, export: &str, t: Trap) -> Trap {
    if t.exit_code().is_some() {
        return t;
    }
    Trap::host(format!("monitor {monitor}: `{export}` trapped: {t}"))
}

/// Resolves stack effects from the validator's view of the module.
struct Resolver<'v>(&'v BodyValidator);

type Sig = (Vec<wasmparser::ValType>, Vec<wasmparser::ValType>);

impl Resolver<'_> {
    fn block_sig(&self, bt: wasmparser::BlockType) -> Option<Sig> {
        use monitor_abi::TypeResolver;
        Some(match bt {
            wasmparser::BlockType::Empty => (vec![], vec![]),
            wasmparser::BlockType::Type(t) => (vec![], vec![t]),
            wasmparser::BlockType::FuncType(i) => {
                let f = self.type_at(i)?;
                (f.params().to_vec(), f.results().to_vec())
            }
        })
    }
}

impl monitor_abi::TypeResolver for Resolver<'_> {
    fn function_type(&self, func_idx: u32) -> Option<wasmparser::FuncType> {
        let r = self.0.resources();
        let ti = r.type_index_of_function(func_idx)?;
        self.type_at(ti)
    }
    fn type_at(&self, type_idx: u32) -> Option<wasmparser::FuncType> {
        match &self
            .0
            .resources()
            .sub_type_at(type_idx)?
            .composite_type
            .inner
        {
            wasmparser::CompositeInnerType::Func(f) => Some(f.clone()),
            _ => None,
        }
    }
    fn local_type(&self, idx: u32) -> Option<wasmparser::ValType> {
        self.0.get_local_type(idx)
    }
    fn tag_type(&self, idx: u32) -> Option<wasmparser::FuncType> {
        self.0.resources().tag_at(idx).cloned()
    }
    fn global_type(&self, idx: u32) -> Option<wasmparser::ValType> {
        self.0.resources().global_at(idx).map(|g| g.content_type)
    }
    fn table_elem_type(&self, idx: u32) -> Option<wasmparser::RefType> {
        self.0.resources().table_at(idx).map(|t| t.element_type)
    }
    fn label_types(&self, depth: u32) -> Option<Vec<wasmparser::ValType>> {
        let f = self.0.get_control_frame(depth as usize)?;
        let (params, results) = self.block_sig(f.block_type)?;
        Some(if f.kind == wasmparser::FrameKind::Loop {
            params
        } else {
            results
        })
    }
    fn return_types(&self) -> Option<Vec<wasmparser::ValType>> {
        let n = self.0.control_stack_height().checked_sub(1)?;
        let f = self.0.get_control_frame(n as usize)?;
        self.block_sig(f.block_type).map(|s| s.1)
    }
    fn block_results(&self) -> Option<Vec<wasmparser::ValType>> {
        let f = self.0.get_control_frame(0)?;
        self.block_sig(f.block_type).map(|s| s.1)
    }
    fn operand_type(&self, depth: u32) -> Option<wasmparser::ValType> {
        self.0.get_operand_type(depth as usize).flatten()
    }
    fn memory_is_64(&self, idx: u32) -> bool {
        self.0
            .resources()
            .memory_at(idx)
            .is_some_and(|m| m.memory64)
    }
    fn table_is_64(&self, idx: u32) -> bool {
        self.0.resources().table_at(idx).is_some_and(|t| t.table64)
    }
    fn fields(&self, type_idx: u32) -> Option<Vec<wasmparser::FieldType>> {
        use wasmparser::CompositeInnerType as C;
        match &self
            .0
            .resources()
            .sub_type_at(type_idx)?
            .composite_type
            .inner
        {
            C::Struct(s) => Some(s.fields.to_vec()),
            C::Array(a) => Some(vec![a.0]),
            C::Func(_) => None,
        }
    }
}

fn const_value(c: &ConstValue) -> Option<Value> {
    Some(match *c {
        ConstValue::I32(v) => Value::I32(v),
        ConstValue::I64(v) => Value::I64(v),
        ConstValue::F32Bits(b) => Value::F32(b),
        ConstValue::F64Bits(b) => Value::F64(b),
        _ => return None,
    })
}

/// Everything known about one candidate site.
struct SiteInfo<'a> {
    fid: u32,
    pc: u32,
    opcode: Option<Opcode>,
    op: Option<&'a Operator<'a>>,
    imms: Vec<ConstValue>,
    num_operands: Option<u32>,
    /// The validator at the site: local types on demand (`local_type`).
    validator: &'a BodyValidator,
    at_func_end: bool,
    instr_count: Option<u32>,
    /// Index of the instruction in its function.
    instr_index: u32,
    /// Whether the instruction can execute (see `Site::reached`).
    reached: bool,
    /// N if the instruction before is `ref.func N`.
    ref_func_before: Option<u32>,
}

impl SiteInfo<'_> {
    fn local_type(&self, n: u32) -> Option<ValType> {
        self.validator.get_local_type(n).map(conv_type)
    }

    /// The type of the operand (or result, after) `n` from the top, if it
    /// and every operand above it are known (computed where a rule asks:
    /// most sites bind no operand, and the stack may be deep).
    fn operand_type(&self, n: u32) -> Option<ValType> {
        let v = self.validator;
        let mut t = None;
        for d in 0..=n as usize {
            t = Some(conv_type(v.get_operand_type(d).flatten()?));
        }
        t
    }

    /// The types of the operands from the top, up to the first unknown one.
    fn operand_types(&self) -> Vec<ValType> {
        let v = self.validator;
        (0..v.operand_stack_height() as usize)
            .map_while(|d| v.get_operand_type(d).flatten().map(conv_type))
            .collect()
    }
}

enum Bound {
    NoMatch,
    Call(ProbeCall),
}

impl Matcher<'_> {
    fn bind_err(
        &self,
        m: &LoadedMonitor,
        export: &str,
        site: &SiteInfo<'_>,
        msg: impl std::fmt::Display,
    ) -> LoadError {
        let fname = self
            .mons
            .func_names
            .get(&site.fid)
            .cloned()
            .unwrap_or_else(|| format!("func[{}]", site.fid));
        LoadError {
            kind: LoadErrorKind::MonitorBind,
            offset: None,
            message: format!(
                "monitor {}: export `{export}` at {fname} (func {}) pc 0x{:x}: {msg}",
                m.name, site.fid, site.pc
            ),
        }
    }

    fn probe_id(&mut self, mi: usize, site: &SiteInfo<'_>) -> u32 {
        self.probe_id_bound = true;
        let n = self.mons.probe_ids.len() as u32;
        *self
            .mons
            .probe_ids
            .entry((mi, site.fid, site.pc))
            .or_insert(n)
    }

    /// Write a string into the monitor's `whamm_buffer`, after the strings
    /// already written for the current static call (several string params of
    /// one call must not overwrite each other); returns (ptr, len).
    fn write_buffer(&mut self, mi: usize, bytes: &[u8]) -> Result<(i32, i32), String> {
        let b = self.buffer(mi)?;
        write_buffer_at(self.store, b, &mut self.buf_used, bytes)
    }

    /// Monitor `mi`'s `whamm_buffer` memory and the globals bounding it.
    #[inline]
    fn buffer(&mut self, mi: usize) -> Result<(MemAddr, GlobalAddr, GlobalAddr), String> {
        match self.buffers.get(mi) {
            Some(Some(b)) => Ok(*b),
            _ => self.find_buffer(mi),
        }
    }

    /// [`Self::buffer`] the first time: found among the monitor's exports.
    #[cold]
    #[inline(never)]
    fn find_buffer(&mut self, mi: usize) -> Result<(MemAddr, GlobalAddr, GlobalAddr), String> {
        let inst = self.mons.monitors[mi].instance;
        let store = &*self.store;
        let mem = match store.export(inst, monitor_abi::imports::EXPORT_WHAMM_BUFFER) {
            Some(Extern::Memory(m)) => m,
            _ => return Err("the monitor exports no `whamm_buffer` memory".into()),
        };
        // Both bounds are required (as in Wizard): a monitor that passes
        // strings without them would write over its own data.
        let global = |name: &str| match store.export(inst, name) {
            Some(Extern::Global(g)) if store.global_value(g).ty() == ValType::I32 => Ok(g),
            Some(Extern::Global(g)) => Err(format!(
                "the `{name}` global is a {}, not an i32",
                store.global_value(g).ty()
            )),
            _ => Err(format!("the monitor exports no `{name}` global")),
        };
        let start = global(monitor_abi::imports::EXPORT_WHAMM_BUFFER_START)?;
        let max = global(monitor_abi::imports::EXPORT_WHAMM_BUFFER_MAX)?;
        if self.buffers.len() <= mi {
            self.buffers.resize(mi + 1, None);
        }
        self.buffers[mi] = Some((mem, start, max));
        Ok((mem, start, max))
    }

    /// Write the name of function `fid` into monitor `mi`'s buffer
    /// ([`Self::write_buffer`]).
    #[inline]
    fn write_fname(&mut self, mi: usize, fid: u32) -> Result<(i32, i32), String> {
        if !matches!(&self.fname, Some((f, _)) if *f == fid) {
            self.fname = Some((fid, self.mons.func_name(fid).into_bytes().into()));
        }
        let b = self.buffer(mi)?;
        let name = self.fname.as_ref().map_or(&[][..], |n| &n.1);
        write_buffer_at(self.store, b, &mut self.buf_used, name)
    }

    /// Push the value(s) of a static param at a site onto `out`; false if
    /// it has none there (an immediate the site lacks: no match).
    fn static_values(
        &mut self,
        mi: usize,
        p: &Param,
        site: &SiteInfo<'_>,
        out: &mut StaticArgs,
    ) -> Result<bool, String> {
        let one = match p {
            Param::Fid => Value::I32(site.fid as i32),
            Param::Pc => Value::I32(site.pc as i32),
            Param::ProbeId => Value::I32(self.probe_id(mi, site) as i32),
            Param::AtFuncEnd => Value::I32(site.at_func_end as i32),
            Param::InstrCount => Value::I32(site.instr_count.unwrap_or(0) as i32),
            Param::NumTargets => match site.op {
                Some(Operator::BrTable { targets }) => Value::I32(targets.len() as i32),
                _ => return Err("num_targets on an instruction that is not br_table".into()),
            },
            Param::Offset => match site.op.and_then(memarg_offset) {
                Some(o) => Value::I64(o as i64),
                None => return Err("offset on an instruction without a memory immediate".into()),
            },
            Param::Imm(n) => match site.imms.get(*n as usize).and_then(const_value) {
                Some(v) => v,
                None => return Ok(false),
            },
            Param::Opidx => Value::I32(site.instr_index as i32),
            Param::RefFuncBefore => Value::I32(site.ref_func_before.map_or(-1, |f| f as i32)),
            Param::Opcode => {
                Value::I32(site.op.map_or(-1, |o| monitor_abi::binary_opcode(o) as i32))
            }
            Param::DefaultTarget => match site.op {
                Some(Operator::BrTable { targets }) => Value::I32(targets.default() as i32),
                _ => return Err("default_target on an instruction that is not br_table".into()),
            },
            // 0 beyond the instruction's operands (in a predicate, where
            // no range check applies, `argtyN` then says "no such operand").
            Param::ArgTy(n) => {
                let in_range = site.num_operands.is_none_or(|k| *n < k);
                let t = site.operand_type(*n).filter(|_| in_range);
                Value::I32(monitor_abi::type_code(t.map(abi_type)))
            }
            Param::LocalTy(n) => {
                Value::I32(monitor_abi::type_code(site.local_type(*n).map(abi_type)))
            }
            Param::Opname
            | Param::Fname
            | Param::Targets
            | Param::TargetFnName
            | Param::TargetFnType
            | Param::TargetImpModule => {
                let (p, l) = if matches!(p, Param::Fname) {
                    self.write_fname(mi, site.fid)?
                } else {
                    let bytes = self.static_bytes(p, site)?;
                    self.write_buffer(mi, &bytes)?
                };
                out.push(Value::I32(p));
                Value::I32(l)
            }
            _ => return Err(format!("`{}` is not available at match time", p.keyword())),
        };
        out.push(one);
        Ok(true)
    }

    /// The bytes of a (ptr, len) static param at a site.
    fn static_bytes(&self, p: &Param, site: &SiteInfo<'_>) -> Result<Vec<u8>, String> {
        let callee = || match site.op {
            Some(Operator::Call { function_index } | Operator::ReturnCall { function_index }) => {
                Ok(*function_index)
            }
            _ => Err(format!("{p} on an instruction that is not a direct call")),
        };
        Ok(match p {
            Param::Opname => site.opcode.map(|o| o.mnemonic()).unwrap_or("").into(),
            Param::Fname => self.mons.func_name(site.fid).into_bytes(),
            Param::TargetFnName => self.mons.func_name(callee()?).into_bytes(),
            Param::TargetFnType => match self.mons.func_imports.contains_key(&callee()?) {
                true => b"import".to_vec(),
                false => b"local".to_vec(),
            },
            Param::TargetImpModule => match self.mons.func_imports.get(&callee()?) {
                Some((module, _)) => module.clone().into_bytes(),
                None => Vec::new(),
            },
            Param::Targets => match site.op {
                Some(Operator::BrTable { targets }) => targets
                    .targets()
                    .flatten()
                    .flat_map(u32::to_le_bytes)
                    .collect(),
                _ => return Err("targets on an instruction that is not br_table".into()),
            },
            _ => return Err(format!("`{}` is not a string", p.keyword())),
        })
    }

    /// The monitor function a static call names, prepared for calls.
    fn static_func(&mut self, mi: usize, call: &StaticCall) -> Result<Prepared, String> {
        let key = (mi, call as *const StaticCall);
        if let Some(p) = self.static_funcs.get(&key) {
            return Ok(p.clone());
        }
        let inst = self.mons.monitors[mi].instance;
        let store = &*self.store;
        let func = store
            .export_func(inst, &call.name)
            .or_else(|| {
                call.name
                    .strip_prefix('$')
                    .and_then(|n| store.export_func(inst, n))
            })
            .ok_or_else(|| {
                format!(
                    "static call `{}`: the monitor exports no such function",
                    call.name
                )
            })?;
        let p = Prepared::new(store, func, &call.params);
        self.static_funcs.insert(key, p.clone());
        Ok(p)
    }

    /// Run a static call (predicate or call param) in the monitor.
    fn static_call(
        &mut self,
        mi: usize,
        call: &StaticCall,
        site: &SiteInfo<'_>,
    ) -> Result<Option<Value>, String> {
        // (Consecutive sites usually make the same call: the last one's
        // function is kept, taken out while it is called; no lookup then.)
        let key = (mi, call as *const StaticCall);
        let prepared = match self.last_static.take() {
            Some((k, p)) if k == key => p,
            _ => self.static_func(mi, call)?,
        };
        let r = match prepared.facts() {
            Some(facts) => self.static_call_facts(mi, call, site, &prepared, facts),
            None => {
                // (One list for every call, taken out while it is filled.)
                let mut args = std::mem::take(&mut self.static_args);
                args.0.clear();
                let r = self.static_call_with(mi, call, site, &prepared, &mut args);
                self.static_args = args;
                r
            }
        };
        self.last_static = Some((key, prepared));
        r
    }

    /// [`Self::static_call`] of a call whose parameters are all site facts
    /// ([`Prepared::facts`]: the allocator of a `report` variable, called at
    /// every site of a large app), their values put straight into its slots.
    /// The same values, errors and calls as [`Self::static_call_with`].
    fn static_call_facts(
        &mut self,
        mi: usize,
        call: &StaticCall,
        site: &SiteInfo<'_>,
        prepared: &Prepared,
        facts: &[Fact],
    ) -> Result<Option<Value>, String> {
        self.buf_used = 0;
        let mut buf = [0u64; static_call::SLOTS];
        let mut n = 0;
        for f in facts {
            let v = match f {
                Fact::Fid => site.fid as i32,
                Fact::Pc => site.pc as i32,
                Fact::Opcode => site.op.map_or(-1, |o| monitor_abi::binary_opcode(o) as i32),
                Fact::Fname => {
                    let (p, l) = self.write_fname(mi, site.fid)?;
                    buf[n] = Value::I32(p).to_slot();
                    n += 1;
                    l
                }
            };
            buf[n] = Value::I32(v).to_slot();
            n += 1;
        }
        let interpreted = self.count_static_call(mi);
        prepared
            .call_slots(self.store, &mut buf, interpreted)
            .map_err(|t| format!("static call `{}` trapped: {t}", call.name))
    }

    /// Count a static call of monitor `mi`; whether it is to be interpreted.
    fn count_static_call(&mut self, mi: usize) -> bool {
        // A monitor's first static calls are interpreted (one-off calls);
        // a monitor that makes thousands (a `report` variable's allocator on
        // a large app) makes the rest in the store's tier, which compiles
        // the functions called most once hot.
        if self.calls_made.len() <= mi {
            self.calls_made.resize(mi + 1, 0);
        }
        self.calls_made[mi] = self.calls_made[mi].saturating_add(1);
        self.calls_made[mi] <= static_call::INTERPRETED_PER_MONITOR
    }

    /// [`Self::static_call`] with its arguments gathered into `args` (empty).
    fn static_call_with(
        &mut self,
        mi: usize,
        call: &StaticCall,
        site: &SiteInfo<'_>,
        prepared: &Prepared,
        args: &mut StaticArgs,
    ) -> Result<Option<Value>, String> {
        let ty = &prepared.ty;
        self.buf_used = 0;
        for p in &call.params {
            // (The common site facts here; the rest, strings among them, there.)
            let v = match p {
                Param::Fid => site.fid as i32,
                Param::Pc => site.pc as i32,
                Param::Opcode => site.op.map_or(-1, |o| monitor_abi::binary_opcode(o) as i32),
                _ if self.static_values(mi, p, site, args)? => continue,
                _ => return Ok(None),
            };
            args.push(Value::I32(v));
        }
        if !args.are_of(&ty.params) {
            let got: Vec<ValType> = args.types().collect();
            return Err(format!(
                "static call `{}`: type mismatch: its parameters are {ty}, the pattern gives ({})",
                call.name,
                list(&got)
            ));
        }
        if ty.results.len() != 1 {
            return Err(format!(
                "static call `{}` must return exactly one value, it has type {ty}",
                call.name
            ));
        }
        let interpreted = self.count_static_call(mi);
        match prepared.call(self.store, args, interpreted) {
            Ok(r) => Ok(r),
            Err(t) => Err(format!("static call `{}` trapped: {t}", call.name)),
        }
    }

    fn bind(&mut self, mi: usize, ri: usize, site: &SiteInfo<'_>) -> Result<Bound, LoadError> {
        // (One reference count for the rule, not one per field: this runs
        // at every matched site.)
        let r = self.mons.monitors[mi].rules[ri].clone();
        let (export, pattern, func, fty) = (&r.export, &*r.pattern, r.func, &*r.ty);
        let invalid = &r.invalid;
        let m_err = |s: &Self, msg: String| {
            let m = &s.mons.monitors[mi];
            s.bind_err(m, export, site, msg)
        };
        // A misplaced parameter in the predicate: the predicate cannot run.
        if let Some((true, msg)) = invalid {
            return Err(m_err(self, msg.to_string()));
        }
        // Parameter checks first (no match vs error), then the predicate; a
        // parameter error at a site the predicate rejects is no match (a
        // compiler's type guard may exclude exactly those sites).
        let mut param_error = None;
        if r.checks_site {
            let facts = SiteFacts {
                opcode: site.opcode,
                num_operands: site.num_operands,
                num_immediates: site.imms.len() as u32,
                num_locals: site.validator.len_locals(),
                is_block_end: matches!(pattern.event, Event::BlockEnd),
            };
            for p in &pattern.params {
                match monitor_abi::check_param_at_site(p, &facts) {
                    SiteCheck::Ok => {}
                    SiteCheck::NoMatch => return Ok(Bound::NoMatch),
                    SiteCheck::Error(e) => {
                        param_error.get_or_insert(e);
                    }
                }
            }
        }
        if let Some(pred) = &pattern.predicate {
            match self.static_call(mi, pred, site) {
                Ok(Some(Value::I32(0))) | Ok(None) => return Ok(Bound::NoMatch),
                Ok(Some(Value::I32(_))) => {}
                Ok(Some(v)) => {
                    return Err(m_err(
                        self,
                        format!(
                            "predicate `{}` returned a {}, not an i32",
                            pred.name,
                            v.ty()
                        ),
                    ))
                }
                Err(e) => return Err(m_err(self, e)),
            }
        }
        if let Some(e) = param_error {
            return Err(m_err(self, e));
        }
        if let Some((_, msg)) = invalid {
            return Err(m_err(self, msg.to_string()));
        }
        let mut types: SmallVec<[ValType; 8]> = SmallVec::new();
        let mut args = crate::core::probe::ProbeArgs::with_capacity(pattern.params.len());
        for p in &pattern.params {
            match p.info().binding {
                Binding::OperandType => {
                    let Param::Arg(n) = p else { unreachable!() };
                    let t = site.operand_type(*n);
                    let Some(t) = t else {
                        // Unreachable code: operand types are unknown there, and
                        // the probe would never fire.
                        if !site.reached {
                            return Ok(Bound::NoMatch);
                        }
                        return Err(m_err(
                            self,
                            format!(
                                "arg{n}: the operand's type is unknown here (unreachable code?)"
                            ),
                        ));
                    };
                    let raw = site.validator.get_operand_type(*n as usize).flatten();
                    if raw.is_some_and(|t| gc_ref(site.validator, t)) {
                        types.push(ValType::ExternRef);
                        args.push(ArgSource::OpaqueOperand(*n));
                    } else {
                        // As in Wizard: a call's argument of another type than the
                        // probe's parameter is no match (elsewhere, a bind error below).
                        let is_call = matches!(
                            site.op,
                            Some(Operator::Call { .. } | Operator::CallIndirect { .. })
                        );
                        if is_call && fty.params.get(types.len()).is_some_and(|&want| want != t) {
                            return Ok(Bound::NoMatch);
                        }
                        types.push(t);
                        args.push(ArgSource::Operand(*n));
                    }
                }
                Binding::LocalType => {
                    let Param::Local(n) = p else { unreachable!() };
                    let raw = site.validator.get_local_type(*n);
                    if raw.is_some_and(|t| gc_ref(site.validator, t)) {
                        types.push(ValType::ExternRef);
                        args.push(ArgSource::OpaqueLocal(*n));
                    } else {
                        let t = site.local_type(*n).expect("local index checked");
                        // As in Wizard: a local of another type is no match.
                        if fty.params.get(types.len()).is_some_and(|&want| want != t) {
                            return Ok(Bound::NoMatch);
                        }
                        types.push(t);
                        args.push(ArgSource::Local(*n));
                    }
                }
                _ if matches!(p, Param::Frame) => {
                    types.push(ValType::ExternRef);
                    args.push(ArgSource::Frame);
                }
                _ if matches!(p, Param::Call(_)) => {
                    let Param::Call(c) = p else { unreachable!() };
                    match self.static_call(mi, c, site) {
                        Ok(Some(v)) => {
                            types.push(v.ty());
                            args.push(ArgSource::Const(v.to_slot()));
                        }
                        Ok(None) => return Ok(Bound::NoMatch),
                        Err(e) => return Err(m_err(self, e)),
                    }
                }
                _ if matches!(p, Param::Imm(2)) && site.op.and_then(memarg_offset).is_some() => {
                    let off = site.op.and_then(memarg_offset).unwrap_or(0);
                    match offset_imm(off, fty.params.get(types.len())) {
                        Ok(v) => {
                            types.push(v.ty());
                            args.push(ArgSource::Const(v.to_slot()));
                        }
                        Err(e) => return Err(m_err(self, e)),
                    }
                }
                _ => {
                    let mut vs = StaticArgs::default();
                    match self.static_values(mi, p, site, &mut vs) {
                        Ok(true) => {
                            types.extend(vs.types());
                            args.extend(vs.0.iter().map(|a| ArgSource::Const(a.1)));
                        }
                        Ok(false) => return Ok(Bound::NoMatch),
                        Err(e) => return Err(m_err(self, e)),
                    }
                }
            }
        }
        if types[..] != fty.params[..] {
            return Err(m_err(
                self,
                format!(
                    "type mismatch: the probe function has type {fty}, the pattern binds ({})",
                    list(&types)
                ),
            ));
        }
        let operand_types = args
            .contains(&ArgSource::Frame)
            .then(|| site.operand_types().into());
        Ok(Bound::Call(ProbeCall::new(
            func,
            r.shape.clone(),
            args,
            operand_types,
        )))
    }
}

/// [`Matcher::write_buffer`] into the buffer `(mem, start, max)`, of which
/// `used` bytes are taken.
#[inline(always)]
fn write_buffer_at(
    store: &mut Store,
    (mem, start, max): (MemAddr, GlobalAddr, GlobalAddr),
    used: &mut usize,
    bytes: &[u8],
) -> Result<(i32, i32), String> {
    // (`buffer` checked both are `i32` globals: the low 32 bits of the
    // slot are the value. This runs at every site whose static call
    // takes a string.)
    let global = |g: GlobalAddr| store.globals[g.0 as usize].value as u32 as usize;
    let (start, max) = (global(start), global(max));
    let u = (*used).min(max);
    let (start, max) = (start + u, max - u);
    let n = bytes.len().min(max);
    let data = &mut store.memory_mut(mem).data;
    let dst = data
        .get_mut(start..start + n)
        .ok_or("`whamm_buffer:start` is outside the `whamm_buffer` memory")?;
    dst.copy_from_slice(&bytes[..n]);
    *used = u + n;
    Ok((start as i32, n as i32))
}

fn list(ts: &[ValType]) -> String {
    ts.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn memarg_offset(op: &Operator<'_>) -> Option<u64> {
    monitor_abi::memarg(op).map(|m| m.offset)
}

/// `immN` when it is a memarg's offset (`imm2` of a memory access;
/// docs/monitor-abi.md#immediates): bound at the probe's declared type, an
/// `i64` the full offset, an `i32` its value if it fits in 32 bits (a larger
/// offset, only possible on a 64-bit memory, is an error).
fn offset_imm(off: u64, want: Option<&ValType>) -> Result<Value, String> {
    match (want, u32::try_from(off)) {
        (Some(ValType::I64), _) => Ok(Value::I64(off as i64)),
        (_, Ok(o)) => Ok(Value::I32(o as i32)),
        (_, Err(_)) => Err(format!(
            "imm2: the memarg offset {off:#x} does not fit in 32 bits; declare the parameter i64"
        )),
    }
}

/// Which rule categories apply at a site, in firing order.
fn rule_matches(
    pattern: &Pattern,
    when: When,
    site: &SiteInfo<'_>,
    blocks: &Blocks,
    instr_index: u32,
) -> bool {
    let op = (site.op, site.opcode, site.at_func_end);
    event_matches(&pattern.event, when, op, blocks, instr_index)
}

/// Whether `event` happens at a site of kind `when` at instruction `op`
/// (the operator, its opcode, whether it is the function's final `end`).
fn event_matches(
    event: &Event,
    when: When,
    (op, opcode, at_func_end): (Option<&Operator<'_>>, Option<monitor_abi::Opcode>, bool),
    blocks: &Blocks,
    instr_index: u32,
) -> bool {
    match (*event, when) {
        (Event::FuncEntry, When::Entry) => true,
        (Event::BlockStart, When::Before) => blocks.starts.contains(&instr_index),
        (Event::BlockEnd, When::Before) => blocks.ends.contains_key(&instr_index),
        (Event::BlockStart, When::Entry) => blocks.starts.contains(&blocks::ENTRY),
        (Event::BlockEnd, When::Entry) => blocks.ends.contains_key(&blocks::ENTRY),
        (Event::Opcode { matches, mode }, w) => {
            let mode_ok = matches!(
                (mode, w),
                (Mode::Before, When::Before) | (Mode::After, When::After)
            );
            mode_ok
                && match matches {
                    OpcodeMatch::Any => true,
                    // As in Wizard, whose `select` names only the untyped
                    // form: `select t` is matched by `*` alone.
                    OpcodeMatch::One(o) => {
                        opcode == Some(o) && !matches!(op, Some(Operator::TypedSelect { .. }))
                    }
                }
        }
        (Event::FuncExit, When::Before) => matches!(op, Some(Operator::Return)) || at_func_end,
        _ => false,
    }
}

/// A rule's place in the firing order at a site. At a `return`, `func:exit`
/// rules are among the opcode rules (in export order), as Wizard registers
/// them as `return` rules; at the final `end` they come last.
fn category(e: &Event, at_return: bool) -> u8 {
    match e {
        Event::FuncEntry => 0,
        Event::BlockStart => 1,
        Event::BlockEnd => 2,
        Event::Opcode { .. } => 3,
        Event::FuncExit if at_return => 3,
        Event::FuncExit => 4,
    }
}

impl Matcher<'_> {
    /// `remove_probe(probe_id)` detaches monitor `mi`'s last probe at a
    /// site (of those it just attached, `added`) where one of its rules
    /// bound `probe_id`, as Wizard records it.
    fn mark_removable(&self, mi: usize, site: &SiteInfo<'_>, added: &mut [ProbeCall]) {
        if !self.probe_id_bound {
            return;
        }
        let id = self.mons.probe_ids.get(&(mi, site.fid, site.pc)).copied();
        if let Some(c) = added.last_mut() {
            c.set_removable(id);
        }
    }
}

impl Instrumenter for Matcher<'_> {
    fn dynamic(&self) -> bool {
        self.mons.dynamic
    }

    fn after_sites(&self) -> bool {
        self.mons.needs.after
    }

    fn direct_increments(
        &mut self,
        calls: &[ProbeCall],
    ) -> Option<Vec<crate::core::probe::Direct>> {
        // Dynamic probes patch ops in place: every site keeps its `Probe` op.
        if self.mons.dynamic {
            return None;
        }
        let out =
            crate::monitor::plain::direct_increments(self.store, &mut self.zero_tested, calls)?;
        self.mons.stats.direct_sites += 1;
        Some(out)
    }

    fn begin_function(
        &mut self,
        _func_idx: u32,
        body: &[u8],
        body_offset: usize,
    ) -> Result<(), LoadError> {
        self.mons.blocks = if self.mons.needs.blocks {
            blocks::compute(body, body_offset)
        } else {
            Blocks::default()
        };
        self.ref_func = (None, None);
        Ok(())
    }

    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Probes, LoadError> {
        // No rule can match: skip computing site facts (no monitor, no cost).
        if self.mons.monitors.iter().all(|m| m.rules.is_empty()) {
            return Ok(Probes::new());
        }
        if when == When::Before {
            let here = match site.op {
                Some(Operator::RefFunc { function_index }) => Some(*function_index),
                _ => None,
            };
            self.ref_func.0 = std::mem::replace(&mut self.ref_func.1, here);
        }
        let v = site.validator;
        let opcode = site.op.map(monitor_abi::opcode_of);
        // Only rules of this site's kind and opcode can match: without any,
        // skip the site's facts (the `:after` ones need the effect computed
        // before the instruction).
        // A rule of this site's kind and opcode may match; rules of other
        // events (blocks, function exit) only where their event is.
        let mons = &self.mons;
        let any = |w| {
            mons.monitors.iter().any(|m| {
                !m.index.one(opcode, w).is_empty()
                    || m.index.general[when_index(w)].iter().any(|&ri| {
                        event_matches(
                            &m.rules[ri].pattern.event,
                            w,
                            (site.op, opcode, site.at_func_end),
                            &mons.blocks,
                            site.instr_index,
                        )
                    })
            })
        };
        if !any(when) && !(when == When::Before && any(When::After)) {
            return Ok(Probes::new());
        }
        let needs = self.mons.needs;
        let imms = match site.op {
            Some(op) if needs.imms => monitor_abi::flatten_immediates(op),
            _ => Vec::new(),
        };
        // The stack effect must be computed before the instruction (polymorphic
        // ones like `select` read the operand types); `:after` reuses it.
        let effect = match when {
            _ if !needs.effect => None,
            When::Before => {
                let e = site
                    .op
                    .and_then(|op| monitor_abi::stack_effect(op, &Resolver(v)));
                self.last_effect = Some((site.func_idx, site.pc, e.clone()));
                e
            }
            When::After => match &self.last_effect {
                Some((f, pc, e)) if *f == site.func_idx && *pc == site.pc => e.clone(),
                _ => site
                    .op
                    .and_then(|op| monitor_abi::stack_effect(op, &Resolver(v))),
            },
            When::Entry => None,
        };
        let num_operands = effect.map(|e| {
            if when == When::After {
                e.results.len() as u32
            } else {
                e.params.len() as u32
            }
        });
        let info = SiteInfo {
            fid: site.func_idx,
            pc: site.pc,
            opcode,
            op: site.op,
            imms,
            num_operands,
            validator: v,
            at_func_end: site.at_func_end,
            // (Blocks are computed only where a rule has a block event.)
            instr_count: needs
                .blocks
                .then(|| {
                    let i = match when {
                        When::Entry => blocks::ENTRY,
                        _ => site.instr_index,
                    };
                    self.mons.blocks.ends.get(&i).copied()
                })
                .flatten(),
            instr_index: site.instr_index,
            reached: site.reached,
            ref_func_before: self.ref_func.0,
        };
        let mut out = Probes::new();
        for mi in 0..self.mons.monitors.len() {
            let ix = &self.mons.monitors[mi].index;
            if ix.general[when_index(when)].is_empty() {
                // Rules for this opcode only (a compiled `wasm:opcode:*`
                // script's): one category, in export order.
                let Some(one) = ix.one_rc(opcode, when).cloned() else {
                    continue;
                };
                self.probe_id_bound = false;
                let first = out.len();
                for &ri in one.iter() {
                    let m = &self.mons.monitors[mi];
                    let blocks = &self.mons.blocks;
                    if !rule_matches(&m.rules[ri].pattern, when, &info, blocks, site.instr_index) {
                        continue;
                    }
                    if let Bound::Call(c) = self.bind(mi, ri, &info)? {
                        out.push(c);
                    }
                }
                self.mark_removable(mi, &info, &mut out[first..]);
                continue;
            }
            // Rules by category (entry, block start, block end, opcode, exit), export order within.
            let mut order: Candidates = self.mons.monitors[mi]
                .index
                .candidates(opcode, when)
                .into_iter()
                .filter(|&ri| {
                    rule_matches(
                        &self.mons.monitors[mi].rules[ri].pattern,
                        when,
                        &info,
                        &self.mons.blocks,
                        site.instr_index,
                    )
                })
                .collect();
            let at_return = matches!(info.op, Some(Operator::Return));
            order.sort_by_key(|&ri| {
                category(&self.mons.monitors[mi].rules[ri].pattern.event, at_return)
            });
            self.probe_id_bound = false;
            let first = out.len();
            for ri in order {
                if let Bound::Call(c) = self.bind(mi, ri, &info)? {
                    out.push(c);
                }
            }
            self.mark_removable(mi, &info, &mut out[first..]);
        }
        if !info.reached {
            // Static calls ran (as in Wizard); the probes would never fire.
            out.clear();
        }
        if !out.is_empty() {
            self.mons.stats.sites += 1;
            self.mons.stats.calls += out.len() as u64;
        }
        // Kept per site by the plan and the tiers: no spare capacity
        // (one call stays inline).
        out.shrink_to_fit();
        Ok(out)
    }
}
