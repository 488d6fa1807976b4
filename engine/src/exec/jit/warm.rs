//! Warm start for the dyn tier: which functions got hot, remembered from one
//! run to the next.
//!
//! At the end of a run the store writes, per module, a record of the
//! functions the tier-up policy decided to compile (called often enough, or
//! holding a loop entered by OSR) into the compiled-code cache's directory,
//! each marked *compiled* (its code was published, so it is in the cache) or
//! *requested* (the compiler thread had not finished it, or only a loop entry
//! was compiled), and *looping* if a loop of it was entered by OSR. The next
//! run of the same module reads it at instantiation and hands every function
//! it names to the compiler thread at once (most are cache hits), so that
//! the main thread goes on interpreting instead of compiling. The first call
//! of a looping function waits for its code ([`crate::exec::tiering`]'s
//! `AWAITED`: its loops are about to run long); the others run interpreted
//! until their code is there. Without a compiler thread
//! (`--background-compile=off`), every function named is compiled at its
//! first call (`WARM`), in the foreground.
//!
//! A record only changes *when* a function is compiled, never *what* runs:
//! the code itself still comes from the code cache (`by_source.rs`). It is
//! still checked like any entry (length and checksum of the file, via
//! [`super::cache::read`]) and must name the module by its digest, the same
//! threshold, and only defined functions in ascending order; a record that
//! fails any check is ignored (and counted), the run tiers up as usual and
//! writes a fresh one. No cache (`--cache=off`), no record.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::cache::{self, Entry};
use crate::core::module::Module;
use crate::core::types::{FuncAddr, InstanceId};
use crate::exec::tiering;
use crate::runtime::store::{FuncKind, Store, Tier};

/// The record's version: a new layout gets new keys.
const VERSION: &[u8] = b"wizeng warm-start record 4";

/// A store's warm-start state.
#[derive(Default)]
pub(crate) struct Warm {
    /// Whether records are read and written (`Store::enable_warm_start`).
    pub enabled: bool,
    modules: Vec<Recorded>,
    /// Functions named by a record (at instantiation).
    pub named: usize,
    /// Functions compiled at their first call because a record named them.
    pub installed: usize,
    /// Functions handed to the compiler thread at instantiation.
    pub prefetched: usize,
    /// Records ignored because they failed a check.
    pub rejected: usize,
    /// When records were turned on (about when the run started): what
    /// [`save`] may wait at exit is at most as long as the run took.
    started: Option<std::time::Instant>,
}

/// A module of the store and the functions its record named.
struct Recorded {
    module: Arc<Module>,
    key: [u8; 32],
    digest: [u8; 32],
    /// Function indices, ascending, [`REQUESTED`] set for requested ones,
    /// [`LOOPING`] for those with a loop entered by OSR.
    funcs: Vec<u32>,
    instances: Vec<InstanceId>,
}

/// The flag of a requested (not known to be cached) function in a record.
const REQUESTED: u32 = 1 << 31;
/// The flag of a function with a loop entered by OSR in a record.
const LOOPING: u32 = 1 << 30;
/// The flag of a requested function that a run waited for at its exit
/// ([`save`]): no run waits for it again.
const WAITED: u32 = 1 << 29;
/// A record entry's function index.
const INDEX: u32 = !(REQUESTED | LOOPING | WAITED);

/// The module's identity in a record: the digest of its bytes outside the
/// code and data (the one compiled code is keyed by, `by_source.rs`: computed
/// once per module per process, and when anything is compiled anyway) and
/// the length of every function body. Hashing every byte cost 0.4 ms of a
/// 6 ms run of a 5.7 MB module (visual6502remix), for a record that, naming
/// the wrong module, could only change when functions are compiled, never
/// what runs: a module whose bodies changed but kept their lengths shares
/// its record with the one before, which is harmless.
fn module_digest(m: &Module) -> [u8; 32] {
    let mut lengths = Vec::with_capacity(4 * m.bodies.len() + 8);
    lengths.extend((m.bodies.len() as u64).to_le_bytes());
    for b in &m.bodies {
        lengths.extend((b.range.len() as u32).to_le_bytes());
    }
    // (The lengths are hashed with XXH3 in one call: SHA-256 fed four bytes
    // at a time cost more than the rest of the key.)
    Sha256::new()
        .chain_update(super::by_source::module_digest(&m.shared_info()))
        .chain_update(xxhash_rust::xxh3::xxh3_128(&lengths).to_le_bytes())
        .finalize()
        .into()
}

