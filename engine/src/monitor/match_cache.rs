//! The match cache: what matching an app against its monitors produced,
//! kept in the compiled-code cache's directory for the next run of the same
//! app with the same monitors.
//!
//! Matching runs the monitors' static predicates and static calls at every
//! site, and records which probe calls each site gets (the weave plan). When
//! nothing the monitors did before or during matching could see the world
//! outside the store (no host function was called: no WASI, no output, no
//! clock, no `wizeng` or `whamm:reflect` import; no GC object or exception was
//! allocated; no table, element or data segment changed), the monitors'
//! state after matching and the plan are a function of the modules' bytes
//! alone. Such a run stores them (`save`): the plan, the monitors'
//! counters (`MonitorStats`, static probe ids), every global's value, the
//! last frame serial, and each memory's size and the 4 KiB chunks that
//! matching changed. A later run of the same inputs, whose monitors were
//! instantiated the same way, restores that state instead of matching
//! (`restore`): observably the same, since the static calls would have
//! written exactly those bytes.
//!
//! The key (`key`) covers this engine build (the executable's size, time
//! and inode), every module instantiated in the store (its bytes, in order),
//! the monitors' names as given (they appear in messages), the store's shape
//! and the app's bytes. An entry is checked as every cache entry is (length
//! and SHA-256, `cache::read`), then decoded in full and checked against
//! the store (numbers of functions, memories, globals; memory sizes before
//! matching; every probe function exists) before anything is written: a
//! damaged entry is counted and the run matches as usual.

use std::path::PathBuf;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use sha2::{Digest, Sha256};
use smallvec::SmallVec;

use crate::core::probe::{ArgSource, CallShape, ProbeCall};
use crate::core::types::{FuncAddr, ValType};
use crate::exec::jit::cache::{self, Entry};
use crate::monitor::matcher::MonitorStats;
use crate::monitor::weave::{FuncPlan, Plan, SiteCalls, SiteStack};
use crate::runtime::store::Store;

/// The entry format's version: a new layout gets new keys.
const VERSION: &[u8] = b"wizeng match cache 3";
/// The granularity of a memory's recorded changes.
const CHUNK: usize = 4096;

/// Where a run's match result is (or would be) kept.
pub(crate) struct Key {
    dir: PathBuf,
    key: [u8; 32],
}

impl Key {
    /// The key of an entry kept beside this match's (what weaving derived
    /// from it): `what` names the entry's format, `extra` is everything
    /// else its contents depend on.
    pub(crate) fn beside(&self, what: &[u8], extra: &[u8]) -> Key {
        let mut h = Sha256::new();
        h.update(what);
        h.update(self.key);
        h.update((extra.len() as u64).to_le_bytes());
        h.update(extra);
        Key {
            dir: self.dir.clone(),
            key: h.finalize().into(),
        }
    }

    /// The entry under this key (checked as every cache entry is).
    pub(crate) fn read(&self) -> Entry {
        cache::read(&self.dir, &self.key)
    }

    /// Keep `payload` under this key (a cache that cannot be written keeps
    /// nothing: the next run derives it again).
    pub(crate) fn write(&self, payload: &[u8]) {
        let _ = cache::write(&self.dir, &self.key, payload);
    }
}

/// What happened to the match cache in a run (`--metrics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The match result was restored.
    Hit,
    /// Matched, and the result stored for the next run.
    Stored,
    /// Matched; the result cannot be kept (why).
    NotKept(&'static str),
    /// An entry was there but failed a check; matched afresh (and stored).
    Damaged,
}

impl Outcome {
    pub fn describe(&self) -> String {
        match self {
            Outcome::Hit => "hit (matching skipped)".into(),
            Outcome::Stored => "miss, result stored".into(),
            Outcome::NotKept(why) => format!("not used: {why}"),
            Outcome::Damaged => "damaged entry ignored, result stored".into(),
        }
    }
}

/// The cache key of matching `app` against the monitors `names` in `store`,
/// if the store has a cache directory and nothing so far called the host.
pub(crate) fn key(store: &Store, names: &[&str], app: &[u8]) -> Result<Key, &'static str> {
    let dir = store
        .config
        .code_cache
        .clone()
        .ok_or("no code cache (--cache=off)")?;
    if store.host_calls.get() != 0 {
        return Err("a monitor called the host while it started");
    }
    let mut h = Sha256::new();
    h.update(VERSION);
    h.update(env!("CARGO_PKG_VERSION"));
    h.update(crate::exec::exe_identity().ok_or("this executable's identity is unknown")?);
    let shape = [
        store.funcs.len(),
        store.memories.len(),
        store.tables.len(),
        store.globals.len(),
        store.instances.len(),
    ];
    for n in shape {
        h.update((n as u64).to_le_bytes());
    }
    for inst in &store.instances {
        h.update((inst.module.bytes.len() as u64).to_le_bytes());
        h.update(&inst.module.bytes);
    }
    for n in names {
        h.update((n.len() as u64).to_le_bytes());
        h.update(n.as_bytes());
    }
    h.update((app.len() as u64).to_le_bytes());
    h.update(app);
    Ok(Key {
        dir,
        key: h.finalize().into(),
    })
}

/// The store before matching: what tells whether matching stayed pure and
/// which memory chunks it changed.
pub(crate) struct Before {
    allocations: u64,
    memories: Vec<Vec<u8>>,
    tables: Vec<Vec<u64>>,
    segments: Vec<(Vec<bool>, Vec<usize>)>,
}

