//! Block counter setup (see [`crate::monitor::blockcount`]): which probes are
//! counted per straight-line block instead of at their sites, and the
//! sections the counters add (their globals, the `wizeng:fold` export).

use rustc_hash::FxHashMap as HashMap;

use super::collect::SiteCall;
use super::plan::Plan;
use crate::core::error::LoadError;
use crate::core::module::ModuleInfo;
use crate::core::types::MemAddr;
use crate::monitor::blockcount::{self, BlockCounters, FuncBlocks};
use crate::monitor::inline::{InlineConfig, Needs};
use crate::runtime::store::Store;

/// Plan the block counters of every function (with inlining and block counts
/// on, and no start function); the memories they count into are added to
/// `needs`. `kept`: counters an earlier run planned for the same plan and
/// configuration (`monitor::match_cache`), used instead when they fit this
/// module and plan ([`fits`]). The flag says whether they were.
/// `lazy`: when there are many, plan them per function when first woven
/// instead ([`Planned::lazy`], `blockcount::plan_lazily`).
#[allow(clippy::too_many_arguments)]
pub(super) fn plan_block_counters(
    m: &ModuleInfo,
    plan: &Plan,
    store: &Store,
    cfg: &InlineConfig,
    site_calls: &[SiteCall<'_>],
    needs: &mut Needs,
    kept: Option<BlockCounters>,
    lazy: bool,
) -> Result<Planned, LoadError> {
    let mut counters = BlockCounters::default();
    let mut func_blocks: HashMap<u32, FuncBlocks> = HashMap::default();
    let (mut reused, mut later) = (false, None);
    if cfg.enabled && cfg.block_counts && m.start.is_none() {
        let first_global =
            m.num_imported_globals + needs.globals.len() as u32 + m.globals.len() as u32;
        match kept.filter(|k| fits(k, plan, store, first_global)) {
            Some(k) => {
                func_blocks = blockcount::func_blocks(&k);
                counters = k;
                reused = true;
            }
            None => {
                let countable = blockcount::countable(store, site_calls.iter().map(|c| (c.0, c.2)));
                let calls = site_calls.iter().map(|c| (c.0, c.1, c.2));
                if !countable.is_empty() && lazy && blockcount::plan_lazily(countable.len()) {
                    // (A plan lacking a function's bound, not made by
                    // matching: planned now.)
                    match blockcount::LazyBlocks::new(plan, countable, calls, first_global) {
                        Ok(l) => later = Some(l),
                        Err(countable) => {
                            (counters, func_blocks) =
                                blockcount::plan_functions(m, plan, countable, first_global)?
                        }
                    }
                } else if !countable.is_empty() {
                    (counters, func_blocks) =
                        blockcount::plan_functions(m, plan, countable, first_global)?;
                }
            }
        }
    }
    // (A few memories, counted into at every site: no list of them all.)
    let mut counted_mems: Vec<MemAddr> = Vec::new();
    let lazy_incs = later.as_ref().map_or(&[][..], |l| l.countable_incs());
    for i in counters.counted_incs().chain(lazy_incs) {
        if !counted_mems.contains(&i.mem) {
            counted_mems.push(i.mem);
        }
    }
    counted_mems.sort_by_key(|a| a.0);
    for a in &counted_mems {
        if !needs.memories.contains(a) {
            needs.memories.push(*a);
        }
    }
    Ok(Planned {
        counters,
        func_blocks,
        reused,
        lazy: later,
    })
}

/// What [`plan_block_counters`] planned.
pub(super) struct Planned {
    pub(super) counters: BlockCounters,
    pub(super) func_blocks: HashMap<u32, FuncBlocks>,
    /// Whether `counters` are the kept ones.
    pub(super) reused: bool,
    /// The counters to plan per function when first woven (then `counters`
    /// and `func_blocks` are empty).
    pub(super) lazy: Option<blockcount::LazyBlocks>,
}

/// Whether kept counters can be those of `plan`, as far as weaving and
/// folding rely on them: blocks numbered from `first_global` in function
/// order, each function's blocks starting at ascending events, every
/// counted site one of the plan's (ascending through a function) with the
/// statistics its calls give, and every increment a 1-, 2-, 4- or 8-byte
/// counter (a zero-extended one: 4 bytes in 8) inside a memory of `store`.
/// (What else an entry could get wrong changes counts, not safety; entries
/// are checked by their digest first.)
fn fits(k: &BlockCounters, plan: &Plan, store: &Store, first_global: u32) -> bool {
    let inc_ok = |i: &blockcount::Inc| {
        let width_ok = matches!(i.width, 1 | 2 | 4 | 8) && (!i.zext || i.width == 4);
        let end = i.ea as u64 + i.span() as u64;
        width_ok
            && (i.mem.0 as usize) < store.memories.len()
            && end <= store.memory(i.mem).data.len() as u64
    };
    let (mut probes, mut counted) = (0u64, 0u64);
    let mut last: Option<(u32, usize)> = None;
    // The last site key of the function so far (keys ascend through its
    // blocks: `FuncBlocks::folded` is walked in order).
    let mut prev = None;
    let mut sites = Default::default();
    for (n, b) in k.blocks.iter().enumerate() {
        let Some(fp) = plan.funcs.get(&b.func) else {
            return false;
        };
        let in_order = last.is_none_or(|(f, start)| f < b.func || (f == b.func && start < b.start));
        if !in_order || b.global.checked_sub(first_global) != Some(n as u32) {
            return false;
        }
        if last.is_none_or(|(f, _)| f != b.func) {
            prev = None;
            sites = (fp.before.cursor(), fp.after.cursor());
        }
        last = Some((b.func, b.start));
        for (key, incs) in k.sites_of(b) {
            // (Keys ascend through the function: checked below, so the
            // cursors only move forward.)
            let calls = match (key, key % 2, prev < Some(key)) {
                (_, _, false) => None,
                (0, _, _) => Some(&fp.entry[..]),
                (_, 0, _) => sites.0.get((key / 2) as u32),
                _ => sites.1.get((key / 2) as u32),
            };
            let Some(calls) = calls.filter(|c| !c.is_empty()) else {
                return false;
            };
            if incs.is_empty() || !incs.iter().all(inc_ok) {
                return false;
            }
            prev = Some(key);
            probes += calls.len() as u64;
            counted += 1;
        }
    }
    (probes, counted) == (k.probes_folded, k.sites_folded)
}

/// The counters' globals (appended to the app's) and the fold export, each
/// added once: to the app's section of that kind, or as a section of its own
/// where the app has none ([`CounterSections::missing`]).
pub(super) struct CounterSections {
    n_counters: usize,
    first_fold: u32,
    need_globals: bool,
    need_exports: bool,
}

impl CounterSections {
    /// `export`: whether the module has fold functions to export.
    pub(super) fn new(n_counters: usize, first_fold: u32, export: bool) -> CounterSections {
        CounterSections {
            n_counters,
            first_fold,
            need_globals: n_counters > 0,
            need_exports: n_counters > 0 && export,
        }
    }

    /// The counters, at the end of the app's global section (once).
    pub(super) fn add_globals(&mut self, gs: &mut wasm_encoder::GlobalSection) {
        if !std::mem::replace(&mut self.need_globals, false) {
            return;
        }
        for _ in 0..self.n_counters {
            gs.global(
                wasm_encoder::GlobalType {
                    val_type: wasm_encoder::ValType::I64,
                    mutable: true,
                    shared: false,
                },
                &wasm_encoder::ConstExpr::i64_const(0),
            );
        }
    }

    /// The fold export, at the end of the app's export section (once).
    pub(super) fn add_export(&mut self, es: &mut wasm_encoder::ExportSection) {
        if !std::mem::replace(&mut self.need_exports, false) {
            return;
        }
        es.export(
            blockcount::FOLD_EXPORT,
            wasm_encoder::ExportKind::Func,
            self.first_fold,
        );
    }

    /// Before a later section: the global section (`globals`) and the export
    /// section (`exports`) the app lacks but the counters need, in order.
    pub(super) fn missing(&mut self, out: &mut wasm_encoder::Module, globals: bool, exports: bool) {
        if globals && self.need_globals {
            let mut gs = wasm_encoder::GlobalSection::new();
            self.add_globals(&mut gs);
            out.section(&gs);
        }
        if exports && self.need_exports {
            let mut es = wasm_encoder::ExportSection::new();
            self.add_export(&mut es);
            out.section(&es);
        }
    }
}