/// The record's file key and the module's digest. The key names this
/// executable too: what a record says was compiled is in the cache under
/// this build's keys (`by_source.rs`), and two builds sharing a directory
/// (a before/after benchmark) keep records of their own.
fn key_of(m: &Module, threshold: u32) -> ([u8; 32], [u8; 32]) {
    let digest = module_digest(m);
    let exe = crate::exec::exe_identity().unwrap_or_default();
    let key = Sha256::new()
        .chain_update(VERSION)
        .chain_update(env!("CARGO_PKG_VERSION"))
        .chain_update((exe.len() as u64).to_le_bytes())
        .chain_update(exe)
        .chain_update(digest)
        .chain_update(threshold.to_le_bytes())
        .finalize()
        .into();
    (key, digest)
}

/// A record's payload: the module's digest, the threshold, the count, then
/// the function indices.
fn encode(digest: &[u8; 32], threshold: u32, funcs: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(40 + 4 * funcs.len());
    out.extend_from_slice(digest);
    out.extend_from_slice(&threshold.to_le_bytes());
    out.extend_from_slice(&(funcs.len() as u32).to_le_bytes());
    for f in funcs {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out
}

/// The functions of a sound record for `m` (defined functions, ascending).
fn decode(bytes: &[u8], digest: &[u8; 32], threshold: u32, m: &Module) -> Option<Vec<u32>> {
    let (head, rest) = bytes.split_at_checked(40)?;
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default());
    if head[..32] != digest[..] || word(&head[32..36]) != threshold {
        return None;
    }
    let n = word(&head[36..40]) as usize;
    if rest.len() != n.checked_mul(4)? {
        return None;
    }
    let funcs: Vec<u32> = rest.chunks_exact(4).map(word).collect();
    let defined = |f: &u32| (m.num_imported_funcs..m.num_funcs()).contains(&(f & INDEX));
    let ascending = funcs.windows(2).all(|w| w[0] & INDEX < w[1] & INDEX);
    (ascending && funcs.iter().all(defined)).then_some(funcs)
}

/// A new instance of the dyn tier: the functions its module's record names
/// (read once per module), to be handed to the compiler thread (returned,
/// with whether the first call waits for the code: [`LOOPING`]); without a
/// compiler thread, or when all are waited for and known to be cached, they
/// are marked to be compiled at their first call.
pub(crate) fn load(store: &mut Store, id: InstanceId) -> Vec<(FuncAddr, bool)> {
    let (Some(dir), Tier::Dyn) = (store.config.code_cache.clone(), store.config.tier) else {
        return Vec::new();
    };
    if !crate::exec::state(store).jit.warm.enabled {
        return Vec::new();
    }
    let module = store.instance(id).module.clone();
    let threshold = store.config.dyn_threshold;
    let warm = &mut crate::exec::state_mut(store).jit.warm;
    let k = match warm
        .modules
        .iter()
        .position(|r| Arc::ptr_eq(&r.module, &module))
    {
        Some(k) => k,
        None => {
            let (key, digest) = key_of(&module, threshold);
            let funcs = match cache::read(&dir, &key) {
                Entry::Missing => Vec::new(),
                Entry::Found(b) => decode(&b, &digest, threshold, &module).unwrap_or_else(|| {
                    warm.rejected += 1;
                    Vec::new()
                }),
                Entry::Damaged => {
                    warm.rejected += 1;
                    Vec::new()
                }
            };
            warm.modules.push(Recorded {
                module: module.clone(),
                key,
                digest,
                funcs,
                instances: Vec::new(),
            });
            warm.modules.len() - 1
        }
    };
    warm.modules[k].instances.push(id);
    warm.named += warm.modules[k].funcs.len();
    let funcs = warm.modules[k].funcs.clone();
    // When every function named is waited for at its first call and its
    // code is known to be cached, the compiler thread would only read the
    // cache while the store's thread waits: the store's thread places them
    // itself at their first calls, and no thread is started (its start and
    // its first heap pages cost about what placing one cached function
    // does; visual6502remix names one).
    let foreground = funcs.iter().all(|f| f & (LOOPING | REQUESTED) == LOOPING);
    let mut requested = Vec::new();
    for f in funcs {
        let a = store.instance(id).funcs[(f & INDEX) as usize];
        if store.config.background_compile && !foreground {
            requested.push((a, f & LOOPING != 0));
        } else {
            tiering::mark_warm(store, a);
        }
    }
    requested
}