impl Before {
    pub(crate) fn capture(store: &Store) -> Before {
        Before {
            allocations: store.heap.allocations(),
            memories: store.memories.iter().map(|m| m.data().to_vec()).collect(),
            tables: store.tables.iter().map(|t| t.elems().to_vec()).collect(),
            segments: segments(store),
        }
    }

    /// Why matching's effects cannot be replayed from memory and globals
    /// alone, if they cannot.
    fn impure(&self, store: &Store) -> Option<&'static str> {
        if store.host_calls.get() != 0 {
            return Some("a static call called the host");
        }
        if store.heap.allocations() != self.allocations {
            return Some("a static call allocated a GC object or exception");
        }
        if store.memories.len() != self.memories.len()
            || store.tables.len() != self.tables.len()
            || store
                .tables
                .iter()
                .zip(&self.tables)
                .any(|(t, b)| t.elems() != &b[..])
        {
            return Some("a static call changed a table");
        }
        if segments(store) != self.segments {
            return Some("a static call dropped a data or element segment");
        }
        None
    }
}

/// Per instance: which data segments are dropped, and each element
/// segment's length (`elem.drop` empties it).
fn segments(store: &Store) -> Vec<(Vec<bool>, Vec<usize>)> {
    store
        .instances
        .iter()
        .map(|i| {
            let elems = i.elems.iter().map(|e| e.len()).collect();
            (i.data_dropped.clone(), elems)
        })
        .collect()
}

/// What a hit gives back besides the store's restored state.
pub(crate) struct Restored {
    /// The plan, unless the caller did without it ([`restore`]).
    pub plan: Option<Plan>,
    pub stats: MonitorStats,
    pub probe_ids: u32,
}

/// Keep the match result of this run (`before`: the store before
/// matching) under `key`.
pub(crate) fn save(
    key: &Key,
    before: &Before,
    store: &Store,
    plan: &Plan,
    stats: &MonitorStats,
    probe_ids: u32,
) -> Result<(), &'static str> {
    let payload = encode(before, store, plan, stats, probe_ids)?;
    cache::write(&key.dir, &key.key, &payload).map_err(|_| "the cache directory is not writable")
}

/// The entry of this run's match result, if matching stayed pure.
fn encode(
    before: &Before,
    store: &Store,
    plan: &Plan,
    stats: &MonitorStats,
    probe_ids: u32,
) -> Result<Vec<u8>, &'static str> {
    if let Some(why) = before.impure(store) {
        return Err(why);
    }
    let mut w = Writer::default();
    w.shape(store);
    for (m, b) in store.memories.iter().zip(&before.memories) {
        w.u64(b.len() as u64);
        w.memory(m.data(), b);
    }
    for g in &store.globals {
        w.u64(g.value);
        w.u64(g.hi);
    }
    w.u64(store.last_serial as u64);
    w.u64(stats.sites);
    w.u64(stats.calls);
    w.u64(stats.direct_sites);
    w.u64(probe_ids as u64);
    PlanWriter::default().plan(plan, &mut w)?;
    Ok(w.out)
}

/// Restore the match result kept under `key` into `store` (its monitors
/// instantiated as in the run that kept it). `Ok(None)`: no entry;
/// `Err(())`: an entry that failed a check (nothing was changed). Without
/// `with_plan` the plan (the entry's last part, most of it) is not decoded:
/// for a caller that has what it needs of it from elsewhere (`weave::Kept`).
pub(crate) fn restore(
    key: &Key,
    store: &mut Store,
    with_plan: bool,
) -> Result<Option<Restored>, ()> {
    let payload = match cache::read(&key.dir, &key.key) {
        Entry::Missing => return Ok(None),
        Entry::Damaged => return Err(()),
        Entry::Found(p) => p,
    };
    let image = Image::decode(&payload, store, with_plan).ok_or(())?;
    image.apply(store)?;
    Ok(Some(image.restored))
}

