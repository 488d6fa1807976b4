//! Weaving: turn the match result (probe calls per site) into Wasm code, for
//! tiers that compile Wasm (the JIT). The woven module is the application with:
//! - one function import per monitor function used as a probe (module
//!   `wizeng:probe`, names `p0`, `p1`, ...), appended after the app's imports
//!   (so every defined function's index shifts by their count);
//! - at each site, the operands a probe needs saved into fresh scratch locals
//!   and pushed back, then a call per probe with constants, locals and saved
//!   operands as arguments (results dropped).
//!
//! Placement matches the interpreter: before the instruction; after a `loop`
//! opcode (branches to a loop re-enter its header, firing its probes each
//! iteration) and after an `end` (branches to a block arrive there); probes at
//! the function's final `end` sit after a wrapper block around the body, so
//! branches to the function's label reach them. `:after` probes follow the
//! instruction. A table maps every woven instruction back to its original pc.
//!
//! The app's code still never names a monitor's state: it calls imports the
//! engine binds to monitor functions.
//!
//! Block counters (with inlining, `InlineConfig::block_counts`; see
//! [`crate::monitor::blockcount`]): probes that are pure counter increments are not
//! emitted at their sites; each straight-line block with at least one of them
//! increments one counter (a mutable i64 global appended to the woven module's
//! globals) at its entry instead. The counts reach the monitors' memories
//! through fold functions appended after the app's functions, the first of
//! them exported as [`crate::monitor::blockcount::FOLD_EXPORT`] (`wizeng:fold`,
//! `[] -> []`), when the module is woven to run elsewhere (`--emit-woven`).
//! No probe of the woven code can read a counted memory (see
//! `blockcount::countable`). **Whoever runs a woven module must fold the
//! counters before a monitor's `wasm:exit`**: elsewhere by calling
//! `wizeng:fold`; the engine's own woven modules have no fold code, and
//! [`crate::monitor::blockcount::BlockCounters::settle`] folds the counters
//! natively (it also corrects a block left partly executed by a trap, from
//! `Woven::counters`). A module with a
//! start function gets no block counters (the fold could not be called if it
//! trapped during instantiation).
//!
//! The weave, step by step: `plan` holds the match result; `collect`
//! decides what is added (probe calls in order, inlining, frame intrinsics,
//! the layout of added imports, types and fold functions); `counters` plans
//! the block counters and their sections; `imports` writes the probe imports
//! and shifts the app's indices; `rewrite` re-encodes the module section by
//! section, `function` each function, `body` the code of each site,
//! `inlined` inlined monitor code; `provenance` maps woven pcs back;
//! `monitors` is what weaving reads of the monitors.
//!
//! **Lazy weaving** ([`weave_lazy`], the engine's own woven modules): the
//! module's structure (imports, index shifts, types, counter globals and
//! their layout, provenance of every site) is decided as above, but a
//! function's body is woven only when a tier first needs it (the
//! interpreter's translation at its first call, the JIT's compile): the
//! woven module holds a placeholder body instead
//! ([`crate::core::module::LazyBodies`]), and `lazy::LazyWeave` weaves the real
//! one on demand, on any thread, from what it owns (the original module, the
//! plan, the decided layout and a copy of the monitors' code, `MonView`).
//! Each function is woven from module-wide decisions only, so its body is
//! the one eager weaving gives (`tests/lazy_weave.rs` compares them).

pub use crate::core::provenance::{FuncOrigin, InlinedFrom, Origin};

use rustc_hash::FxHashMap as HashMap;

use crate::core::error::LoadError;
use crate::core::module::{LazyBodies, ModuleInfo};
use crate::core::types::{Extern, ValType};
use crate::monitor::blockcount::{self, BlockCounters, FuncBlocks};
use crate::monitor::inline::{InlineConfig, InlineStats};
use crate::runtime::store::Store;

mod body;
mod collect;
mod counters;
mod function;
mod imports;
mod inlined;
mod kept;
mod lazy;
mod monitors;
mod plan;
mod provenance;
mod rewrite;

pub use kept::Kept;
pub use lazy::{weave_lazy, weave_lazy_keeping, weave_lazy_kept, weave_lazy_with};
use monitors::MonView;
pub use plan::{FuncPlan, Plan, Recorder, Replay, SiteCalls, SiteCursor, SiteStack};

/// Module name of the probe imports of a woven module.
pub const PROBE_MODULE: &str = "wizeng:probe";