/// Hand the functions a record names to the compiler thread now, each
/// waited for at its first call or not ([`load`]); any that cannot be are
/// compiled at their first call. The JIT's set-up is the thread's first
/// request ([`super::begin_prepare`]: placing jsc's trampolines from the
/// cache cost the main thread 0.75 ms).
pub(crate) fn prefetch(store: &mut Store, funcs: Vec<(FuncAddr, bool)>) {
    if funcs.is_empty() {
        return;
    }
    let prepared = super::begin_prepare(store) || super::ensure_prepared(store).is_ok();
    for (f, wait) in funcs {
        if prepared && matches!(super::request_func(store, f), Ok(true)) {
            let state = if wait {
                tiering::AWAITED
            } else {
                tiering::PENDING
            };
            tiering::mark(store, f, state);
            crate::exec::state_mut(store).jit.warm.prefetched += 1;
        } else {
            tiering::mark_warm(store, f);
        }
    }
}

/// The end of a run: write each module's record if this run decided to
/// compile a function it did not name (a record only grows). Errors are
/// ignored: a record that cannot be written only costs the next run its
/// warm start. First, [`finish_requested`].
pub(crate) fn save(store: &mut Store) {
    finish_requested(store);
    let store = &*store;
    let Some(dir) = store.config.code_cache.as_deref() else {
        return;
    };
    let threshold = store.config.dyn_threshold;
    let j = &crate::exec::state(store).jit;
    for r in &j.warm.modules {
        // Index -> flags, starting from the record read: REQUESTED only
        // until some run compiled it, LOOPING once some run entered a loop.
        let mut funcs: std::collections::BTreeMap<u32, u32> =
            r.funcs.iter().map(|f| (f & INDEX, f & !INDEX)).collect();
        let mut note = |f: u32, compiled: bool, looping: bool| {
            let flags = funcs.entry(f).or_insert(REQUESTED);
            if compiled {
                *flags &= !(REQUESTED | WAITED);
            } else if *flags & REQUESTED != 0 && r.funcs.contains(&(f | *flags)) {
                // Named as requested by the record read, still not
                // compiled: [`finish_requested`] waited for it (or its
                // compile failed).
                *flags |= WAITED;
            }
            if looping {
                *flags |= LOOPING;
            }
        };
        for &id in &r.instances {
            let inst = store.instance(id);
            for f in r.module.num_imported_funcs..r.module.num_funcs() {
                if let Some(compiled) = tiering::decided(store, inst.funcs[f as usize]) {
                    note(f, compiled, false);
                }
            }
        }
        // Loops entered by OSR (or being compiled for it) at exit.
        for &(i, f, _) in j.osr_code.keys().chain(j.osr_pending.iter()) {
            if r.instances.contains(&InstanceId(i)) {
                note(f, false, true);
            }
        }
        // Requests the compile budget put off, of code that ran long enough
        // to pay for placing it from the cache (`tiering/budget.rs`).
        for &(a, looping) in tiering::to_record(store) {
            if let FuncKind::Wasm { instance, func_idx } = store.funcs[a.0 as usize].kind {
                if r.instances.contains(&instance) && tiering::decided(store, a).is_none() {
                    note(func_idx, false, looping);
                }
            }
        }
        let funcs: Vec<u32> = funcs.into_iter().map(|(f, flags)| f | flags).collect();
        if funcs != r.funcs {
            let _ = cache::write(dir, &r.key, &encode(&r.digest, threshold, &funcs));
        }
    }
}