/// A decoded entry, checked against the store, not applied yet.
struct Image<'a> {
    /// Per memory: its size after matching and its changed chunks.
    memories: Vec<(usize, Vec<(usize, &'a [u8])>)>,
    globals: Vec<(u64, u64)>,
    last_serial: u32,
    restored: Restored,
}

impl<'a> Image<'a> {
    fn decode(bytes: &'a [u8], store: &Store, with_plan: bool) -> Option<Image<'a>> {
        let mut r = Reader { b: bytes, at: 0 };
        r.check_shape(store)?;
        let mut memories = Vec::with_capacity(store.memories.len());
        for m in &store.memories {
            if r.usize()? != m.data().len() {
                return None;
            }
            let max = m.max_pages.saturating_mul(1 << m.ty().page_size_log2);
            memories.push(r.memory(max)?);
        }
        let globals = (0..store.globals.len())
            .map(|_| Some((r.u64()?, r.u64()?)))
            .collect::<Option<Vec<_>>>()?;
        let last_serial = u32::try_from(r.u64()?).ok()?;
        let stats = MonitorStats {
            sites: r.u64()?,
            calls: r.u64()?,
            direct_sites: r.u64()?,
        };
        let probe_ids = u32::try_from(r.u64()?).ok()?;
        let plan = match with_plan {
            true => Some(PlanReader::default().plan(&mut r, store)?),
            false => {
                r.at = bytes.len();
                None
            }
        };
        (r.at == bytes.len()).then_some(Image {
            memories,
            globals,
            last_serial,
            restored: Restored {
                plan,
                stats,
                probe_ids,
            },
        })
    }

    /// Write the state into the store. Memories grow first, all or none.
    fn apply(&self, store: &mut Store) -> Result<(), ()> {
        for (m, (len, _)) in store.memories.iter().zip(&self.memories) {
            let page = 1usize << m.ty().page_size_log2;
            let pages = *len as u64 >> m.ty().page_size_log2;
            if len % page != 0 || *len < m.data().len() || pages > m.max_pages {
                return Err(());
            }
        }
        for (m, (len, chunks)) in store.memories.iter_mut().zip(&self.memories) {
            let grow = (*len - m.data().len()) as u64 >> m.ty().page_size_log2;
            if grow > 0 && m.grow(grow) < 0 {
                // Reserved address space ran out: nothing sensible is left
                // to do but fail the load.
                return Err(());
            }
            let data = m.data_mut();
            for (at, bytes) in chunks {
                data[*at..*at + bytes.len()].copy_from_slice(bytes);
            }
        }
        for (g, (v, hi)) in store.globals.iter_mut().zip(&self.globals) {
            g.value = *v;
            g.hi = *hi;
        }
        store.last_serial = self.last_serial;
        Ok(())
    }
}

/// `plan` alone as bytes, for an entry beside the match's (`weave::Kept`).
pub(crate) fn encode_plan(plan: &Plan) -> Result<Vec<u8>, &'static str> {
    let mut w = Writer::default();
    PlanWriter::default().plan(plan, &mut w)?;
    Ok(w.out)
}

/// A plan [`encode_plan`] wrote, checked against `store` as a restored
/// match's plan is (every probe function exists and takes its arguments).
pub(crate) fn decode_plan(bytes: &[u8], store: &Store) -> Option<Plan> {
    let mut r = Reader { b: bytes, at: 0 };
    let plan = PlanReader::default().plan(&mut r, store)?;
    (r.at == bytes.len()).then_some(plan)
}

/// The block counters weaving planned for a kept match (`weave::weave_lazy_with`):
/// an entry of their own beside the match's, keyed by it and by the inlining
/// configuration (which decides whether and where counters go). Planning
/// them walks every probed function; restoring them is a decode.
pub(crate) mod counters {
    use super::{cache, Entry, Key, Reader, Writer};
    use crate::core::types::MemAddr;
    use crate::monitor::blockcount::{BlockCounters, CountedBlock, CountedSite, Inc};
    use crate::monitor::inline::InlineConfig;
    use sha2::{Digest, Sha256};

    const VERSION: &[u8] = b"wizeng block counters 2";

    /// The key of the counters woven with the match kept under `key`.
    pub(crate) fn key(key: &Key, cfg: &InlineConfig) -> Key {
        let mut h = Sha256::new();
        h.update(VERSION);
        h.update(key.key);
        h.update(format!("{cfg:?}").as_bytes());
        Key {
            dir: key.dir.clone(),
            key: h.finalize().into(),
        }
    }

    /// Keep `c` under `key` (a cache that cannot be written keeps nothing:
    /// the next run plans them again).
    pub(crate) fn save(key: &Key, c: &BlockCounters) {
        let _ = cache::write(&key.dir, &key.key, &encode(c));
    }

    /// The counters kept under `key`, if an entry is there and decodes
    /// (whether they fit the plan is the weaver's check).
    pub(crate) fn restore(key: &Key) -> Option<BlockCounters> {
        match cache::read(&key.dir, &key.key) {
            Entry::Found(p) => decode(&p),
            Entry::Missing | Entry::Damaged => None,
        }
    }

    pub(super) fn encode(c: &BlockCounters) -> Vec<u8> {
        let mut w = Writer::default();
        encode_into(c, &mut w);
        w.out
    }

    pub(super) fn decode(bytes: &[u8]) -> Option<BlockCounters> {
        let mut r = Reader::new(bytes);
        let c = decode_from(&mut r)?;
        r.done().then_some(c)
    }

    /// An increment's memory, width, constant and kinds (`zext`, `set`).
    type Shape = (MemAddr, u8, u64, u8);

    fn shape_of(i: &Inc) -> Shape {
        (i.mem, i.width, i.delta, i.kind())
    }

    /// `c` in a dense form: the increments' shapes once, then each block's
    /// function, event, pcs and global (as the step from the last block's),
    /// each site's key (the step from the last site's) and each increment's
    /// shape number and address (the step from the last increment's).
    pub(crate) fn encode_into(c: &BlockCounters, w: &mut Writer) {
        w.u64(c.probes_folded);
        w.u64(c.sites_folded);
        let mut shapes: Vec<Shape> = Vec::new();
        for i in c
            .blocks
            .iter()
            .flat_map(|b| c.sites_of(b).flat_map(|s| s.1))
        {
            if !shapes.contains(&shape_of(i)) {
                shapes.push(shape_of(i));
            }
        }
        w.u64(shapes.len() as u64);
        for (mem, width, delta, flags) in &shapes {
            w.u64(mem.0 as u64);
            w.u64(*width as u64);
            w.u64(*delta);
            w.u64(*flags as u64);
        }
        w.u64(c.blocks.len() as u64);
        let (mut global, mut key, mut ea) = (0u32, 0u64, 0u32);
        for b in &c.blocks {
            w.u64(b.func as u64);
            w.u64(b.start as u64);
            match b.pcs {
                None => w.u64(0),
                Some((first, last)) => {
                    w.u64(1);
                    w.u64(first as u64);
                    w.u64(last as u64);
                }
            }
            w.u64(b.global.wrapping_sub(global) as u64);
            global = b.global;
            w.u64(b.sites.len() as u64);
            for (k, incs) in c.sites_of(b) {
                w.u64(k.wrapping_sub(key));
                key = k;
                w.u64(incs.len() as u64);
                for i in incs {
                    let n = shapes.iter().position(|s| *s == shape_of(i));
                    w.u64(n.expect("collected above") as u64);
                    let step = i.ea.wrapping_sub(ea) as i32;
                    w.u64(((step << 1) ^ (step >> 31)) as u32 as u64);
                    ea = i.ea;
                }
            }
        }
    }

    /// The counters [`encode_into`] wrote (sites and increments in block
    /// order, every one in a block).
    pub(crate) fn decode_from(r: &mut Reader<'_>) -> Option<BlockCounters> {
        let probes_folded = r.u64()?;
        let sites_folded = r.u64()?;
        let shapes = (0..r.count()?)
            .map(|_| {
                let mem = MemAddr(r.u32()?);
                let width = u8::try_from(r.u64()?).ok()?;
                let delta = r.u64()?;
                let flags = u8::try_from(r.u64()?).ok().filter(|f| *f < 4)?;
                Some((mem, width, delta, flags))
            })
            .collect::<Option<Vec<Shape>>>()?;
        let n = r.count()?;
        let mut blocks = Vec::with_capacity(n);
        let cap = (sites_folded as usize).min(r.left());
        let (mut sites, mut incs) = (Vec::with_capacity(cap), Vec::with_capacity(cap));
        let (mut global, mut key, mut ea) = (0u32, 0u64, 0u32);
        for _ in 0..n {
            let func = r.u32()?;
            let start = r.usize()?;
            let pcs = match r.u64()? {
                0 => None,
                1 => Some((r.u32()?, r.u32()?)),
                _ => return None,
            };
            global = global.wrapping_add(r.u32()?);
            let first_site = sites.len() as u32;
            for _ in 0..r.count()? {
                key = key.wrapping_add(r.u64()?);
                let first_inc = incs.len() as u32;
                for _ in 0..r.count()? {
                    let (mem, width, delta, flags) = *shapes.get(r.usize()?)?;
                    let z = r.u32()?;
                    ea = ea.wrapping_add(((z >> 1) as i32 ^ -((z & 1) as i32)) as u32);
                    incs.push(Inc::of_kind(mem, ea, width, delta, flags));
                }
                sites.push(CountedSite {
                    key,
                    incs: first_inc..incs.len() as u32,
                });
            }
            blocks.push(CountedBlock {
                func,
                start,
                pcs,
                global,
                sites: first_site..sites.len() as u32,
            });
        }
        Some(BlockCounters {
            blocks,
            sites,
            incs,
            probes_folded,
            sites_folded,
        })
    }
}

/// Little-endian LEB128 encoding of the entry.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) out: Vec<u8>,
}

