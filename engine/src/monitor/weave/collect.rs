//! What weaving adds to the module, decided before any code is written: the
//! probe calls in a deterministic order, which probe functions are inlined
//! (and what inlined code needs from the monitors), how inlined probes use
//! their frame handle, and where every added import, type and fold function
//! lands ([`Layout`]).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::monitors::MonView;
use super::plan::Plan;
use crate::core::module::ModuleInfo;
use crate::core::probe::{ArgSource, ProbeCall, When};
use crate::core::types::{FuncAddr, FuncType, GlobalAddr, MemAddr, ValType};
use crate::monitor::blockcount::{self, BlockCounters, FuncBlocks};
use crate::monitor::inline::{analyse, FrameUses, InlineConfig, InlineStats, Needs, ZeroTested};
use crate::runtime::store::Store;

/// A probe call at a site: (function, site key `blockcount::key`, call).
pub(super) type SiteCall<'p> = (u32, u64, &'p ProbeCall);

/// The plan's probe calls in a deterministic order (by function, then pc;
/// entry probes first, `before` ahead of `after`), and their targets in
/// order of first use.
pub(super) fn site_calls(plan: &Plan) -> (Vec<FuncAddr>, Vec<SiteCall<'_>>) {
    let mut targets: Vec<FuncAddr> = Vec::new();
    let mut fids: Vec<&u32> = plan.funcs.keys().collect();
    fids.sort();
    // (Sized first: this is one entry per probe call of the app, and a
    // vector that grows by doubling touches twice the fresh memory.)
    let n = (fids.iter().map(|f| &plan.funcs[*f]))
        .map(|fp| fp.entry.len() + fp.before.num_calls() + fp.after.num_calls())
        .sum();
    let mut site_calls: Vec<SiteCall<'_>> = Vec::with_capacity(n);
    for f in fids {
        let fp = &plan.funcs[f];
        let mut sites: Vec<(u32, u8, &[ProbeCall])> = fp
            .before
            .iter()
            .map(|(pc, v)| (*pc, 1, v))
            .chain(fp.after.iter().map(|(pc, v)| (*pc, 2, v)))
            .collect();
        sites.sort_by_key(|s| (s.0, s.1));
        let entry = fp.entry.iter().map(|c| (0, c));
        let keyed = sites.iter().flat_map(|s| {
            let w = if s.1 == 1 { When::Before } else { When::After };
            s.2.iter().map(move |c| (blockcount::key(s.0, w), c))
        });
        for (k, c) in entry.chain(keyed) {
            site_calls.push((*f, k, c));
            if !targets.contains(&c.func) {
                targets.push(c.func);
            }
        }
    }
    (targets, site_calls)
}

/// Which probe targets are inlined and which called, and what the inlined
/// ones need from the monitors.
pub(super) struct Inlining {
    pub(super) needs: Needs,
    pub(super) inline: HashSet<FuncAddr>,
    pub(super) call_targets: Vec<FuncAddr>,
    /// Why each called target is not inlined.
    why: HashMap<FuncAddr, String>,
}

impl Inlining {
    pub(super) fn choose(store: &Store, cfg: &InlineConfig, targets: &[FuncAddr]) -> Inlining {
        let mut r = Inlining {
            needs: Needs::default(),
            inline: HashSet::default(),
            call_targets: Vec::new(),
            why: HashMap::default(),
        };
        for t in targets {
            let mut n = Needs::default();
            let res = if cfg.enabled {
                analyse(store, *t, cfg, 0, &mut Vec::new(), &mut n)
            } else {
                Err("inlining is off".to_string())
            };
            match res {
                Ok(()) => {
                    r.inline.insert(*t);
                    add_new(&mut r.needs.funcs, n.funcs);
                    add_new(&mut r.needs.memories, n.memories);
                    add_new(&mut r.needs.globals, n.globals);
                }
                Err(reason) => {
                    r.call_targets.push(*t);
                    r.why.insert(*t, reason);
                }
            }
        }
        r
    }
}

/// Append the items of `new` not in `to` yet.
fn add_new<T: PartialEq>(to: &mut Vec<T>, new: Vec<T>) {
    for x in new {
        if !to.contains(&x) {
            to.push(x);
        }
    }
}

