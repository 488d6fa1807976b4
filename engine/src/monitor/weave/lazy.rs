//! Lazy weaving ([`weave_lazy`]): the woven module with a placeholder for
//! every body that can wait, and `LazyWeave`, which weaves each of them at
//! its first use (see the module docs of [`super`]).

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::monitors::MonView;
use super::{
    collect, function, imports, kept, rewrite_module, Decided, FuncOrigin, FuncPlan, Kept, Plan,
    Woven,
};
use crate::core::error::LoadError;
use crate::core::module::{BodySource, LazyBodies, ModuleInfo, PlainBody};
use crate::core::probe::{ArgSource, Probes};
use crate::core::types::ValType;
use crate::monitor::blockcount::{BlockCounters, FuncBlocks, LazyBlocks};
use crate::monitor::inline::{InlineConfig, ZeroTested};
use crate::runtime::store::Store;

/// [`super::weave`] for the engine (no fold export), deferring every body it can
/// to its first use ([`Woven::lazy`]; see the module docs): the woven
/// module's bodies are placeholders but for functions the interpreter would
/// translate at load (`Plan::eager_funcs`, and `adds_references`: weaving
/// gives them a reference-typed block or local), and all of them when it would
/// translate the woven module at load (heap references, non-final types,
/// ...: `lazy_allowed`). `m` and `plan` are kept until every body is made.
pub fn weave_lazy(
    m: Arc<ModuleInfo>,
    plan: Plan,
    store: &Store,
    cfg: &InlineConfig,
) -> Result<Woven, LoadError> {
    weave_lazy_with(m, plan, store, cfg, None)
}

/// [`weave_lazy`] with the block counters an earlier weave of the same
/// module, plan and configuration planned (`kept`, from the match cache:
/// planning them is most of a weave's cost), used if they fit
/// ([`Woven::counters_reused`]).
pub fn weave_lazy_with(
    m: Arc<ModuleInfo>,
    plan: Plan,
    store: &Store,
    cfg: &InlineConfig,
    kept: Option<BlockCounters>,
) -> Result<Woven, LoadError> {
    weave_lazy_keeping(m, plan, store, cfg, kept, false)
}

/// [`weave_lazy_with`], and with `keep`, what a later weave of the same
/// match needs instead of its plan ([`Woven::kept`], see [`Kept`]) when
/// it can do with it (bodies deferred, no frame intrinsics).
pub fn weave_lazy_keeping(
    m: Arc<ModuleInfo>,
    mut plan: Plan,
    store: &Store,
    cfg: &InlineConfig,
    kept: Option<BlockCounters>,
    keep: bool,
) -> Result<Woven, LoadError> {
    let mons = MonView::new(store);
    let mut d = Decided::new(&m, &plan, store, &mons, cfg, false, kept, true)?;
    if !lazy_allowed(&m, &plan, store, &mons, &d.layout) {
        return super::woven_eagerly(&m, &plan, &mons, cfg, d);
    }
    let deferred = deferred_bodies(&m, &plan);
    // The counters of the bodies woven now are planned now, the others'
    // when they are woven (`LazyWeave::make`).
    let now = |f: &u32| {
        f.checked_sub(m.num_imported_funcs)
            .and_then(|k| deferred.get(k as usize))
            .is_some_and(|d| !d)
    };
    d.plan_blocks(&m, &plan, plan.funcs.keys().copied().filter(now))?;
    // (Kept until the last body is woven: without the calls it never emits.
    // Those of functions whose counters are planned later stay.)
    plan.drop_folded(&m, &d.func_blocks);
    // (Decisions with counters planned per function are not kept: the kept
    // form holds every counter.)
    let saved = (keep && d.lazy_blocks.is_none())
        .then(|| kept::encode(&plan, &d))
        .flatten();
    let mut w = lazy_woven(m, plan, mons, cfg, d, deferred)?;
    w.kept = saved;
    Ok(w)
}

/// [`weave_lazy_keeping`] from what an earlier weave of the same match kept
/// ([`Kept`]) instead of the match's plan: the same module and bodies.
/// `Ok(None)` if the kept decisions cannot be this module's (the caller
/// weaves from the plan then).
pub fn weave_lazy_kept(
    m: Arc<ModuleInfo>,
    k: Kept,
    store: &Store,
    cfg: &InlineConfig,
) -> Result<Option<Woven>, LoadError> {
    let mons = MonView::new(store);
    let Some((plan, d)) = k.decided(&m, store, cfg) else {
        return Ok(None);
    };
    // (Kept only when bodies were deferred: the same holds now.)
    if !lazy_allowed(&m, &plan, store, &mons, &d.layout) {
        return Ok(None);
    }
    let deferred = deferred_bodies(&m, &plan);
    lazy_woven(m, plan, mons, cfg, d, deferred).map(Some)
}

