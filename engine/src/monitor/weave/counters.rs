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
    add_memories(counted_mems, needs);
    Ok(Planned {
        counters,
        func_blocks,
        reused,
        lazy: later,
    })
}

/// The memories counters count into, added to `needs` (in address order).
fn add_memories(mut counted_mems: Vec<MemAddr>, needs: &mut Needs) {
    counted_mems.sort_by_key(|a| a.0);
    for a in &counted_mems {
        if !needs.memories.contains(a) {
            needs.memories.push(*a);
        }
    }
}

/// [`plan_block_counters`] for counters kept with the rest of a weave's
/// decisions (`super::kept`), whose plan is not at hand: taken if they are
/// [`sound`] (none unless the configuration plans counters at all), with
/// their memories added to `needs`.
pub(super) fn adopt(
    m: &ModuleInfo,
    store: &Store,
    cfg: &InlineConfig,
    k: BlockCounters,
    needs: &mut Needs,
) -> Option<(BlockCounters, HashMap<u32, FuncBlocks>)> {
    if !(cfg.enabled && cfg.block_counts && m.start.is_none()) {
        return (k.blocks.is_empty() && k.sites.is_empty())
            .then(|| (BlockCounters::default(), HashMap::default()));
    }
    let first_global = m.num_imported_globals + needs.globals.len() as u32 + m.globals.len() as u32;
    let mut mems = Vec::new();
    if !sound(&k, m, store, first_global, &mut mems) {
        return None;
    }
    add_memories(mems, needs);
    let func_blocks = blockcount::func_blocks(&k);
    Some((k, func_blocks))
}

/// Whether `k` can be woven into `m` and folded into `store`'s memories,
/// whatever plan it was planned for: blocks numbered from `first_global`,
/// in order of function (one `m` defines) and of event, each with counted
/// sites at ascending keys, each with increments that are 1-, 2-, 4- or
/// 8-byte counters (a zero-extended one: 4 bytes in 8) inside a memory of
/// `store`; the memories counted into are added to `mems` on the way. (A
/// wrong count or place is not checked: an entry's digest is.)
pub(super) fn sound(
    k: &BlockCounters,
    m: &ModuleInfo,
    store: &Store,
    first_global: u32,
    mems: &mut Vec<MemAddr>,
) -> bool {
    let defined = m.num_imported_funcs..m.num_imported_funcs + m.bodies.len() as u32;
    let lens: Vec<u64> = (store.memories.iter())
        .map(|m| m.data.len() as u64)
        .collect();
    let mut last_mem = None;
    let mut inc_ok = |i: &blockcount::Inc| {
        let width_ok = matches!(i.width, 1 | 2 | 4 | 8) && (!i.zext || i.width == 4);
        let end = i.ea as u64 + i.span() as u64;
        if last_mem != Some(i.mem) && !mems.contains(&i.mem) {
            mems.push(i.mem);
        }
        last_mem = Some(i.mem);
        width_ok && lens.get(i.mem.0 as usize).is_some_and(|l| end <= *l)
    };
    let mut last: Option<(u32, usize)> = None;
    for (n, b) in k.blocks.iter().enumerate() {
        let in_order = last.is_none_or(|(f, start)| f < b.func || (f == b.func && start < b.start));
        let numbered = b.global.checked_sub(first_global) == Some(n as u32);
        if !in_order || !numbered || !defined.contains(&b.func) {
            return false;
        }
        last = Some((b.func, b.start));
        if k.sites
            .get(b.sites.start as usize..b.sites.end as usize)
            .is_none()
        {
            return false;
        }
        let mut prev = None;
        for (key, incs) in k.sites_of(b) {
            let ok = prev < Some(key) && !incs.is_empty();
            if !ok || !incs.iter().all(&mut inc_ok) {
                return false;
            }
            prev = Some(key);
        }
    }
    true
}

