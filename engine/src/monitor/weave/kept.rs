//! What a lazy weave decided for a kept match, kept beside it in the cache
//! (`monitor::match_cache`), so that the next run of the same match weaves
//! without its plan: a restored match's plan has an entry per matched site
//! (atax + `coverage`: 10,011), and decoding it, then deciding from it
//! (inlining, the block counters and their check against every counted
//! site, statistics) and dropping the calls weaving never emits, was a
//! third of a repeated run's main-thread instructions.
//!
//! The entry ([`Kept`]): the probe functions the plan calls (inlining is
//! chosen from them again: it depends on the monitors' code alone), the
//! block counters, the statistics, and the plan without the calls counted
//! through their blocks (`Plan::drop_folded`: for `coverage` little is
//! left). Its key is the match's with this format's name and the inlining
//! configuration, so it is the weave of exactly these inputs. Kept only for
//! a weave whose bodies are deferred and that has no frame intrinsics (how
//! inlined code uses a frame handle is read from every site).
//!
//! An entry is checked as every cache entry is (length and digest), then
//! as a restored match is: every probe function exists and takes its
//! arguments, every target is a function of the store, and the counters
//! are sound for this module and store (`counters::sound`: numbering,
//! order, every increment inside a monitor memory). What the digest vouches
//! for beyond that (which sites are counted) changes counts, not safety.

use super::{Decided, Plan};
use crate::core::module::ModuleInfo;
use crate::core::types::FuncAddr;
use crate::exec::jit::cache::Entry;
use crate::monitor::blockcount::BlockCounters;
use crate::monitor::inline::{InlineConfig, InlineStats};
use crate::monitor::match_cache::{self, Reader, Writer};
use crate::runtime::store::Store;

/// The entry format's name: a new layout gets new keys.
const VERSION: &[u8] = b"wizeng weave decisions 1";

/// A lazy weave's decisions for a kept match, restored (`Kept::restore`).
pub struct Kept {
    /// The plan without the calls weaving never emits.
    plan: Plan,
    targets: Vec<FuncAddr>,
    counters: BlockCounters,
    stats: InlineStats,
}

impl Kept {
    /// The key of the decisions for the match kept under `matched`, woven
    /// with `cfg`.
    pub(crate) fn key(matched: &match_cache::Key, cfg: &InlineConfig) -> match_cache::Key {
        matched.beside(VERSION, format!("{cfg:?}").as_bytes())
    }

    /// The decisions kept under `key`, if an entry is there and passes the
    /// checks that need only the store (the rest: [`Kept::decided`]).
    pub(crate) fn restore(key: &match_cache::Key, store: &Store) -> Option<Kept> {
        match key.read() {
            Entry::Found(p) => decode(&p, store),
            Entry::Missing | Entry::Damaged => None,
        }
    }

    /// The plan and what was decided for the whole module, if the counters
    /// are sound for `m` and `store` (after the match is restored: counters
    /// may lie in memory matching grew).
    pub(super) fn decided(
        self,
        m: &ModuleInfo,
        store: &Store,
        cfg: &InlineConfig,
    ) -> Option<(Plan, Decided)> {
        let d = Decided::kept(m, store, cfg, self.targets, self.counters, self.stats)?;
        Some((self.plan, d))
    }
}

/// The entry for a weave of `plan` (its folded calls dropped) with `d`,
/// unless it cannot do without the plan (frame intrinsics).
pub(super) fn encode(plan: &Plan, d: &Decided) -> Option<Vec<u8>> {
    if !d.layout.added.frame_uses.is_empty() {
        return None;
    }
    let mut w = Writer::default();
    w.u64(d.targets.len() as u64);
    d.targets.iter().for_each(|t| w.u64(t.0 as u64));
    let s = &d.stats;
    for n in [
        s.inlined,
        s.called,
        s.folded,
        s.folded_sites,
        s.blocks,
        s.specialized,
    ] {
        w.u64(n);
    }
    w.u64(s.reasons.len() as u64);
    for (why, n) in &s.reasons {
        w.bytes(why.as_bytes());
        w.u64(*n);
    }
    match_cache::counters::encode_into(&d.counters, &mut w);
    w.bytes(&match_cache::encode_plan(plan).ok()?);
    Some(w.out)
}