/// How inlined probes that take `frame` use it (through intrinsics), by
/// (function, param).
pub(super) fn inlined_frame_uses(
    store: &Store,
    site_calls: &[SiteCall<'_>],
    inline: &HashSet<FuncAddr>,
) -> HashMap<(FuncAddr, u32), FrameUses> {
    let mut frame_uses = HashMap::default();
    for (_, _, c) in site_calls {
        let Some(p) = c.args.iter().position(|a| *a == ArgSource::Frame) else {
            continue;
        };
        if inline.contains(&c.func) && !frame_uses.contains_key(&(c.func, p as u32)) {
            if let Some(u) = crate::monitor::inline::frame_uses(store, c.func, p as u32) {
                frame_uses.insert((c.func, p as u32), u);
            }
        }
    }
    frame_uses
}

/// Per entry of `site_calls` (in their order: by function, then site key),
/// whether its site is counted through its block: each function's counted
/// sites are walked once alongside.
pub(super) fn folded(
    func_blocks: &HashMap<u32, FuncBlocks>,
    site_calls: &[SiteCall<'_>],
) -> Vec<bool> {
    let mut out = Vec::with_capacity(site_calls.len());
    let mut cur: Option<(u32, &[u64])> = None;
    for (f, k, _) in site_calls {
        if cur.is_none_or(|(g, _)| g != *f) {
            cur = Some((*f, func_blocks.get(f).map_or(&[][..], |fb| &fb.folded[..])));
        }
        let Some((_, keys)) = cur.as_mut() else {
            continue;
        };
        while keys.first().is_some_and(|x| x < k) {
            *keys = &keys[1..];
        }
        out.push(keys.first() == Some(k));
    }
    out
}

/// The inlining statistics: probes counted through blocks, inlined and called
/// (with the reasons). `folded`: per site call, [`folded`].
pub(super) fn stats(
    counters: &BlockCounters,
    folded: &[bool],
    site_calls: &[SiteCall<'_>],
    inlining: &Inlining,
) -> InlineStats {
    let mut stats = InlineStats {
        folded: counters.probes_folded,
        folded_sites: counters.sites_folded,
        blocks: counters.blocks.len() as u64,
        ..Default::default()
    };
    for ((_, _, c), counted) in site_calls.iter().zip(folded) {
        if *counted {
            continue;
        }
        if inlining.inline.contains(&c.func) {
            stats.inlined += 1;
        } else {
            stats.called += 1;
            *stats
                .reasons
                .entry(inlining.why[&c.func].clone())
                .or_default() += 1;
        }
    }
    stats
}

/// How many probe calls are inlined twice under a test of their operand
/// (`Body::probes`): those at sites not counted through their block
/// (`folded`, per site call), of an
/// inlined function without frame intrinsics that only tests that operand
/// against zero and uses a test's result as a value.
pub(super) fn specialized(
    mons: &MonView,
    cfg: &InlineConfig,
    added: &Added,
    folded: &[bool],
    site_calls: &[SiteCall<'_>],
) -> u64 {
    if !cfg.specialize || added.inline.is_empty() {
        return 0;
    }
    let mut zero_tested = ZeroTested::default();
    let mut n = 0;
    for ((_, _, c), counted) in site_calls.iter().zip(folded) {
        if *counted || !added.inline.contains(&c.func) {
            continue;
        }
        let frame = c.args.iter().position(|a| *a == ArgSource::Frame);
        if frame.is_some_and(|p| added.frame_uses.contains_key(&(c.func, p as u32))) {
            continue;
        }
        let code = |f| mons.code(f).map(|(i, idx)| (&*i.module, idx));
        let Some((p, _, data)) = zero_tested.of_code(code, c) else {
            continue;
        };
        // (A branch tally is woven without a branch instead.)
        let tally =
            (added.two_sided.get(&(c.func, p as u32))).is_some_and(|t| t.at(&c.args).is_some());
        if data && !tally {
            n += 1;
        }
    }
    n
}

/// Indices of everything added to the woven module.
pub(super) struct Added {
    pub(super) func_idx: HashMap<FuncAddr, u32>,
    pub(super) mem_idx: HashMap<MemAddr, u32>,
    pub(super) global_idx: HashMap<GlobalAddr, u32>,
    /// Monitor functions inlined at probe sites.
    pub(super) inline: HashSet<FuncAddr>,
    /// How inlined probe functions use their frame handle param, by (function, param).
    pub(super) frame_uses: HashMap<(FuncAddr, u32), FrameUses>,
    /// Type index of `[] -> results` for multi-value wrappers, by results.
    pub(super) result_types: HashMap<Vec<ValType>, u32>,
    /// Inlined probe functions that are a branch tally on a parameter
    /// ([`blockcount::TwoSided`]), by (function, parameter): a site woven
    /// without a branch (`Body::probes`).
    pub(super) two_sided: HashMap<(FuncAddr, u32), blockcount::TwoSided>,
}

/// The branch tallies among the inlined functions `inline`, by (function,
/// tested parameter).
fn two_sided(
    store: &Store,
    inline: &HashSet<FuncAddr>,
) -> HashMap<(FuncAddr, u32), blockcount::TwoSided> {
    let mut out = HashMap::default();
    for f in inline {
        let params = &store.func_type(*f).params;
        for p in 0..params.len() as u32 {
            if params[p as usize] == ValType::I32 {
                if let Some(t) = blockcount::TwoSided::of(store, *f, p) {
                    out.insert((*f, p), t);
                }
            }
        }
    }
    out
}

/// Where the additions land. Imports: functions (called probes, then
/// functions inlined code calls), memories and globals, each right after the
/// app's imports of its kind. Types: the added functions', the multi-value
/// block types, the fold functions', after the app's. Fold functions: after
/// the app's functions.
pub(super) struct Layout {
    pub(super) added: Added,
    pub(super) added_funcs: Vec<FuncAddr>,
    pub(super) needs: Needs,
    /// Types appended to the app's.
    pub(super) extra_types: Vec<FuncType>,
    pub(super) orig_types: u32,
    /// The fold functions, their type (`[] -> []`) and the first one's index.
    pub(super) fold_funcs: Vec<wasm_encoder::Function>,
    pub(super) fold_type: u32,
    pub(super) first_fold: u32,
    /// The app's memory and global imports (the added ones follow).
    pub(super) mem_imports: u32,
    pub(super) global_imports: u32,
}

impl Layout {
    pub(super) fn new(
        m: &ModuleInfo,
        store: &Store,
        inlining: Inlining,
        frame_uses: HashMap<(FuncAddr, u32), FrameUses>,
        counters: &BlockCounters,
        fold_export: bool,
    ) -> Layout {
        let Inlining {
            needs,
            inline,
            call_targets,
            ..
        } = inlining;
        let mut added_funcs: Vec<FuncAddr> = call_targets;
        for f in &needs.funcs {
            if !added_funcs.contains(f) {
                added_funcs.push(*f);
            }
        }
        let shift = added_funcs.len() as u32;
        let orig_types = m.types.len() as u32;
        let mut extra_types: Vec<FuncType> = added_funcs
            .iter()
            .map(|f| store.func_type(*f).clone())
            .collect();
        let mut result_types: HashMap<Vec<ValType>, u32> = HashMap::default();
        let mut want_results = |r: &[ValType], extra: &mut Vec<FuncType>| {
            if r.len() > 1 && !result_types.contains_key(r) {
                extra.push(FuncType::new([], r.to_vec()));
                result_types.insert(r.to_vec(), orig_types + extra.len() as u32 - 1);
            }
        };
        for t in &m.types {
            want_results(&t.results, &mut extra_types);
        }
        for f in &inline {
            want_results(&store.func_type(*f).results.clone(), &mut extra_types);
        }
        // The fold functions: `[] -> []`, after the app's functions.
        let fold_type = orig_types + extra_types.len() as u32;
        let first_fold = m.num_imported_funcs + shift + m.bodies.len() as u32;
        let folds = fold_export && !counters.blocks.is_empty();
        if folds {
            extra_types.push(FuncType::new([], []));
        }
        let mem_imports = m
            .imports
            .iter()
            .filter(|i| matches!(i.desc, crate::core::module::ImportDesc::Memory(_)))
            .count() as u32;
        let global_imports = m.num_imported_globals;
        let added = Added {
            func_idx: index_after(&added_funcs, m.num_imported_funcs),
            mem_idx: index_after(&needs.memories, mem_imports),
            global_idx: index_after(&needs.globals, global_imports),
            two_sided: two_sided(store, &inline),
            inline,
            frame_uses,
            result_types,
        };
        let mut fold_funcs = Vec::new();
        if folds {
            fold_funcs = blockcount::fold_functions(counters, &|a| added.mem_idx[&a], first_fold);
        }
        Layout {
            added,
            added_funcs,
            needs,
            extra_types,
            orig_types,
            fold_funcs,
            fold_type,
            first_fold,
            mem_imports,
            global_imports,
        }
    }

    /// The number of added function imports: defined functions shift by it.
    pub(super) fn shift(&self) -> u32 {
        self.added_funcs.len() as u32
    }
}

/// Indices `base`, `base + 1`, ... for `items`.
fn index_after<A: Copy + Eq + std::hash::Hash>(items: &[A], base: u32) -> HashMap<A, u32> {
    items
        .iter()
        .enumerate()
        .map(|(j, a)| (*a, base + j as u32))
        .collect()
}
