//! The tier-up policy: which code runs a call, and when the dyn tier compiles.
//!
//! The interpreter asks here before each call into a Wasm function and at
//! each hot loop header; the JIT ([`super::jit`]) provides the mechanisms
//! (compile one function, enter a loop by OSR). Per function (by store
//! address) the dyn tier keeps a call count, or one of two final states:
//! [`COMPILED`] (calls go to compiled code) or [`NEVER`] (it failed to compile
//! and stays interpreted); in between, [`PENDING`] (being compiled on the
//! compiler thread), and before the first call, [`WARM`] (a warm-start
//! record says it got hot in an earlier run: compile it at its first call)
//! or [`AWAITED`] (such a function is on the compiler thread already, and
//! its first call waits for its code).

mod budget;

pub(crate) use budget::{enable_budget, loop_affordable, run_starts, to_record, Budget};

use super::jit;
use crate::core::types::FuncAddr;
use crate::core::types::Value;
use crate::runtime::store::{FuncKind, Store, Tier};

/// What became of a hot loop's request to continue in compiled code.
pub(crate) enum OsrEntry {
    /// The activation ran to its end in compiled code: its results.
    Finished(Vec<Value>),
    /// The entry is being compiled in the background: ask again later.
    Later,
    /// The loop cannot be entered (the interpreter goes on).
    Never,
    /// Compiling the entry would cost more than its code has run so far
    /// ([`Budget`]): ask again after another threshold's worth of iterations.
    Deferred,
}

/// The function has compiled code that calls use.
pub(crate) const COMPILED: u32 = u32::MAX;
/// The function could not be compiled; it stays interpreted.
pub(crate) const NEVER: u32 = u32::MAX - 1;
/// The compiler thread is compiling the function; it runs interpreted until
/// its code is published.
pub(crate) const PENDING: u32 = u32::MAX - 2;
/// A warm-start record (`jit/warm.rs`) names the function: it is compiled at
/// its first call, in the foreground (its code is usually in the cache).
pub(crate) const WARM: u32 = u32::MAX - 3;
/// A warm-start record names the function as one whose loops were entered
/// by OSR: it was handed to the compiler thread at instantiation, and its
/// first call waits for its code (a loop that ran long enough to be
/// entered once will again; one compile, usually a cache hit, costs less).
/// The other functions a record names are [`PENDING`] meanwhile: they run
/// interpreted until their code is there, so a program whose hot functions
/// do little (most of real applications' start-up) never waits.
pub(crate) const AWAITED: u32 = u32::MAX - 4;
/// The lowest final or intermediate state: counts stay below it.
const STATES: u32 = AWAITED;

/// Bytes of a function body below which tier-up thresholds are not scaled.
const SMALL_BODY: usize = 2048;
/// Calls or loop iterations added to the threshold per byte of body above
/// [`SMALL_BODY`]: compiling costs about linear time in the body's size
/// (more for large bodies: register allocation), so a large function must
/// prove hotter before it is worth it.
const EXTRA_PER_BYTE: usize = 4;

/// Bytes of code a call is assumed to run when [`size_extra`] scales a
/// threshold: a function that runs more than this on every call (see
/// [`Shape::every_call`]) needs proportionally fewer calls.
const TYPICAL_CALL: usize = 256;

/// Calls or loop iterations a function of `body_len` bytes needs beyond the
/// configured threshold before the dyn tier compiles it.
pub(crate) fn size_extra(body_len: usize) -> u32 {
    work_extra(body_len, 0)
}

/// Calls a function of `body_len` bytes, `every_call` of which run on every
/// call, needs beyond the configured threshold. Compiling costs about the
/// same per byte of body whatever a call does, while interpreting a call
/// costs at least what its `every_call` bytes cost: a function that runs
/// much of its body on every call (wasm-r3's replay functions: tens of
/// thousands of top-level `if`s, each testing a global) pays for its compile
/// after fewer calls than one that runs a short path through a large body.
fn work_extra(body_len: usize, every_call: usize) -> u32 {
    let extra = body_len.saturating_sub(SMALL_BODY) * EXTRA_PER_BYTE;
    let extra = extra * TYPICAL_CALL / every_call.max(TYPICAL_CALL);
    extra.min(u32::MAX as usize / 4) as u32
}