/// Which of `m`'s bodies wait for their first use: all but those the
/// interpreter translates at load (`Plan::eager_funcs`) and those weaving
/// gives a reference-typed block or local (`adds_references`).
fn deferred_bodies(m: &ModuleInfo, plan: &Plan) -> Vec<bool> {
    let mut deferred = vec![true; m.bodies.len()];
    let kept = plan.eager_funcs.iter().copied().chain(
        (plan.funcs.iter())
            .filter(|(f, fp)| adds_references(m, **f, fp))
            .map(|(f, _)| *f),
    );
    for f in kept {
        if let Some(x) = f
            .checked_sub(m.num_imported_funcs)
            .and_then(|k| deferred.get_mut(k as usize))
        {
            *x = false;
        }
    }
    deferred
}

/// The lazily woven module of `plan` (its folded calls dropped) with what
/// `d` decided, the bodies `deferred` left as placeholders.
fn lazy_woven(
    m: Arc<ModuleInfo>,
    plan: Plan,
    mons: MonView,
    cfg: &InlineConfig,
    d: Decided,
    deferred: Vec<bool>,
) -> Result<Woven, LoadError> {
    let (bytes, origin) = rewrite_module(&m, &plan, &mons, cfg, &d, Some(&deferred))?;
    let Decided {
        layout,
        probe_imports,
        counters,
        func_blocks,
        stats,
        counters_reused,
        lazy_blocks,
        ..
    } = d;
    let lazy_counters = lazy_blocks.as_ref().map(|l| l.planned.clone());
    let source = LazyWeave {
        weaver: imports::Weaver::new(m.num_imported_funcs, &layout),
        shift: layout.shift(),
        added: layout.added,
        m,
        plan,
        mons,
        cfg: cfg.clone(),
        func_blocks,
        lazy_blocks,
        zero_tested: ZeroTested::default(),
    };
    Ok(Woven {
        bytes,
        origin,
        imports: probe_imports.bound,
        stats,
        counters,
        counters_reused,
        kept: None,
        lazy_counters,
        lazy: Some(LazyBodies::new(deferred, Box::new(source))),
    })
}

/// Whether a woven module's bodies may be deferred: the interpreter
/// translates the woven module lazily (`exec::interp::load`), which no body
/// can change. The original module allows it
/// ([`crate::exec::interp::load::may_translate_lazily`]), and nothing weaving
/// adds has a reference type: the added function types and imported
/// globals, and the inlined monitor functions' locals and instructions
/// (an inlined probe taking `frame` passes a null `externref`).
fn lazy_allowed(
    m: &ModuleInfo,
    plan: &Plan,
    store: &Store,
    mons: &MonView,
    l: &collect::Layout,
) -> bool {
    let is_ref = |t: &ValType| t.is_ref();
    let types_ok = l
        .extra_types
        .iter()
        .all(|t| !t.params.iter().chain(t.results.iter()).any(is_ref));
    let globals_ok = l
        .needs
        .globals
        .iter()
        .all(|g| !store.globals[g.0 as usize].ty.ty.is_ref());
    let inlined_ok = l.added.frame_uses.is_empty()
        && l.added.inline.iter().all(|f| {
            mons.code(*f)
                .is_some_and(|(i, idx)| plain_function(&i.module, idx))
        });
    // (The plan saw every instruction: no scan of the bodies for conversions.)
    let lazy = crate::exec::interp::load::may_translate_lazily(m, plan.converts_extern);
    types_ok && globals_ok && inlined_ok && lazy
}

/// Whether weaving function `f` may give it what makes the interpreter
/// translate it at load (`exec::interp::load::needs_eager`) though its own
/// code does not: a block typed by a reference result (a body wrapped for
/// probes at its final `end`) or a scratch local holding a reference
/// operand a probe reads (typed function references count). Judged from the
/// function's type and the operand stacks recorded at its probed sites.
fn adds_references(m: &ModuleInfo, f: u32, fp: &FuncPlan) -> bool {
    let ty = m.func_type(f);
    ty.params
        .iter()
        .chain(ty.results.iter())
        .any(|t| t.is_ref())
        || fp.stacks.values().any(|s| {
            (s.declared.iter().copied()).any(crate::exec::interp::load::maybe_heap_ref)
                || s.types.iter().any(|t| t.is_ref())
        })
}

