//! The operations that run code, as methods of the runtime's types: creating
//! a store with the tiers' state, calling a function, instantiating (which
//! compiles and runs the start function), and the JIT's statistics. The
//! runtime defines the data; these methods live here because running code is
//! this layer's job.

use std::sync::Arc;

use super::interp::{dynsites::DynSites, frames::FrameView};
use super::jit;
use crate::core::error::{InstantiateError, Trap};
use crate::core::module::Module;
use crate::core::types::{Extern, FuncAddr, InstanceId, Value};
use crate::runtime::store::{Caller, Config, Linker, Store, Tier};

/// What the tiers keep per store (`Store::tiers`).
#[derive(Default)]
pub(crate) struct TierState {
    /// JIT state: trampolines, compiled modules, host contexts, counters.
    pub jit: jit::StoreJit,
    /// The call chain published by a suspended interpreter while a probe that
    /// takes `frame` runs.
    pub frame_view: Option<FrameView>,
    /// Dynamic probe sites patched into interpreter code.
    pub dyn_sites: DynSites,
    /// The dyn tier's call counts (`tiering.rs`).
    pub counts: super::tiering::Counts,
    /// Interpreters suspended in calls out of them, for the GC's roots.
    pub gc_suspended: Vec<super::interp::gc_roots::Suspended>,
    /// Plain bodies' direct increments (`interp::plain`): set when the dyn
    /// tier interprets a lazily woven module's functions from plain bodies.
    pub plain_direct: Option<super::interp::plain::DirectFn>,
}

/// The tiers' state of `store`. Every store is made by [`Store::new`], which
/// puts a [`TierState`] there, so the downcast cannot fail.
pub(crate) fn state(store: &Store) -> &TierState {
    store
        .tiers
        .downcast_ref()
        .expect("stores are created with TierState")
}

pub(crate) fn state_mut(store: &mut Store) -> &mut TierState {
    store
        .tiers
        .downcast_mut()
        .expect("stores are created with TierState")
}

impl Default for Store {
    fn default() -> Self {
        Store::new(Config::default())
    }
}

impl Store {
    pub fn new(config: Config) -> Store {
        Store::with_tiers(config, Box::<TierState>::default())
    }

    /// Call a function with arguments; returns its results.
    pub fn invoke(&mut self, f: FuncAddr, args: &[Value]) -> Result<Vec<Value>, Trap> {
        if f.0 as usize >= self.funcs.len() {
            return Err(Trap::host(format!("function {} is not in this store", f.0)));
        }
        let ty = self.func_type(f);
        if args.len() != ty.params.len()
            || args.iter().zip(ty.params.iter()).any(|(a, t)| a.ty() != *t)
        {
            return Err(Trap::host(format!(
                "wrong arguments for a function of type {ty}"
            )));
        }
        for a in args {
            self.check_value(a)?;
        }
        self.check_args(f, args)?;
        super::tiering::run_starts(self);
        super::tiering::warm_up(self, f);
        if super::tiering::is_compiled(self, f) {
            jit::invoke(self, f, args)
        } else {
            super::interp::invoke(self, f, args)
        }
    }

    /// Instantiate a module with resolved imports (in the module's import
    /// order): allocate, compile (tiers other than the interpreter), initialise
    /// segments, run the start function.
    pub fn instantiate_with(
        &mut self,
        module: &Arc<Module>,
        imports: &[Extern],
    ) -> Result<InstanceId, InstantiateError> {
        let tier = self.config.tier;
        let id = self.instantiate_parts(module, imports, &mut |store, id| {
            if tier == Tier::Int {
                return Ok(());
            }
            jit::prepare_or_defer(store, id)
                .map_err(|e| Trap::host(format!("JIT compilation failed: {e}")))
        })?;
        if let Some(s) = module.start {
            let f = self.instance(id).funcs[s as usize];
            self.invoke(f, &[])?;
        }
        Ok(id)
    }

    /// Append one line per compiled function to this perf map file.
    pub fn set_perf_map(&mut self, f: std::fs::File) {
        state_mut(self).jit.profiling.perf_map = Some(f);
    }

    /// Write a jitdump file (`/tmp/jit-<pid>.dump`) for `perf inject --jit`.
    pub fn enable_jitdump(&mut self) -> std::io::Result<()> {
        state_mut(self).jit.profiling.jitdump = Some(jit::profiling::JitDump::create()?);
        Ok(())
    }

    /// Dyn tier: functions compiled and loop entries (OSR) compiled so far.
    pub fn dyn_stats(&self) -> (usize, usize) {
        let j = &state(self).jit;
        (j.dyn_compiled, j.osr_entries)
    }

