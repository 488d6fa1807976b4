//! Dyn tier: what compiling costs against how long the run has lasted, for
//! compiles that are not expected to be in the code cache (a hot function or
//! loop that no warm-start record named: a first run, or code that got hot
//! for the first time).
//!
//! Such a compile costs far more than a cache hit (Cranelift: about 0.4 ms
//! plus 0.25 µs per byte of body, and the first one sets the JIT up for the
//! module: trampolines for each of its types), and a short program is over
//! before it pays off: PolyBench's `durbin` reaches the threshold in its
//! first 0.1 ms and ends 3 ms later, so every compile it asked for was waste
//! (cold: 10 ms against 4.3 ms interpreted). The dyn tier cannot know how
//! long a run will last, but it knows how long the code asking has run: a
//! compile is granted once the function (or loop) has run, since it got hot,
//! twice as long as compiling it would take ([`RENT`]; the rent-or-buy rule),
//! and the run as long as every compile granted so far, so compiling never
//! costs much more than the run it speeds up, and a long run compiles its
//! hot code after a few milliseconds. Until then, the function or loop asks
//! again after another threshold's worth of calls or iterations; the time
//! between its successive requests adds up to what it ran since it got hot
//! (its first request). Times are the store thread's CPU time: on a loaded
//! machine, time spent waiting for a core says nothing about the work left,
//! and a compile waits for one too.
//!
//! A later run can place the same code from the cache for much less
//! (`jit/warm.rs`), so a request put off is still *recorded* when the code
//! asking ran long enough to pay for that: once what it ran since it got hot
//! reaches [`RENT`] times the estimated cost of placing it from the cache,
//! the run's warm-start record names it (requested, not compiled). The next run compiles it at its start
//! (a miss, written to the cache), and the runs after that place it. Code
//! that runs briefly, however long the run around it (a wasm-r3 replay's
//! start-up function), is never named, so no run pays for placing it.
//!
//! On for the CLI's runs without monitors at the default threshold
//! (`Store::enable_compile_budget`); an explicit `--dyn-threshold` (and every
//! test of the tier-up itself) compiles at exactly the threshold.

use std::collections::HashMap;
use std::time::Duration;

use crate::core::types::FuncAddr;
use crate::exec::jit;
use crate::runtime::store::{FuncKind, Store};

/// A store's compile budget.
#[derive(Default)]
pub(crate) struct Budget {
    on: bool,
    /// The store thread's CPU time at the run's first call (the clock
    /// starts there: loading is not running).
    start: Option<Duration>,
    /// The estimated cost of the compiles granted so far.
    granted: Duration,
    /// Requests put off so far (`--metrics`).
    pub(crate) deferred: usize,
    /// Per function that asked: its last request, how long it ran since it
    /// got hot, and whether the record will name it.
    asked: HashMap<u32, Asked>,
    /// Whether a function named for the record pays for the JIT's set-up.
    named_any: bool,
    /// Functions put off that the warm-start record should name: (function,
    /// whether one of its loops asked).
    pub(crate) to_record: Vec<(FuncAddr, bool)>,
}

#[derive(Clone, Copy)]
struct Asked {
    last: Duration,
    ran: Duration,
    named: bool,
}

/// How many times the estimated cost of its compile (or placement) code
/// must have run since it got hot. Once would be the classic rent-or-buy
/// rule, but a compile costs more than its estimate says: the set-up blocks
/// the store's thread, and on a loaded machine the compiler thread takes the
/// core the interpreter would have had. With 2, PolyBench's short programs
/// (`durbin`, `gesummv`, `trisolv`: 2.5 ms interpreted) compile nothing
/// cold, while `gemm` (90 ms interpreted) still compiles its kernel after
/// about 5 ms.
const RENT: u32 = 2;