/// Turn warm-start records on for this store (the CLI does, for an app run
/// without monitors).
pub(crate) fn enable(store: &mut Store) {
    let w = &mut crate::exec::state_mut(store).jit.warm;
    w.enabled = true;
    w.started = Some(std::time::Instant::now());
}

/// The end of a run: wait, for at most as long as the run took, for the
/// functions that the record read names as requested (an earlier run got
/// them hot, none got their code) and that are still being compiled, so
/// that their code reaches the cache. A body that takes longer to compile
/// than a whole run (wasm-r3's `pathfinding`: a 0.5 MB replay function,
/// 2 s to compile, called throughout a 2 s run) would otherwise be asked
/// for by every run and finished by none. Once per function: the record
/// marks it [`WAITED`].
fn finish_requested(store: &mut Store) {
    let w = &crate::exec::state(store).jit.warm;
    let Some(started) = w.started.filter(|_| w.enabled) else {
        return;
    };
    let deadline = std::time::Instant::now() + started.elapsed();
    let mut waits = Vec::new();
    for r in &w.modules {
        for f in r
            .funcs
            .iter()
            .filter(|f| *f & (REQUESTED | WAITED) == REQUESTED)
        {
            for &id in &r.instances {
                waits.push(store.instance(id).funcs[(f & INDEX) as usize]);
            }
        }
    }
    for a in waits {
        if tiering::decided(store, a) == Some(false) {
            let done = crate::exec::state_mut(store)
                .jit
                .background
                .wait_for_until(a.0, Some(deadline));
            super::install(store, done);
        }
    }
}

/// What records did so far ([`crate::exec::api::WarmStats`]).
pub(crate) fn stats(store: &Store) -> crate::exec::api::WarmStats {
    let w = &crate::exec::state(store).jit.warm;
    crate::exec::api::WarmStats {
        named: w.named,
        compiled_first: w.installed,
        prefetched: w.prefetched,
        rejected: w.rejected,
    }
}

/// A function a record named was compiled at its first call.
pub(crate) fn installed(store: &mut Store) {
    crate::exec::state_mut(store).jit.warm.installed += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module() -> Module {
        let wat = r#"(module (import "m" "f" (func)) (func) (func) (func))"#;
        let bytes = wat::parse_str(wat).unwrap();
        Module::new(&bytes).unwrap()
    }

    #[test]
    fn records_round_trip_and_bad_ones_are_refused() {
        let m = module();
        let (_, digest) = key_of(&m, 1000);
        let good = encode(&digest, 1000, &[1, 2 | LOOPING, 3 | REQUESTED | WAITED]);
        assert_eq!(
            decode(&good, &digest, 1000, &m),
            Some(vec![1, 2 | LOOPING, 3 | REQUESTED | WAITED])
        );
        // Another threshold, another module, a cut, an import, out of range,
        // not ascending.
        assert_eq!(decode(&good, &digest, 999, &m), None);
        assert_eq!(decode(&good, &[0; 32], 1000, &m), None);
        assert_eq!(decode(&good[..good.len() - 1], &digest, 1000, &m), None);
        for funcs in [
            &[0u32][..],
            &[4],
            &[3, 1],
            &[2, 2],
            &[2, 2 | REQUESTED],
            &[2 | LOOPING, 2],
            &[1 << 28],
        ] {
            let bad = encode(&digest, 1000, funcs);
            assert_eq!(decode(&bad, &digest, 1000, &m), None, "{funcs:?}");
        }
    }
}