/// What one pass over a function body tells the tier-up policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Bytes of the instructions that every call runs (unless it traps or
    /// returns early): those outside any block, loop, `if` or `try`.
    pub every_call: usize,
}

/// The [`Shape`] of `body` (a validated function body, locals included);
/// the default if it does not parse.
pub(crate) fn shape(body: &[u8]) -> Shape {
    let fb = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(body, 0));
    let Ok(mut ops) = fb.get_operators_reader() else {
        return Shape::default();
    };
    let mut s = Shape::default();
    // Blocks, loops, `if`s and `try`s open.
    let mut depth = 0usize;
    while !ops.eof() {
        let at = ops.original_position();
        let Ok(op) = ops.read() else {
            return Shape::default();
        };
        let top_level = depth == 0;
        use wasmparser::Operator as O;
        match op {
            O::Block { .. }
            | O::Loop { .. }
            | O::If { .. }
            | O::Try { .. }
            | O::TryTable { .. } => depth += 1,
            O::End | O::Delegate { .. } => {
                depth = depth.saturating_sub(1);
                continue;
            }
            _ => {}
        }
        if top_level {
            s.every_call += ops.original_position() - at;
        }
    }
    s
}

/// Loop iterations between two checks for a loop entry that is being
/// compiled in the background.
pub(crate) const OSR_RECHECK: u32 = 128;

/// The value a loop's iteration counter restarts from so that the loop
/// header asks again after [`OSR_RECHECK`] iterations.
pub(crate) fn loop_recheck(store: &Store) -> u32 {
    store.config.dyn_threshold.wrapping_sub(OSR_RECHECK)
}

/// The value a loop's iteration counter restarts from when its entry was
/// [`OsrEntry::Deferred`]: it asks again after a threshold's worth.
pub(crate) fn loop_defer(_store: &Store) -> u32 {
    0
}

/// Dyn tier: per function, calls so far or a final state, and the call
/// threshold of each function that reached the configured one
/// ([`call_threshold`]; 0: not computed yet); and the compile [`Budget`].
#[derive(Default)]
pub(crate) struct Counts(Vec<u32>, Vec<u32>, pub(crate) Budget);

impl Counts {
    fn get(&self, f: FuncAddr) -> u32 {
        self.0.get(f.0 as usize).copied().unwrap_or(0)
    }

    fn set(&mut self, f: FuncAddr, v: u32) {
        let i = f.0 as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = v;
    }

    fn threshold(&self, f: FuncAddr) -> Option<u32> {
        self.1.get(f.0 as usize).copied().filter(|&t| t != 0)
    }

    fn set_threshold(&mut self, f: FuncAddr, t: u32) {
        let i = f.0 as usize;
        if self.1.len() <= i {
            self.1.resize(i + 1, 0);
        }
        self.1[i] = t.max(1);
    }
}

/// Record a final state for `f` ([`COMPILED`] or [`NEVER`]).
pub(crate) fn mark(store: &mut Store, f: FuncAddr, state: u32) {
    super::state_mut(store).counts.set(f, state);
}