/// Estimated fixed cost of setting the JIT up (Cranelift's target, the JIT
/// module, the compiler thread).
const SETUP_FIXED: Duration = Duration::from_micros(200);
/// Estimated cost of setting the JIT up for a module, per type (its
/// trampolines, compiled by Cranelift on the store's thread: about 1 ms for
/// PolyBench's 18 types on the 2-core machine the other estimates come from).
const SETUP_PER_TYPE: Duration = Duration::from_micros(60);
/// Estimated fixed cost of one compile (PolyBench's kernels, 1.5-2.5 KB:
/// about 1 ms each on the compiler thread).
const COMPILE_FIXED: Duration = Duration::from_micros(400);
/// Estimated cost of one compile per byte of body (PolyBench's `main`,
/// 4.7-6.2 KB with its kernel inlined: 1.0-1.6 ms per loop entry).
const COMPILE_PER_BYTE_NS: u64 = 250;

/// Estimated cost of the JIT's set-up from the cache: the compiler thread,
/// the JIT module, the trampolines read back (visual6502remix's 95 types:
/// about 1.7M instructions).
const PLACE_SETUP_FIXED: Duration = Duration::from_micros(200);
const PLACE_SETUP_PER_TYPE: Duration = Duration::from_micros(4);
/// Estimated cost of placing one function from the cache (reading and
/// checking its entry, linking it), fixed and per byte of body.
const PLACE_FIXED: Duration = Duration::from_micros(100);
const PLACE_PER_BYTE_NS: u64 = 20;

/// Turn the budget on.
pub(crate) fn enable_budget(store: &mut Store) {
    budget_mut(store).on = true;
}

fn budget(store: &Store) -> &Budget {
    &crate::exec::state(store).counts.2
}

fn budget_mut(store: &mut Store) -> &mut Budget {
    &mut crate::exec::state_mut(store).counts.2
}

/// The run starts (a call from the host): the budget's clock starts, once.
#[inline]
pub(crate) fn run_starts(store: &mut Store) {
    let b = budget_mut(store);
    if b.on && b.start.is_none() {
        b.start = Some(thread_time());
    }
}

/// The store thread's CPU time (the process's wall time where there is no
/// thread clock).
fn thread_time() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(std::time::Instant::now).elapsed()
}

/// The estimated cost of compiling a body of `body_len` bytes now: the
/// compile, and if the JIT is not set up yet, its set-up for `setup` types.
fn compile_cost(body_len: usize, setup: Option<usize>) -> Duration {
    let setup = setup.map_or(Duration::ZERO, |types| {
        SETUP_FIXED + SETUP_PER_TYPE * types as u32
    });
    COMPILE_FIXED + Duration::from_nanos(COMPILE_PER_BYTE_NS * body_len as u64) + setup
}

/// The estimated cost of placing a body of `body_len` bytes from the cache,
/// with the JIT's set-up from the cache for `setup` types if asked.
fn place_cost(body_len: usize, setup: Option<usize>) -> Duration {
    let setup = setup.map_or(Duration::ZERO, |types| {
        PLACE_SETUP_FIXED + PLACE_SETUP_PER_TYPE * types as u32
    });
    PLACE_FIXED + Duration::from_nanos(PLACE_PER_BYTE_NS * body_len as u64) + setup
}

/// Whether the budget grants compiling `f` (a Wasm function, or with
/// `looping` a loop entry into it) now; a grant is charged to the budget,
/// a request put off is noted for the warm-start record. Always with the
/// budget off.
pub(crate) fn affordable(store: &mut Store, f: FuncAddr, looping: bool) -> bool {
    if !budget(store).on {
        return true;
    }
    let len = body_len(store, f);
    let types = jit::setup_types(store);
    let cost = compile_cost(len, types);
    let now = thread_time();
    let b = budget_mut(store);
    let ran = b.start.map_or(Duration::ZERO, |t| now.saturating_sub(t));
    let hot = ran_since_hot(b, f, now);
    if grant(b, ran, hot, cost) {
        return true;
    }
    let first = !b.named_any;
    let place = place_cost(len, first.then_some(types.unwrap_or(0)));
    if worth_recording(b, f, place) {
        b.named_any = true;
        b.to_record.push((f, looping));
    }
    false
}

/// The rent-or-buy rule: grant a compile costing `cost` of code that has
/// run for `hot` since it got hot, in a run that has lasted `ran`, if the
/// code ran [`RENT`] times as long as the compile takes, and the run as
/// long as every compile granted so far and this one.
fn grant(b: &mut Budget, ran: Duration, hot: Duration, cost: Duration) -> bool {
    if hot < RENT * cost || ran < b.granted + cost {
        b.deferred += 1;
        return false;
    }
    b.granted += cost;
    true
}