pub struct Woven {
    pub bytes: Vec<u8>,
    pub origin: Origin,
    /// Imports of module [`PROBE_MODULE`] to define: name and what it is bound to
    /// (monitor functions, and the memories/globals inlined monitor code uses).
    pub imports: Vec<(String, Extern)>,
    pub stats: InlineStats,
    /// Block counters; before a monitor's `wasm:exit`, call
    /// [`BlockCounters::settle`] (or, outside this engine, the export
    /// [`crate::monitor::blockcount::FOLD_EXPORT`]).
    pub counters: BlockCounters,
    /// Whether `counters` are the kept ones given to [`weave_lazy_with`]
    /// (else planned here: worth keeping for the next run).
    pub counters_reused: bool,
    /// With [`weave_lazy_keeping`]: what a later weave of the same match
    /// needs ([`Kept`]), as an entry's bytes to keep beside the match.
    pub kept: Option<Vec<u8>>,
    /// With [`weave_lazy`] on a large plan: the block counters of the
    /// functions woven so far, planned as each is (`counters` is then
    /// empty, and not worth keeping); fold these too.
    pub lazy_counters: Option<std::sync::Arc<std::sync::Mutex<BlockCounters>>>,
    /// With [`weave_lazy`]: the bodies `bytes` holds placeholders for, made
    /// at their first use. Set it as the decoded module's
    /// [`ModuleInfo::lazy`] (and `origin` as its `origin`).
    pub lazy: Option<LazyBodies>,
}

fn enc_val(t: ValType) -> wasm_encoder::ValType {
    match t {
        ValType::I32 => wasm_encoder::ValType::I32,
        ValType::I64 => wasm_encoder::ValType::I64,
        ValType::F32 => wasm_encoder::ValType::F32,
        ValType::F64 => wasm_encoder::ValType::F64,
        ValType::V128 => wasm_encoder::ValType::V128,
        ValType::FuncRef => wasm_encoder::ValType::FUNCREF,
        ValType::ExternRef => wasm_encoder::ValType::EXTERNREF,
        ValType::ExnRef => wasm_encoder::ValType::EXNREF,
    }
}

fn err(msg: impl std::fmt::Display) -> LoadError {
    LoadError {
        kind: crate::core::error::LoadErrorKind::MonitorBind,
        offset: None,
        message: format!("weaving: {msg}"),
    }
}

/// What weaving decides for the whole module before any body is woven.
struct Decided {
    layout: collect::Layout,
    probe_imports: imports::ProbeImports,
    counters: BlockCounters,
    func_blocks: HashMap<u32, FuncBlocks>,
    stats: InlineStats,
    /// Whether `counters` are the kept ones given to [`Decided::new`].
    counters_reused: bool,
    /// The probe functions the plan calls, in order of first use (what
    /// inlining was chosen from).
    targets: Vec<crate::core::types::FuncAddr>,
    /// Block counters planned per function when first woven (then
    /// `counters` is empty; see `blockcount::LazyBlocks`).
    lazy_blocks: Option<blockcount::LazyBlocks>,
}

impl Decided {
    /// `lazy`: block counters may be planned per function when first woven
    /// (never with `fold_export`: its fold code folds every block).
    #[allow(clippy::too_many_arguments)]
    fn new(
        m: &ModuleInfo,
        plan: &Plan,
        store: &Store,
        mons: &MonView,
        cfg: &InlineConfig,
        fold_export: bool,
        kept: Option<BlockCounters>,
        lazy: bool,
    ) -> Result<Decided, LoadError> {
        let (targets, site_calls) = collect::site_calls(plan);
        let mut inlining = collect::Inlining::choose(store, cfg, &targets);
        let frame_uses = collect::inlined_frame_uses(store, &site_calls, &inlining.inline);
        // (Lazily only without fold code: it folds every block.)
        let lazy = lazy && !fold_export;
        let mut planned = counters::plan_block_counters(
            m,
            plan,
            store,
            cfg,
            &site_calls,
            &mut inlining.needs,
            kept,
            lazy,
        )?;
        let (counters, func_blocks) = (&mut planned.counters, planned.func_blocks);
        let folded = match &mut planned.lazy {
            Some(l) => {
                (counters.probes_folded, counters.sites_folded) = (l.probes_folded, l.sites_folded);
                std::mem::take(&mut l.folded)
            }
            None => collect::folded(&func_blocks, &site_calls),
        };
        let counters = planned.counters;
        let mut stats = collect::stats(&counters, &folded, &site_calls, &inlining);
        if let Some(l) = &planned.lazy {
            stats.blocks = l.reserved as u64;
        }
        let layout = collect::Layout::new(m, store, inlining, frame_uses, &counters, fold_export);
        stats.specialized = collect::specialized(mons, cfg, &layout.added, &folded, &site_calls);
        let probe_imports = imports::ProbeImports::new(store, &layout);
        Ok(Decided {
            layout,
            probe_imports,
            counters,
            func_blocks,
            stats,
            counters_reused: planned.reused,
            lazy_blocks: planned.lazy,
            targets,
        })
    }