/// Dyn tier: count a call of `f` (a Wasm function of a JIT-prepared instance)
/// and compile it once it is hot; whether it now has compiled code.
pub(crate) fn call_is_hot(store: &mut Store, f: FuncAddr) -> bool {
    let counts = &mut super::state_mut(store).counts;
    let c = counts.get(f);
    match c {
        COMPILED => return true,
        NEVER => return false,
        PENDING => {
            jit::poll_background(store);
            return super::state(store).counts.get(f) == COMPILED;
        }
        WARM => return compile_warm(store, f),
        AWAITED => return await_warm(store, f),
        _ => {}
    }
    counts.set(f, c + 1);
    if c + 1 < store.config.dyn_threshold || c + 1 < call_threshold(store, f) {
        return false;
    }
    if interp_only(store, f) {
        mark(store, f, NEVER);
        return false;
    }
    if !budget::affordable(store, f, false) {
        // Ask again after another threshold's worth of calls.
        let back = store.config.dyn_threshold.min(c + 1);
        super::state_mut(store).counts.set(f, c + 1 - back);
        return false;
    }
    if jit::ensure_prepared(store).is_err() {
        mark(store, f, NEVER);
        return false;
    }
    if store.config.background_compile {
        match jit::request_func(store, f) {
            Ok(true) => {
                mark(store, f, PENDING);
                return false;
            }
            Ok(false) => {} // no thread: compile here
            Err(_) => {
                mark(store, f, NEVER);
                return false;
            }
        }
    }
    if jit::compile_lazily(store, f).is_err() {
        // Stays interpreted (the interpreter ran it so far and will go on).
        mark(store, f, NEVER);
        return false;
    }
    true
}

/// The first call of a function a warm-start record names: compile it now
/// (a cache hit costs far less than interpreting it until hot); whether it
/// has compiled code.
#[cold]
fn compile_warm(store: &mut Store, f: FuncAddr) -> bool {
    if interp_only(store, f)
        || jit::ensure_prepared(store).is_err()
        || jit::compile_lazily(store, f).is_err()
    {
        mark(store, f, NEVER);
        return false;
    }
    jit::warm_installed(store);
    true
}

/// The first call of a function the compiler thread is compiling because a
/// record names it ([`AWAITED`]): wait for its code; whether it has some.
#[cold]
fn await_warm(store: &mut Store, f: FuncAddr) -> bool {
    jit::wait_for(store, f);
    if jit::setting_up(store) {
        // `f`'s code waits for its instance's set-up: that too.
        let _ = jit::ensure_prepared(store);
    }
    match super::state(store).counts.get(f) {
        COMPILED => true,
        // The compiler thread is gone: compile here.
        AWAITED => compile_warm(store, f),
        _ => false,
    }
}

/// A call from the host (the program's entry point, say): if a warm-start
/// record names `f`, compile it now (or wait for the compiler thread's
/// code), so that its loops run compiled without waiting for an OSR entry.
#[inline]
pub(crate) fn warm_up(store: &mut Store, f: FuncAddr) {
    if store.config.tier != Tier::Dyn {
        return;
    }
    match super::state(store).counts.get(f) {
        WARM => {
            compile_warm(store, f);
        }
        AWAITED => {
            await_warm(store, f);
        }
        _ => {}
    }
}

/// Warm start: `f` is to be compiled at its first call (unless it was called
/// or decided already).
pub(crate) fn mark_warm(store: &mut Store, f: FuncAddr) {
    if super::state(store).counts.get(f) == 0 {
        mark(store, f, WARM);
    }
}

/// Whether the dyn tier decided to compile `f`: `Some(true)` if its code
/// was published, `Some(false)` if it is being compiled.
pub(crate) fn decided(store: &Store, f: FuncAddr) -> Option<bool> {
    match super::state(store).counts.get(f) {
        COMPILED => Some(true),
        PENDING | AWAITED => Some(false),
        _ => None,
    }
}