impl Writer {
    pub(crate) fn u64(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.out.push(b);
                return;
            }
            self.out.push(b | 0x80);
        }
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.out.extend_from_slice(b);
    }

    fn shape(&mut self, store: &Store) {
        for n in [
            store.funcs.len(),
            store.memories.len(),
            store.tables.len(),
            store.globals.len(),
        ] {
            self.u64(n as u64);
        }
    }

    /// A memory after matching (`now`) as its length and the chunks that
    /// differ from `before` (all of a grown part that is not zero).
    fn memory(&mut self, now: &[u8], before: &[u8]) {
        self.u64(now.len() as u64);
        let changed: Vec<usize> = (0..now.len().div_ceil(CHUNK))
            .filter(|c| {
                let r = c * CHUNK..(c * CHUNK + CHUNK).min(now.len());
                match before.get(r.clone()) {
                    Some(b) => b != &now[r],
                    None => now[r].iter().any(|&x| x != 0),
                }
            })
            .collect();
        self.u64(changed.len() as u64);
        for c in changed {
            let r = c * CHUNK..(c * CHUNK + CHUNK).min(now.len());
            self.u64(c as u64);
            self.bytes(&now[r]);
        }
    }
}

pub(crate) struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b, at: 0 }
    }

    /// Whether every byte was read.
    pub(crate) fn done(&self) -> bool {
        self.at == self.b.len()
    }

    /// How many bytes are left.
    pub(crate) fn left(&self) -> usize {
        self.b.len() - self.at
    }

    /// (Most numbers of an entry take one byte: that case first.)
    #[inline]
    pub(crate) fn u64(&mut self) -> Option<u64> {
        let b = *self.b.get(self.at)?;
        self.at += 1;
        match b & 0x80 {
            0 => Some(b as u64),
            _ => self.u64_rest(b),
        }
    }

    /// The rest of a number whose `first` byte has the continuation bit
    /// (ten bytes at most in all).
    fn u64_rest(&mut self, first: u8) -> Option<u64> {
        let mut v = (first & 0x7f) as u64;
        for shift in (7..64).step_by(7) {
            let b = *self.b.get(self.at)?;
            self.at += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.u64()?).ok()
    }

    pub(crate) fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    /// A count of items that each take at least one byte (bounded by what
    /// is left, so a damaged count cannot ask for a huge allocation).
    pub(crate) fn count(&mut self) -> Option<usize> {
        let n = self.usize()?;
        (n <= self.b.len() - self.at).then_some(n)
    }

    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.count()?;
        let b = &self.b[self.at..self.at + n];
        self.at += n;
        Some(b)
    }

    fn check_shape(&mut self, store: &Store) -> Option<()> {
        for n in [
            store.funcs.len(),
            store.memories.len(),
            store.tables.len(),
            store.globals.len(),
        ] {
            (self.usize()? == n).then_some(())?;
        }
        Some(())
    }

    /// A memory's length after matching (at most `max` bytes) and its
    /// changed chunks, each within that length.
    fn memory(&mut self, max: u64) -> Option<(usize, Vec<(usize, &'a [u8])>)> {
        let len = self.usize()?;
        if len as u64 > max {
            return None;
        }
        let n = self.count()?;
        let mut chunks = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.usize()?.checked_mul(CHUNK)?;
            let bytes = self.bytes()?;
            (at.checked_add(bytes.len())? <= len).then_some(())?;
            chunks.push((at, bytes));
        }
        Some((len, chunks))
    }
}

