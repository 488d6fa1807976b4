//! The tier-up policy: which code runs a call, and when the dyn tier compiles.
//!
//! The interpreter asks here before each call into a Wasm function and at
//! each hot loop header; the JIT ([`super::jit`]) provides the mechanisms
//! (compile one function, enter a loop by OSR). Per function (by store
//! address) the dyn tier keeps a call count, or one of two final states:
//! [`COMPILED`] (calls go to compiled code) or [`NEVER`] (it failed to compile
//! and stays interpreted).

use super::jit;
use crate::core::types::FuncAddr;
use crate::runtime::store::{FuncKind, Store, Tier};

/// The function has compiled code that calls use.
pub(crate) const COMPILED: u32 = u32::MAX;
/// The function could not be compiled; it stays interpreted.
pub(crate) const NEVER: u32 = u32::MAX - 1;

/// Dyn tier: per function, calls so far or a final state.
#[derive(Default)]
pub(crate) struct Counts(Vec<u32>);

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
}

/// Record a final state for `f` ([`COMPILED`] or [`NEVER`]).
pub(crate) fn mark(store: &mut Store, f: FuncAddr, state: u32) {
    super::state_mut(store).counts.set(f, state);
}

/// Dyn tier: count a call of `f` (a Wasm function of a JIT-prepared instance)
/// and compile it once it is hot; whether it now has compiled code.
pub(crate) fn call_is_hot(store: &mut Store, f: FuncAddr) -> bool {
    let threshold = store.config.dyn_threshold;
    let counts = &mut super::state_mut(store).counts;
    let c = counts.get(f);
    match c {
        COMPILED => return true,
        NEVER => return false,
        _ => {}
    }
    counts.set(f, c + 1);
    if c + 1 < threshold {
        return false;
    }
    if interp_only(store, f) || jit::compile_lazily(store, f).is_err() {
        // Stays interpreted (the interpreter ran it so far and will go on).
        mark(store, f, NEVER);
        return false;
    }
    true
}

/// The interpreter is about to call Wasm function `f`: whether to call its
/// compiled code instead (jit, lazy: whenever it has code; dyn: once hot).
pub(crate) fn use_compiled(store: &mut Store, f: FuncAddr) -> bool {
    if store.config.tier == Tier::Int
        || store.funcrefs[f.0 as usize].code.is_null()
        || interp_only(store, f)
    {
        return false;
    }
    store.config.tier != Tier::Dyn || call_is_hot(store, f)
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
            func_idx >= m.num_imported_funcs
                && crate::exec::interp::load::func_code(m, func_idx).interp_only
        }
        FuncKind::Host(_) => false,
    }
}

/// Dyn tier: a loop header of the interpreter ran its `n`-th iteration;
/// whether to enter compiled code there now (once, at the threshold).
pub(crate) fn loop_is_hot(store: &Store, n: u32) -> bool {
    n == store.config.dyn_threshold
}

#[cfg_attr(not(wizeng_jit), allow(dead_code))]
/// After an OSR entry into `f`: compile the function itself for its later
/// calls, unless that was decided already.
pub(crate) fn settle(store: &mut Store, f: FuncAddr) {
    let c = super::state(store).counts.get(f);
    if c != COMPILED
        && c != NEVER
        && (interp_only(store, f) || jit::compile_lazily(store, f).is_err())
    {
        mark(store, f, NEVER);
    }
}