/// A request of `f` at `now`: add the time since its last request to what
/// it ran since it got hot (its first request), and return that.
fn ran_since_hot(b: &mut Budget, f: FuncAddr, now: Duration) -> Duration {
    let a = b.asked.entry(f.0).or_insert(Asked {
        last: now,
        ran: Duration::ZERO,
        named: false,
    });
    a.ran += now.saturating_sub(a.last);
    a.last = now;
    a.ran
}

/// Whether `f`, a request put off, has run [`RENT`] times as long as
/// placing it costs (`place`), for the first time.
fn worth_recording(b: &mut Budget, f: FuncAddr, place: Duration) -> bool {
    match b.asked.get_mut(&f.0) {
        Some(a) if !a.named && a.ran >= RENT * place => {
            a.named = true;
            true
        }
        _ => false,
    }
}

/// Charge a compile of `f` decided without asking (the function of a loop
/// entered by OSR, for its later calls) to the budget.
pub(crate) fn charge(store: &mut Store, f: FuncAddr) {
    if budget(store).on {
        let cost = compile_cost(body_len(store, f), None);
        budget_mut(store).granted += cost;
    }
}

/// Bytes of `f`'s body (0 for a host function).
fn body_len(store: &Store, f: FuncAddr) -> usize {
    match store.funcs[f.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => {
            let m = &store.instances[instance.0 as usize].module;
            match func_idx.checked_sub(m.num_imported_funcs) {
                Some(d) if (d as usize) < m.bodies.len() => {
                    m.body_bytes(func_idx).map_or(0, |b| b.len())
                }
                _ => 0,
            }
        }
        FuncKind::Host(_) => 0,
    }
}

/// Dyn tier: whether a loop entry into `f` may be compiled now; a grant is
/// charged.
pub(crate) fn loop_affordable(store: &mut Store, f: FuncAddr) -> bool {
    affordable(store, f, true)
}

/// The functions put off that the warm-start record should name, with
/// whether a loop of theirs asked.
pub(crate) fn to_record(store: &Store) -> &[(FuncAddr, bool)] {
    &budget(store).to_record
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_compile_is_granted_once_its_code_ran_twice_its_cost() {
        let mut b = Budget::default();
        assert!(!grant(&mut b, ms(9), ms(3), ms(2)));
        assert!(grant(&mut b, ms(9), ms(4), ms(2)));
        // 2 ms granted: another 2 ms compile waits for a 4 ms run too.
        assert!(!grant(&mut b, ms(3), ms(4), ms(2)));
        assert!(grant(&mut b, ms(4), ms(4), ms(2)));
        assert_eq!((b.granted, b.deferred), (ms(4), 2));
        assert_eq!(
            compile_cost(1000, Some(10)),
            COMPILE_FIXED + Duration::from_nanos(250_000) + SETUP_FIXED + SETUP_PER_TYPE * 10
        );
        assert_eq!(compile_cost(0, None), COMPILE_FIXED);
        assert!(place_cost(1000, Some(10)) < compile_cost(1000, Some(10)));
    }

    #[test]
    fn a_request_is_recorded_once_its_code_ran_twice_its_placement() {
        let mut b = Budget::default();
        let (f, g) = (FuncAddr(1), FuncAddr(2));
        // f asks at 1, 2, 3, 5 ms: it ran 4 ms; g asks once, later.
        for (now, ran) in [(1, 0), (2, 1), (3, 2)] {
            assert_eq!(ran_since_hot(&mut b, f, ms(now)), ms(ran));
            assert!(!worth_recording(&mut b, f, ms(2)));
        }
        assert_eq!(ran_since_hot(&mut b, f, ms(5)), ms(4));
        assert!(worth_recording(&mut b, f, ms(2)));
        ran_since_hot(&mut b, f, ms(9));
        assert!(!worth_recording(&mut b, f, ms(2)), "recorded once");
        ran_since_hot(&mut b, g, ms(19));
        assert!(
            !worth_recording(&mut b, g, ms(1)),
            "a first request ran nothing yet"
        );
    }
}