    /// What [`Decided::new`] decided for a plan, again from what it was
    /// decided from and the counters it planned ([`Kept`]), without the
    /// plan: none if the counters cannot be these (`counters::adopt`). Only
    /// for decisions without frame intrinsics (their uses are read from
    /// every site), and without a fold export.
    fn kept(
        m: &ModuleInfo,
        store: &Store,
        cfg: &InlineConfig,
        targets: Vec<crate::core::types::FuncAddr>,
        counters: BlockCounters,
        stats: InlineStats,
    ) -> Option<Decided> {
        let mut inlining = collect::Inlining::choose(store, cfg, &targets);
        let (counters, func_blocks) =
            counters::adopt(m, store, cfg, counters, &mut inlining.needs)?;
        let frame_uses = HashMap::default();
        let layout = collect::Layout::new(m, store, inlining, frame_uses, &counters, false);
        let probe_imports = imports::ProbeImports::new(store, &layout);
        Some(Decided {
            layout,
            probe_imports,
            counters,
            func_blocks,
            stats,
            counters_reused: true,
            lazy_blocks: None,
            targets,
        })
    }

    /// With lazily planned counters, plan those of functions `fs` now.
    fn plan_blocks(
        &mut self,
        m: &ModuleInfo,
        plan: &Plan,
        fs: impl Iterator<Item = u32>,
    ) -> Result<(), LoadError> {
        let Some(l) = &self.lazy_blocks else {
            return Ok(());
        };
        for f in fs {
            if let Some(fb) = plan.funcs.get(&f).map(|fp| l.plan(m, f, fp)).transpose()? {
                self.func_blocks.extend(fb.map(|fb| (f, fb)));
            }
        }
        Ok(())
    }

    /// How many counter globals the woven module declares.
    fn counter_globals(&self) -> usize {
        match &self.lazy_blocks {
            Some(l) => l.reserved as usize,
            None => self.counters.blocks.len(),
        }
    }
}

/// Weave the plan into the module, inlining small monitor functions. With
/// `fold_export`, the block counters are folded by Wasm code the module
/// exports ([`crate::monitor::blockcount::FOLD_EXPORT`], for running it
/// elsewhere); without, [`BlockCounters::settle`] folds them itself (the
/// engine's woven modules: no fold code to compile).
pub fn weave(
    m: &ModuleInfo,
    plan: &Plan,
    store: &Store,
    cfg: &InlineConfig,
    fold_export: bool,
) -> Result<Woven, LoadError> {
    let mons = MonView::new(store);
    // (Every block counter planned here: `Woven::counters` has them all.)
    let d = Decided::new(m, plan, store, &mons, cfg, fold_export, None, false)?;
    woven_eagerly(m, plan, &mons, cfg, d)
}

/// Every body woven now, with what `d` decided for the whole module.
fn woven_eagerly(
    m: &ModuleInfo,
    plan: &Plan,
    mons: &MonView,
    cfg: &InlineConfig,
    mut d: Decided,
) -> Result<Woven, LoadError> {
    d.plan_blocks(m, plan, plan.funcs.keys().copied())?;
    let (bytes, origin) = rewrite_module(m, plan, mons, cfg, &d, None)?;
    Ok(Woven {
        bytes,
        origin,
        imports: d.probe_imports.bound,
        stats: d.stats,
        counters: d.counters,
        counters_reused: d.counters_reused,
        kept: None,
        lazy_counters: d.lazy_blocks.map(|l| l.planned),
        lazy: None,
    })
}

/// The woven module's bytes (placeholders for the `deferred` bodies) and
/// the provenance of the bodies woven.
fn rewrite_module(
    m: &ModuleInfo,
    plan: &Plan,
    mons: &MonView,
    cfg: &InlineConfig,
    d: &Decided,
    deferred: Option<&[bool]>,
) -> Result<(Vec<u8>, Origin), LoadError> {
    let cx = function::FuncCx {
        m,
        plan,
        mons,
        cfg,
        added: &d.layout.added,
        func_blocks: &d.func_blocks,
    };
    let mut rw = rewrite::Rewriter::new(
        cx,
        &d.layout,
        &d.probe_imports,
        d.counter_globals(),
        deferred,
    );
    let bytes = rw.rewrite()?;
    let mut origin = std::mem::take(&mut rw.origin);
    origin.mem_imports = d.layout.mem_imports;
    origin.mem_shift = d.layout.needs.memories.len() as u32;
    Ok((bytes, origin))
}