/// Encodes a plan; the argument-type lists and origins that every site of
/// a rule shares are written once, and referred to by index.
#[derive(Default)]
struct PlanWriter {
    types: HashMap<*const [ValType], u32>,
    type_lists: Vec<Arc<[ValType]>>,
    origins: HashMap<*const u8, u32>,
    origin_list: Vec<Arc<str>>,
}

impl PlanWriter {
    fn plan(mut self, plan: &Plan, w: &mut Writer) -> Result<(), &'static str> {
        let mut body = Writer::default();
        let mut fids: Vec<u32> = plan.funcs.keys().copied().collect();
        fids.sort_unstable();
        body.u64(fids.len() as u64);
        for f in fids {
            let fp = &plan.funcs[&f];
            body.u64(f as u64);
            self.calls(&fp.entry, &mut body);
            for sites in [&fp.before, &fp.after] {
                let all: Vec<(&u32, &[ProbeCall])> = sites.iter().collect();
                body.u64(all.len() as u64);
                for (pc, calls) in all {
                    body.u64(*pc as u64);
                    self.calls(calls, &mut body);
                }
            }
            let mut stacks: Vec<(&(u32, bool), &SiteStack)> = fp.stacks.iter().collect();
            stacks.sort_unstable_by_key(|(k, _)| **k);
            body.u64(stacks.len() as u64);
            for ((pc, after), s) in stacks {
                body.u64(*pc as u64);
                body.u64(*after as u64);
                self.stack(s, &mut body)?;
            }
            // (0: not known.)
            body.u64(fp.blocks_bound.map_or(0, |b| b as u64 + 1));
        }
        w.u64(self.type_lists.len() as u64);
        for l in &self.type_lists {
            w.u64(l.len() as u64);
            l.iter().for_each(|t| w.u64(val_code(*t)));
        }
        w.u64(self.origin_list.len() as u64);
        for o in &self.origin_list {
            w.bytes(o.as_bytes());
        }
        w.out.extend_from_slice(&body.out);
        w.u64(plan.eager_funcs.len() as u64);
        plan.eager_funcs.iter().for_each(|f| w.u64(*f as u64));
        Ok(())
    }

    fn types(&mut self, t: &Arc<[ValType]>) -> u64 {
        let n = self.type_lists.len() as u32;
        *self.types.entry(Arc::as_ptr(t)).or_insert_with(|| {
            self.type_lists.push(t.clone());
            n
        }) as u64
    }

    fn calls(&mut self, calls: &[ProbeCall], w: &mut Writer) {
        w.u64(calls.len() as u64);
        for c in calls {
            w.u64(c.func.0 as u64);
            let t = self.types(&c.shape.types);
            w.u64(t);
            w.u64(c.args.len() as u64);
            for a in &c.args {
                let (tag, v) = match *a {
                    ArgSource::Const(v) => (0, v),
                    ArgSource::Operand(i) => (1, i as u64),
                    ArgSource::Local(i) => (2, i as u64),
                    ArgSource::Frame => (3, 0),
                    ArgSource::OpaqueOperand(i) => (4, i as u64),
                    ArgSource::OpaqueLocal(i) => (5, i as u64),
                };
                w.u64(tag);
                w.u64(v);
            }
            let n = self.origin_list.len() as u32;
            let o = *self.origins.entry(c.origin().as_ptr()).or_insert_with(|| {
                self.origin_list.push(c.origin().clone());
                n
            });
            w.u64(o as u64);
            match c.operand_types() {
                None => w.u64(0),
                Some(t) => {
                    let t = self.types(t);
                    w.u64(t + 1);
                }
            }
            w.u64(c.removable().map_or(0, |r| r as u64 + 1));
        }
    }

    fn stack(&mut self, s: &SiteStack, w: &mut Writer) -> Result<(), &'static str> {
        w.u64(s.types.len() as u64);
        s.types.iter().for_each(|t| w.u64(val_code(*t)));
        w.u64(s.declared.len() as u64);
        for t in &s.declared {
            use wasm_encoder::Encode;
            let t = wasm_encoder::ValType::try_from(*t)
                .map_err(|_| "an operand type has no module type index")?;
            let mut b = Vec::new();
            t.encode(&mut b);
            w.bytes(&b);
        }
        w.u64(s.height as u64);
        w.u64(s.accessible as u64);
        Ok(())
    }
}