/// Calls after which the dyn tier compiles `f`: the configured threshold,
/// more for a large body ([`work_extra`]). Asked only once `f` reached the
/// configured threshold; the first answer is kept (a large body is read
/// once, to measure what every call runs).
fn call_threshold(store: &mut Store, f: FuncAddr) -> u32 {
    if let Some(t) = super::state(store).counts.threshold(f) {
        return t;
    }
    let base = store.config.dyn_threshold;
    let t = match store.funcs[f.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => {
            let m = &store.instances[instance.0 as usize].module;
            // (A lazily woven body is woven by now: the function has run.)
            let body: &[u8] = match func_idx.checked_sub(m.num_imported_funcs) {
                Some(d) if (d as usize) < m.bodies.len() => m.body_bytes(func_idx).unwrap_or(&[]),
                _ => &[],
            };
            let extra = if body.len() > SMALL_BODY {
                work_extra(body.len(), shape(body).every_call)
            } else {
                0
            };
            base.saturating_add(extra)
        }
        FuncKind::Host(_) => base,
    };
    super::state_mut(store).counts.set_threshold(f, t);
    t
}

/// The interpreter is about to call Wasm function `f`: whether to call its
/// compiled code instead (jit, lazy: whenever it has code; dyn: once hot).
pub(crate) fn use_compiled(store: &mut Store, f: FuncAddr) -> bool {
    if store.config.tier == Tier::Dyn && super::state(store).counts.get(f) == COMPILED {
        // (Published code: never a function only the interpreter runs.)
        return true;
    }
    if store.config.tier == Tier::Int
        || (store.funcrefs[f.0 as usize].code.is_null() && !jit::awaits_preparation(store, f))
        || interp_only(store, f)
    {
        return false;
    }
    store.config.tier != Tier::Dyn || call_is_hot(store, f)
}

/// Dyn tier: the call counts, covering every function of the store, for
/// the interpreter's hot loop to count a call in place while the count stays
/// below the configured threshold (what [`call_is_hot`] does first: such a
/// call runs interpreted, and leaving the hot loop for it cost jsc's replay
/// about 300 instructions a call, 160k calls); null in the other tiers. The
/// pointer is valid until the counts change here, which the hot loop never
/// does.
pub(crate) fn hot_call_counts(store: &mut Store) -> *mut u32 {
    if store.config.tier != Tier::Dyn {
        return std::ptr::null_mut();
    }
    let n = store.funcs.len();
    let counts = &mut super::state_mut(store).counts.0;
    if counts.len() < n {
        counts.resize(n, 0);
    }
    counts.as_mut_ptr()
}

/// Whether `f` has compiled code (dyn tier: not just its interpreting stub).
#[inline]
pub(crate) fn is_compiled(store: &Store, f: FuncAddr) -> bool {
    if store.config.tier == Tier::Int {
        return false;
    }
    matches!(store.funcs[f.0 as usize].kind, FuncKind::Wasm { .. })
        && !store.funcrefs[f.0 as usize].code.is_null()
        && !interp_only(store, f)
        && (store.config.tier != Tier::Dyn || super::state(store).counts.get(f) == COMPILED)
}

/// Whether `f` is a Wasm function the JIT must not compile (the
/// interpreter's translator marked it: exception handling, Wasm GC): every
/// tier interprets it.
pub(crate) fn interp_only(store: &Store, f: FuncAddr) -> bool {
    match store.funcs[f.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => {
            let m = &store.instances[instance.0 as usize].module;
            func_idx >= m.num_imported_funcs && crate::exec::interp::load::interp_only(m, func_idx)
        }
        FuncKind::Host(_) => false,
    }
}

/// Run `f` with every Wasm function it calls interpreted, none of those
/// calls counting towards tier-up: for one-off calls at load time (the
/// monitors' static calls, one per matched site), where crossing into
/// compiled code and compiling what they call would cost more than it saves.
/// Dyn tier only; other tiers run `f` as they are.
pub(crate) fn interpreted<R>(store: &mut Store, f: impl FnOnce(&mut Store) -> R) -> R {
    if store.config.tier != Tier::Dyn {
        return f(store);
    }
    store.config.tier = Tier::Int;
    let r = f(store);
    store.config.tier = Tier::Dyn;
    r
}

