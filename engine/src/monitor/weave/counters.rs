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
/// `needs`.
pub(super) fn plan_block_counters(
    m: &ModuleInfo,
    plan: &Plan,
    store: &Store,
    cfg: &InlineConfig,
    site_calls: &[SiteCall<'_>],
    needs: &mut Needs,
) -> Result<(BlockCounters, HashMap<u32, FuncBlocks>), LoadError> {
    let mut counters = BlockCounters::default();
    let mut func_blocks: HashMap<u32, FuncBlocks> = HashMap::default();
    if cfg.enabled && cfg.block_counts && m.start.is_none() {
        let countable = blockcount::countable(store, site_calls.iter().map(|c| c.2));
        if !countable.is_empty() {
            let first_global =
                m.num_imported_globals + needs.globals.len() as u32 + m.globals.len() as u32;
            let mut fids: Vec<&u32> = plan.funcs.keys().collect();
            fids.sort();
            for f in fids {
                let fb = blockcount::plan_function(
                    m,
                    *f,
                    &plan.funcs[f],
                    &countable,
                    first_global,
                    &mut counters,
                )?;
                func_blocks.insert(*f, fb);
            }
        }
    }
    let mut counted_mems: Vec<MemAddr> = counters
        .blocks
        .iter()
        .flat_map(|b| b.sites.iter().flat_map(|s| s.1.iter().map(|i| i.mem)))
        .collect();
    counted_mems.sort_by_key(|a| a.0);
    counted_mems.dedup();
    for a in &counted_mems {
        if !needs.memories.contains(a) {
            needs.memories.push(*a);
        }
    }
    Ok((counters, func_blocks))
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