/// Whether function `idx` of monitor module `m` has no reference-typed
/// param, result or local and no instruction that makes the interpreter
/// translate its function at load (`exec::interp::load::needs_eager`).
/// (Inlined callees of an inlined function are in the inlined set too.)
fn plain_function(m: &ModuleInfo, idx: u32) -> bool {
    let ty = m.func_type(idx);
    let refs = ty
        .params
        .iter()
        .chain(ty.results.iter())
        .chain(&m.body(idx).locals);
    if refs.into_iter().any(|t| t.is_ref()) {
        return false;
    }
    let mut ops = m.operators(idx);
    while !ops.eof() {
        match ops.read() {
            Ok(op) if !crate::exec::interp::load::needs_eager(&op) => {}
            _ => return false,
        }
    }
    true
}

/// The bodies of a lazily woven module ([`weave_lazy`]), woven at their
/// first use: everything a body is woven from, decided for the whole module
/// and owned, so that any thread can weave it.
struct LazyWeave {
    m: Arc<ModuleInfo>,
    plan: Plan,
    mons: MonView,
    cfg: InlineConfig,
    added: collect::Added,
    func_blocks: HashMap<u32, FuncBlocks>,
    /// Block counters not planned yet: a function's are when it is woven.
    lazy_blocks: Option<LazyBlocks>,
    weaver: imports::Weaver,
    zero_tested: ZeroTested,
    /// Function imports added: a woven function's index less this is the
    /// original's.
    shift: u32,
}

impl BodySource for LazyWeave {
    fn make(&mut self, woven_idx: u32) -> Result<(Vec<u8>, FuncOrigin), LoadError> {
        let func_idx = woven_idx - self.shift;
        if let (Some(l), Some(fp)) = (&self.lazy_blocks, self.plan.funcs.get(&func_idx)) {
            if !self.func_blocks.contains_key(&func_idx) {
                if let Some(fb) = l.plan(&self.m, func_idx, fp)? {
                    self.func_blocks.insert(func_idx, fb);
                }
            }
        }
        let cx = function::FuncCx {
            m: &self.m,
            plan: &self.plan,
            mons: &self.mons,
            cfg: &self.cfg,
            added: &self.added,
            func_blocks: &self.func_blocks,
        };
        function::weave_function(&cx, &mut self.weaver, &mut self.zero_tested, func_idx)
    }

    /// The function's plain code and its probes, when the interpreter can
    /// fire them as they are: its block counters are not planned per
    /// function as woven (`LazyBlocks`), none of its sites is counted by a
    /// block counter (the plan no longer has those calls: they are folded
    /// from the counter), and no probe takes a frame handle (the
    /// interpreter's frame would name the woven module's function).
    fn plain(&mut self, woven_idx: u32) -> Option<PlainBody> {
        let func_idx = woven_idx - self.shift;
        let fp = self.plan.funcs.get(&func_idx)?;
        let counted = self
            .func_blocks
            .get(&func_idx)
            .is_some_and(|b| !b.starts.is_empty() || !b.folded.is_empty());
        if self.lazy_blocks.is_some() || counted || weave_interpreted() {
            return None;
        }
        let sites = |c: &super::SiteCalls| -> Vec<(u32, Probes)> {
            c.iter()
                .map(|(pc, calls)| (*pc, calls.iter().cloned().collect()))
                .collect()
        };
        let body = PlainBody {
            entry: fp.entry.iter().cloned().collect(),
            before: sites(&fp.before),
            after: sites(&fp.after),
            bytes: Vec::new(),
            pcs: Vec::new(),
        };
        let all = body
            .entry
            .iter()
            .chain((body.before.iter().chain(&body.after)).flat_map(|(_, c)| c.iter()));
        if all
            .flat_map(|c| c.args.iter())
            .any(|a| matches!(a, ArgSource::Frame))
        {
            return None;
        }
        let (bytes, pcs) = function::plain_function(&mut self.weaver, &self.m, func_idx).ok()?;
        Some(PlainBody { bytes, pcs, ..body })
    }
}

/// `WIZENG_WEAVE_INTERPRETED=1`: the dyn tier interprets every function's
/// woven body, as before plain bodies ([`PlainBody`]); for comparisons.
fn weave_interpreted() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("WIZENG_WEAVE_INTERPRETED").is_some_and(|v| v == "1"))
}