#[derive(Default)]
struct PlanReader {
    type_lists: Vec<Arc<[ValType]>>,
    origins: Vec<Arc<str>>,
    /// The calls' shapes, by (type list, origin): one per rule.
    shapes: std::cell::RefCell<HashMap<(usize, usize), Arc<CallShape>>>,
    /// The last call's function and type list, once checked against the
    /// store (consecutive sites mostly call the same function), and the
    /// last shape looked up with its (type list, origin).
    last_checked: std::cell::Cell<Option<(u32, usize)>>,
    last_shape: std::cell::RefCell<Option<((usize, usize), Arc<CallShape>)>>,
}

impl PlanReader {
    fn plan(mut self, r: &mut Reader<'_>, store: &Store) -> Option<Plan> {
        for _ in 0..r.count()? {
            let n = r.count()?;
            let l = (0..n)
                .map(|_| val_type(r.u64()?))
                .collect::<Option<Arc<[ValType]>>>()?;
            self.type_lists.push(l);
        }
        for _ in 0..r.count()? {
            let s = std::str::from_utf8(r.bytes()?).ok()?;
            self.origins.push(s.into());
        }
        let mut plan = Plan::default();
        let mut last = None;
        for _ in 0..r.count()? {
            let f = r.u32()?;
            // Strictly ascending: no function twice.
            (last < Some(f)).then_some(())?;
            last = Some(f);
            let mut fp = FuncPlan {
                entry: self.calls::<Vec<_>>(r, store)?,
                ..FuncPlan::default()
            };
            fp.before = self.sites(r, store)?;
            fp.after = self.sites(r, store)?;
            for _ in 0..r.count()? {
                let pc = r.u32()?;
                let after = match r.u64()? {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                let s = self.stack(r)?;
                fp.stacks.insert((pc, after), s);
            }
            fp.blocks_bound = match r.u64()? {
                0 => None,
                b => Some(u32::try_from(b - 1).ok()?),
            };
            plan.funcs.insert(f, fp);
        }
        let mut last = None;
        for _ in 0..r.count()? {
            let f = r.u32()?;
            (last < Some(f)).then_some(())?;
            last = Some(f);
            plan.eager_funcs.push(f);
        }
        Some(plan)
    }

    fn sites(&self, r: &mut Reader<'_>, store: &Store) -> Option<SiteCalls> {
        let n = r.count()?;
        let mut pcs = Vec::with_capacity(n);
        let mut calls = Vec::with_capacity(n);
        for _ in 0..n {
            let pc = r.u32()?;
            (pcs.last() < Some(&pc)).then_some(())?;
            pcs.push(pc);
            calls.push(self.calls::<SmallVec<_>>(r, store)?);
        }
        Some(SiteCalls::from_sorted(pcs, calls))
    }

    fn calls<T: Default + Extend<ProbeCall>>(
        &self,
        r: &mut Reader<'_>,
        store: &Store,
    ) -> Option<T> {
        let n = r.count()?;
        let mut out = T::default();
        for _ in 0..n {
            let func = r.u32()?;
            let ti = r.usize()?;
            let types = self.type_lists.get(ti)?;
            // The probe function exists and takes these arguments.
            if self.last_checked.get() != Some((func, ti)) {
                let f = store.funcs.get(func as usize)?;
                (f.ty.params[..] == types[..]).then_some(())?;
                self.last_checked.set(Some((func, ti)));
            }
            let nargs = r.count()?;
            (nargs == types.len()).then_some(())?;
            let mut args = crate::core::probe::ProbeArgs::with_capacity(nargs);
            for _ in 0..nargs {
                let (tag, v) = (r.u64()?, r.u64()?);
                let i = || u32::try_from(v).ok();
                args.push(match tag {
                    0 => ArgSource::Const(v),
                    1 => ArgSource::Operand(i()?),
                    2 => ArgSource::Local(i()?),
                    3 => ArgSource::Frame,
                    4 => ArgSource::OpaqueOperand(i()?),
                    5 => ArgSource::OpaqueLocal(i()?),
                    _ => return None,
                });
            }
            let oi = r.usize()?;
            let shape = self.shape(ti, oi)?;
            let operand_types = match r.usize()? {
                0 => None,
                k => Some(self.type_lists.get(k - 1)?.clone()),
            };
            let removable = match r.u64()? {
                0 => None,
                k => Some(u32::try_from(k - 1).ok()?),
            };
            let mut call = ProbeCall::new(FuncAddr(func), shape, args, operand_types);
            call.set_removable(removable);
            out.extend([call]);
        }
        Some(out)
    }

    /// The shared shape of calls with type list `ti` and origin `oi`.
    fn shape(&self, ti: usize, oi: usize) -> Option<Arc<CallShape>> {
        let mut last = self.last_shape.borrow_mut();
        if let Some((k, s)) = &*last {
            if *k == (ti, oi) {
                return Some(s.clone());
            }
        }
        let (types, origin) = (self.type_lists.get(ti)?, self.origins.get(oi)?);
        let shape = (self.shapes.borrow_mut().entry((ti, oi)))
            .or_insert_with(|| {
                Arc::new(CallShape {
                    types: types.clone(),
                    origin: origin.clone(),
                })
            })
            .clone();
        *last = Some(((ti, oi), shape.clone()));
        Some(shape)
    }

    fn stack(&self, r: &mut Reader<'_>) -> Option<SiteStack> {
        let n = r.count()?;
        let types = (0..n)
            .map(|_| val_type(r.u64()?))
            .collect::<Option<Vec<_>>>()?;
        let n = r.count()?;
        let mut declared = Vec::with_capacity(n);
        for _ in 0..n {
            let b = r.bytes()?;
            let mut br = wasmparser::BinaryReader::new(b, 0);
            declared.push(br.read::<wasmparser::ValType>().ok()?);
            br.eof().then_some(())?;
        }
        Some(SiteStack {
            types,
            declared,
            height: r.u32()?,
            accessible: r.u32()?,
        })
    }
}

fn val_code(t: ValType) -> u64 {
    match t {
        ValType::I32 => 0,
        ValType::I64 => 1,
        ValType::F32 => 2,
        ValType::F64 => 3,
        ValType::V128 => 4,
        ValType::FuncRef => 5,
        ValType::ExternRef => 6,
        ValType::ExnRef => 7,
    }
}

fn val_type(c: u64) -> Option<ValType> {
    Some(match c {
        0 => ValType::I32,
        1 => ValType::I64,
        2 => ValType::F32,
        3 => ValType::F64,
        4 => ValType::V128,
        5 => ValType::FuncRef,
        6 => ValType::ExternRef,
        7 => ValType::ExnRef,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::types::InstanceId;
    use crate::runtime::store::{Config, Linker};

    /// A monitor with a memory, a mutable global and two probe functions,
    /// instantiated in a fresh store.
    fn monitor() -> (Store, InstanceId) {
        let wat = r#"(module
            (memory 1 4)
            (global (export "g") (mut i64) (i64.const 7))
            (func (export "p") (param i32 i64))
            (func (export "q") (param externref)))"#;
        let bytes = wat::parse_str(wat).unwrap();
        let mut store = Store::new(Config::default());
        let module = Arc::new(crate::Module::new(&bytes).unwrap());
        let id = Linker::new().instantiate(&mut store, &module).unwrap();
        (store, id)
    }

    fn call(store: &Store, id: InstanceId, name: &str, args: Vec<ArgSource>) -> ProbeCall {
        let func = store.export_func(id, name).unwrap();
        let shape = Arc::new(CallShape {
            types: store.func_type(func).params.to_vec().into(),
            origin: Arc::from(format!("monitor m: `{name}`")),
        });
        ProbeCall::new(func, shape, args.into(), None)
    }

    /// A plan using every kind of argument, site and operand stack.
    fn plan(store: &Store, id: InstanceId) -> Plan {
        let p = call(
            store,
            id,
            "p",
            vec![ArgSource::Local(3), ArgSource::Const(1 << 40)],
        );
        let mut q = call(store, id, "q", vec![ArgSource::OpaqueOperand(0)]);
        q.extra = Some(Box::new(crate::core::probe::CallExtra {
            operand_types: Some(vec![ValType::ExternRef, ValType::I32].into()),
            removable: Some(5),
        }));
        let mut plan = Plan::default();
        let mut f = FuncPlan {
            entry: vec![p.clone()],
            ..FuncPlan::default()
        };
        f.before = SiteCalls::from_sorted(
            vec![3, 9],
            vec![
                SmallVec::from_vec(vec![p.clone(), q.clone()]),
                SmallVec::from_vec(vec![q.clone()]),
            ],
        );
        f.after = SiteCalls::from_sorted(vec![4], vec![SmallVec::from_vec(vec![p.clone()])]);
        let nullable = wasmparser::RefType::new(
            true,
            wasmparser::HeapType::Concrete(wasmparser::UnpackedIndex::Module(2)),
        )
        .unwrap();
        f.stacks.insert(
            (9, false),
            SiteStack {
                types: vec![ValType::FuncRef, ValType::I32],
                declared: vec![wasmparser::ValType::Ref(nullable), wasmparser::ValType::I32],
                height: 4,
                accessible: 2,
            },
        );
        f.blocks_bound = Some(3);
        plan.funcs.insert(7, f);
        plan.funcs.insert(2, FuncPlan::default());
        plan.eager_funcs = vec![2, 11];
        plan
    }

    fn stats() -> MonitorStats {
        MonitorStats {
            sites: 3,
            calls: 5,
            direct_sites: 1,
        }
    }

    /// Matching's effects in `store`: two chunks written, a page grown and
    /// written, the global set, a frame serial handed out.
    fn mutate(store: &mut Store) {
        let m = &mut store.memories[0];
        m.data_mut()[5] = 1;
        m.data_mut()[3 * CHUNK + 7] = 2;
        m.grow(1);
        m.data_mut()[65536 + 100] = 3;
        store.globals[0].value = 42;
        store.last_serial = 9;
    }

    fn entry() -> (Vec<u8>, Store) {
        let (mut store, id) = monitor();
        let before = Before::capture(&store);
        mutate(&mut store);
        let plan = plan(&store, id);
        let bytes = encode(&before, &store, &plan, &stats(), 4).unwrap();
        (bytes, store)
    }

    #[test]
    fn a_restored_match_is_the_stored_one() {
        let (bytes, matched) = entry();
        let (mut fresh, _) = monitor();
        let image = Image::decode(&bytes, &fresh, true).expect("decodes");
        image.apply(&mut fresh).unwrap();
        assert_eq!(fresh.memories[0].data(), matched.memories[0].data());
        assert_eq!(fresh.globals[0].value, 42);
        assert_eq!(fresh.last_serial, 9);
        let r = image.restored;
        let plan = r.plan.expect("decoded with the plan");
        assert_eq!(
            (r.stats.sites, r.stats.calls, r.stats.direct_sites),
            (3, 5, 1)
        );
        assert_eq!(r.probe_ids, 4);
        // The plan encodes back to the same bytes (every field is written).
        let again = encode(&Before::capture(&fresh), &fresh, &plan, &r.stats, 4).unwrap();
        let plan_of = |b: &[u8]| b[b.len() - plan_len(&bytes)..].to_vec();
        assert_eq!(plan_of(&again), plan_of(&bytes));
        assert_eq!(plan.funcs[&7].before.get(&3).unwrap().len(), 2);
        assert_eq!(plan.eager_funcs, [2, 11]);
        let bounds = |f| plan.funcs[&f].blocks_bound;
        assert_eq!((bounds(7), bounds(2)), (Some(3), None));
        // Without the plan: the same state, the plan's bytes not read.
        let (mut bare, _) = monitor();
        let image = Image::decode(&bytes, &bare, false).expect("decodes");
        assert!(image.restored.plan.is_none());
        image.apply(&mut bare).unwrap();
        assert_eq!(bare.memories[0].data(), matched.memories[0].data());
        // A plan alone encodes and decodes the same way.
        let alone = encode_plan(&plan).unwrap();
        assert_eq!(alone, plan_of(&bytes));
        let back = decode_plan(&alone, &bare).expect("decodes");
        assert_eq!(encode_plan(&back).unwrap(), alone);
        assert!(decode_plan(&alone[..alone.len() - 1], &bare).is_none());
    }

    /// The length of the plan's encoding at the end of an entry.
    fn plan_len(entry: &[u8]) -> usize {
        let (store, id) = monitor();
        let mut w = Writer::default();
        PlanWriter::default()
            .plan(&plan(&store, id), &mut w)
            .unwrap();
        assert!(entry.ends_with(&w.out));
        w.out.len()
    }

    #[test]
    fn damaged_entries_are_refused_without_panicking() {
        let (bytes, _) = entry();
        let (fresh, _) = monitor();
        for n in 0..bytes.len() {
            assert!(
                Image::decode(&bytes[..n], &fresh, true).is_none(),
                "prefix {n}"
            );
        }
        for i in 0..bytes.len() {
            for bit in [0x01, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                let _ = Image::decode(&b, &fresh, true);
            }
        }
    }

    #[test]
    fn another_store_shape_is_refused() {
        let (bytes, _) = entry();
        let (mut other, _) = monitor();
        let module = other.instances[0].module.clone();
        Linker::new().instantiate(&mut other, &module).unwrap();
        assert!(Image::decode(&bytes, &other, true).is_none());
    }

    /// Block counters of every shape an entry can hold.
    fn counters() -> crate::monitor::blockcount::BlockCounters {
        use crate::core::types::MemAddr;
        use crate::monitor::blockcount::{BlockCounters, CountedBlock, CountedSite, Inc};
        let inc = |ea, width, zext, set| Inc {
            mem: MemAddr(0),
            ea,
            width,
            delta: if set { 1 } else { 3 },
            zext,
            set,
        };
        let incs = vec![
            inc(0, 8, false, false),
            inc(8, 4, true, false),
            inc(16, 1, false, true),
            inc(24, 2, false, false),
        ];
        let site = |key, incs| CountedSite { key, incs };
        let sites = vec![site(0, 0..1), site(6, 1..3), site(19, 3..4)];
        let blocks = vec![
            CountedBlock {
                func: 7,
                start: 0,
                pcs: None,
                global: 4,
                sites: 0..1,
            },
            CountedBlock {
                func: 7,
                start: 5,
                pcs: Some((3, 9)),
                global: 5,
                sites: 1..3,
            },
        ];
        BlockCounters {
            blocks,
            sites,
            incs,
            probes_folded: 4,
            sites_folded: 3,
        }
    }

    #[test]
    fn kept_counters_decode_to_what_was_kept() {
        let c = counters();
        let bytes = counters::encode(&c);
        let back = counters::decode(&bytes).expect("decodes");
        assert_eq!(format!("{back:?}"), format!("{c:?}"));
        assert_eq!(counters::encode(&back), bytes);
        for n in 0..bytes.len() {
            assert!(counters::decode(&bytes[..n]).is_none(), "prefix {n}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x80;
            let _ = counters::decode(&b);
        }
    }

    #[test]
    fn impure_matching_is_not_kept() {
        let (store, id) = monitor();
        let before = Before::capture(&store);
        store.count_host_call();
        let plan = plan(&store, id);
        let err = encode(&before, &store, &plan, &stats(), 0).unwrap_err();
        assert_eq!(err, "a static call called the host");
    }
}