/// Whether an increment is a 1-, 2-, 4- or 8-byte counter (a zero-extended
/// one: 4 bytes in 8) inside a memory of `store`.
fn inc_ok(i: &blockcount::Inc, store: &Store) -> bool {
    let width_ok = matches!(i.width, 1 | 2 | 4 | 8) && (!i.zext || i.width == 4);
    let end = i.ea as u64 + i.span() as u64;
    width_ok
        && (i.mem.0 as usize) < store.memories.len()
        && end <= store.memory(i.mem).data.len() as u64
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
    let inc_ok = |i: &blockcount::Inc| inc_ok(i, store);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::types::MemAddr;
    use crate::monitor::blockcount::{CountedBlock, CountedSite, Inc};
    use crate::runtime::store::{Config, Linker};
    use std::sync::Arc;

    /// A store with one monitor memory of one page, and an app of one
    /// imported and two defined functions and one global.
    fn setup() -> (Store, crate::Module) {
        let mon = wat::parse_str("(module (memory 1))").unwrap();
        let mut store = Store::new(Config::default());
        let module = Arc::new(crate::Module::new(&mon).unwrap());
        Linker::new().instantiate(&mut store, &module).unwrap();
        let app = wat::parse_str(
            r#"(module (import "m" "f" (func)) (global i32 (i32.const 0))
                (func nop nop) (func nop))"#,
        )
        .unwrap();
        (store, crate::Module::new(&app).unwrap())
    }

    /// Two blocks of function 1 and one of function 2, numbered from 1.
    fn counters() -> BlockCounters {
        let inc = |ea| Inc {
            mem: MemAddr(0),
            ea,
            width: 8,
            delta: 1,
            zext: false,
            set: false,
        };
        let block = |func, start, global, sites: std::ops::Range<u32>| CountedBlock {
            func,
            start,
            pcs: None,
            global,
            sites,
        };
        let site = |key, i: u32| CountedSite {
            key,
            incs: i..i + 1,
        };
        BlockCounters {
            blocks: vec![
                block(1, 0, 1, 0..2),
                block(1, 3, 2, 2..3),
                block(2, 0, 3, 3..4),
            ],
            sites: vec![site(2, 0), site(4, 1), site(8, 2), site(2, 3)],
            incs: vec![inc(0), inc(8), inc(16), inc(65528)],
            probes_folded: 4,
            sites_folded: 4,
        }
    }

    #[test]
    fn kept_counters_are_sound_only_within_the_module_and_memories() {
        let (store, app) = setup();
        let m = app.info();
        let mut mems = Vec::new();
        assert!(sound(&counters(), m, &store, 1, &mut mems));
        assert_eq!(mems, [MemAddr(0)]);
        let unsound: Vec<(&str, Box<dyn Fn(&mut BlockCounters)>)> = vec![
            (
                "numbered from elsewhere",
                Box::new(|k| k.blocks[1].global = 7),
            ),
            ("an imported function", Box::new(|k| k.blocks[0].func = 0)),
            ("no such function", Box::new(|k| k.blocks[2].func = 3)),
            ("blocks out of order", Box::new(|k| k.blocks[1].start = 0)),
            ("sites out of order", Box::new(|k| k.sites[1].key = 2)),
            (
                "a site without increments",
                Box::new(|k| k.sites[0].incs = 0..0),
            ),
            (
                "sites beyond the list",
                Box::new(|k| k.blocks[2].sites = 3..9),
            ),
            (
                "increments beyond the list",
                Box::new(|k| k.sites[3].incs = 3..5),
            ),
            ("past the memory's end", Box::new(|k| k.incs[3].ea = 65529)),
            ("no such memory", Box::new(|k| k.incs[0].mem = MemAddr(1))),
            ("a 3-byte counter", Box::new(|k| k.incs[0].width = 3)),
            (
                "an 8-byte zero-extended one",
                Box::new(|k| k.incs[0].zext = true),
            ),
        ];
        for (what, change) in unsound {
            let mut k = counters();
            change(&mut k);
            assert!(!sound(&k, m, &store, 1, &mut Vec::new()), "{what}");
        }
        let other = sound(&counters(), m, &store, 0, &mut Vec::new());
        assert!(!other, "another first global");
    }
}