/// From now on, compile every function on its first call, as the lazy tier
/// does, instead of interpreting it until hot: for code that runs once and
/// does all its work in one go (the monitors' `wasm:exit`: a report's loop
/// over thousands of rows, which the dyn tier would interpret for its first
/// iterations and hand to a compiler thread only then). Dyn tier only.
pub(crate) fn compile_from_now_on(store: &mut Store) {
    if store.config.tier == Tier::Dyn && jit::ensure_prepared(store).is_ok() {
        store.config.tier = Tier::Lazy;
    }
}

/// Dyn tier: a loop header of the interpreter ran its `n`-th iteration;
/// whether to enter compiled code there now (once, at the threshold).
pub(crate) fn loop_is_hot(store: &Store, n: u32) -> bool {
    n == store.config.dyn_threshold
}

#[cfg_attr(not(wizeng_jit), allow(dead_code))]
/// After an OSR entry into `f`: compile the function itself for its later
/// calls (on the compiler thread if the store has one), unless that was
/// decided already. Its loop counted past the threshold and never asks
/// again, so without this every later activation of `f` would be
/// interpreted until `f` has been called often enough itself.
pub(crate) fn settle(store: &mut Store, f: FuncAddr) {
    let c = super::state(store).counts.get(f);
    if c == COMPILED || c == NEVER || c == PENDING || c == AWAITED {
        return;
    }
    if c == WARM {
        compile_warm(store, f);
        return;
    }
    if interp_only(store, f) {
        return mark(store, f, NEVER);
    }
    budget::charge(store, f);
    if store.config.background_compile {
        match jit::request_func(store, f) {
            Ok(true) => return mark(store, f, PENDING),
            Ok(false) => {}
            Err(_) => return mark(store, f, NEVER),
        }
    }
    if jit::compile_lazily(store, f).is_err() {
        mark(store, f, NEVER);
    }
}

/// Dyn tier: the interpreter, running `caller`, calls compiled code. Such a
/// crossing costs several hundred instructions (the arguments through a
/// buffer, the entry trampoline, a jump buffer for traps), about what
/// interpreting a small call costs: it counts as a call of `caller`, so that
/// a function that keeps calling compiled code is compiled itself at its
/// next call, and its calls no longer cross (kittygame: a 16 KiB `update`
/// called 2 million small compiled functions).
#[inline]
pub(crate) fn count_crossing(store: &mut Store, caller: FuncAddr) {
    if store.config.tier != Tier::Dyn {
        return;
    }
    let counts = &mut super::state_mut(store).counts;
    let c = counts.get(caller);
    // (The final states stay; a count stops short of them.)
    if c < STATES - 1 {
        counts.set(caller, c + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the module's only function, locals included.
    fn body_of(wat: &str) -> Vec<u8> {
        let bytes = wat::parse_str(wat).unwrap();
        for p in wasmparser::Parser::new(0).parse_all(&bytes) {
            if let Ok(wasmparser::Payload::CodeSectionEntry(b)) = p {
                return bytes[b.range()].to_vec();
            }
        }
        panic!("no body")
    }

    #[test]
    fn shape_counts_the_bytes_every_call_runs() {
        // Top level: i32.const 1 (2 bytes), if (2), block (2), i32.const 0
        // (2), drop (1); nothing nested, and not the final `end`.
        let body = body_of(
            r#"(module (func
                 i32.const 1
                 (if (then (block) (loop) (block (nop) (nop))))
                 (block (nop))
                 i32.const 0 drop))"#,
        );
        assert_eq!(shape(&body), Shape { every_call: 9 });
        assert_eq!(shape(&[0xff]), Shape::default());
    }

    #[test]
    fn work_scales_the_size_term_down() {
        assert_eq!(work_extra(SMALL_BODY, 0), 0);
        let big = SMALL_BODY + 10_000;
        assert_eq!(work_extra(big, 0), 40_000);
        assert_eq!(work_extra(big, TYPICAL_CALL), 40_000);
        assert_eq!(work_extra(big, 10 * TYPICAL_CALL), 4_000);
        assert_eq!(size_extra(big), 40_000);
    }
}