    /// Dyn tier with `Config::background_compile`: the compiler thread's work.
    pub fn background_stats(&self) -> BackgroundStats {
        jit::background_stats(self)
    }

    /// The compiled-code cache's counters so far: (hits, misses, entries
    /// rejected as damaged).
    pub fn code_cache_stats(&self) -> (usize, usize, usize) {
        jit::cache_stats(self)
    }

    /// Of the code cache's hits, the functions whose entry was keyed by
    /// their source (placed with no IR built): (all, those of woven modules).
    pub fn code_cache_hits_by_source(&self) -> (usize, usize) {
        jit::cache_hits_by_source(self)
    }

    /// Dyn tier with a code cache: remember which functions got hot, per
    /// module, in the cache directory at [`Store::save_warm_start`], and
    /// compile the functions a module's record names at their first call
    /// (for instances made from now on). Only the timing of compiles
    /// changes; a damaged or stale record is ignored.
    pub fn enable_warm_start(&mut self) {
        jit::enable_warm(self);
    }

    /// Dyn tier: compile a hot function or loop that no warm-start record
    /// names only once it has run, since it got hot, twice as long as its
    /// compile would take (estimated), and the run (from its first call) as
    /// long as every compile granted, so that a short run is not made longer
    /// by compiling code it will not run long enough to pay back. Until
    /// then it asks again after another threshold's worth of calls or
    /// iterations. Off by default: tier-up happens at exactly the threshold.
    pub fn enable_compile_budget(&mut self) {
        super::tiering::enable_budget(self);
    }

    /// Tier-up requests the compile budget put off so far (see
    /// [`Store::enable_compile_budget`]).
    pub fn compile_budget_deferrals(&self) -> usize {
        state(self).counts.2.deferred
    }

    /// Write the warm-start records of this run (see
    /// [`Store::enable_warm_start`]; nothing if it was not enabled).
    pub fn save_warm_start(&mut self) {
        jit::save_warm(self);
    }

    /// What the warm-start records did so far.
    pub fn warm_start_stats(&self) -> WarmStats {
        jit::warm_stats(self)
    }

    /// Dyn tier: wait until the compiler thread has finished every request
    /// made so far and publish its code (the tier itself never waits; this
    /// makes a run's tier state deterministic, e.g. for tests).
    pub fn finish_background_compiles(&mut self) {
        jit::finish_background(self);
    }

    /// Functions of the store's instances that every tier interprets (the
    /// JIT cannot compile them: exception handling).
    pub fn interp_only_funcs(&self) -> usize {
        self.instances
            .iter()
            .map(|i| {
                let code = crate::exec::interp::load::module_code(&i.module);
                // (Untranslated functions never are.)
                code.translated().filter(|c| c.interp_only).count()
            })
            .sum()
    }

    /// Time spent compiling with the JIT so far.
    pub fn jit_compile_time(&self) -> std::time::Duration {
        state(self).jit.compile_time
    }
}

impl Caller<'_> {
    /// Call a function of the store from a host function.
    pub fn call(&mut self, f: FuncAddr, args: &[Value]) -> Result<Vec<Value>, Trap> {
        self.store.invoke(f, args)
    }
}

impl Linker {
    /// Resolve `module`'s imports by name and instantiate it.
    pub fn instantiate(
        &self,
        store: &mut Store,
        module: &Arc<Module>,
    ) -> Result<InstanceId, InstantiateError> {
        let imports = self.resolve(store, module)?;
        store.instantiate_with(module, &imports)
    }
}

/// What the dyn tier's warm-start records did ([`Store::warm_start_stats`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct WarmStats {
    /// Functions the records read named.
    pub named: usize,
    /// Named functions compiled at their first call (their code was cached).
    pub compiled_first: usize,
    /// Named functions handed to the compiler thread at instantiation
    /// (the run that recorded them had not finished compiling them).
    pub prefetched: usize,
    /// Records ignored because they failed a check.
    pub rejected: usize,
}

/// What the dyn tier's compiler thread did ([`Store::background_stats`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct BackgroundStats {
    /// Requests compiled and collected (functions and loop entries).
    pub done: usize,
    /// Requests still being compiled.
    pub in_flight: usize,
    /// Compiler-thread time of the collected requests (with the requests
    /// the store's thread took back and compiled itself).
    pub compile_time: std::time::Duration,
    /// Requests the store's thread needed before the compiler thread had
    /// started them: taken back and compiled there instead of waited for.
    pub taken_back: usize,
    /// Store-thread time spent placing their code in executable memory.
    pub link_time: std::time::Duration,
    /// JIT set-ups (a module's trampolines) the compiler thread built, or
    /// the store's thread took back: the first tier-up's.
    pub setups: usize,
}