fn decode(bytes: &[u8], store: &Store) -> Option<Kept> {
    let mut r = Reader::new(bytes);
    let targets = (0..r.count()?)
        .map(|_| {
            let f = r.u32()?;
            ((f as usize) < store.funcs.len()).then_some(FuncAddr(f))
        })
        .collect::<Option<Vec<_>>>()?;
    let mut n = [0u64; 6];
    for x in &mut n {
        *x = r.u64()?;
    }
    let [inlined, called, folded, folded_sites, blocks, specialized] = n;
    let mut stats = InlineStats {
        inlined,
        called,
        folded,
        folded_sites,
        blocks,
        specialized,
        ..InlineStats::default()
    };
    for _ in 0..r.count()? {
        let why = std::str::from_utf8(r.bytes()?).ok()?;
        stats.reasons.insert(why.to_string(), r.u64()?);
    }
    let counters = match_cache::counters::decode_from(&mut r)?;
    let plan = match_cache::decode_plan(r.bytes()?, store)?;
    r.done().then_some(Kept {
        plan,
        targets,
        counters,
        stats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::types::MemAddr;
    use crate::monitor::blockcount::{CountedBlock, CountedSite, Inc};

    /// Counters of every shape an entry holds: blocks with and without
    /// pcs, in two functions, increments of several shapes in two memories,
    /// addresses going up and down, a site with two increments.
    fn counters() -> BlockCounters {
        let inc = |mem, ea, width, delta, zext, set| Inc {
            mem: MemAddr(mem),
            ea,
            width,
            delta,
            zext,
            set,
        };
        let block = |func, start, pcs, global, sites: std::ops::Range<u32>| CountedBlock {
            func,
            start,
            pcs,
            global,
            sites,
        };
        let site = |key, incs| CountedSite { key, incs };
        BlockCounters {
            blocks: vec![
                block(3, 0, Some((0, 4)), 9, 0..2),
                block(3, 5, None, 10, 2..3),
                block(7, 1, Some((2, 2)), 11, 3..4),
            ],
            sites: vec![site(1, 0..1), site(6, 1..3), site(9, 3..4), site(2, 4..5)],
            incs: vec![
                inc(0, 64, 8, 1, false, false),
                inc(0, 72, 8, 1, false, false),
                inc(1, 8, 4, 3, true, false),
                inc(0, 16, 8, 1, false, true),
                inc(0, u32::MAX - 7, 2, 1 << 40, false, false),
            ],
            probes_folded: 6,
            sites_folded: 4,
        }
    }

    fn encoded(c: &BlockCounters) -> Vec<u8> {
        let mut w = Writer::default();
        match_cache::counters::encode_into(c, &mut w);
        w.out
    }

    #[test]
    fn kept_counters_decode_to_what_was_kept() {
        let c = counters();
        let bytes = encoded(&c);
        let mut r = Reader::new(&bytes);
        let back = match_cache::counters::decode_from(&mut r).expect("decodes");
        assert!(r.done());
        assert_eq!(encoded(&back), bytes);
        assert_eq!(format!("{:?}", back.blocks), format!("{:?}", c.blocks));
        assert_eq!(format!("{:?}", back.sites), format!("{:?}", c.sites));
        assert_eq!(format!("{:?}", back.incs), format!("{:?}", c.incs));
        assert_eq!((back.probes_folded, back.sites_folded), (6, 4));
        // Damaged: a prefix never decodes to all of it; a flipped bit never
        // panics.
        for n in 0..bytes.len() {
            let mut r = Reader::new(&bytes[..n]);
            assert!(
                match_cache::counters::decode_from(&mut r).is_none_or(|_| !r.done()),
                "prefix {n}"
            );
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x41;
            let _ = match_cache::counters::decode_from(&mut Reader::new(&b));
        }
    }
}
