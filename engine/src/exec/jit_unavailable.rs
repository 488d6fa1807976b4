//! The JIT's interface on targets it does not support (it needs Cranelift's
//! code generator and our trap handling, written for x86-64 Linux): the same
//! functions, so the rest of the engine builds unchanged, none of which ever
//! produces compiled code. Every function keeps a null code pointer, so the
//! tiering policy never calls compiled code; `Tier::Jit`/`Lazy` instantiation
//! fails with a clear message and the CLI's default mode is the interpreter.

use crate::core::error::Trap;
use crate::core::types::{FuncAddr, InstanceId, Value};
use crate::runtime::store::Store;

/// Whether this build has the JIT tiers.
pub const AVAILABLE: bool = false;

const WHY: &str = "the JIT is not available on this target (x86-64 Linux only); use --mode=int";

/// Counters the CLI reports; they stay zero.
#[derive(Default)]
pub(crate) struct StoreJit {
    pub compile_time: std::time::Duration,
    pub profiling: profiling::Profiling,
    pub dyn_compiled: usize,
    pub osr_entries: usize,
}

pub(crate) mod profiling {
    /// Perf map and jitdump output: nothing is compiled, so nothing is written.
    #[derive(Default)]
    pub struct Profiling {
        pub perf_map: Option<std::fs::File>,
        pub jitdump: Option<JitDump>,
    }

    pub struct JitDump;

    impl JitDump {
        pub fn create() -> std::io::Result<JitDump> {
            Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                super::WHY,
            ))
        }
    }
}

pub(crate) mod signals {
    /// The host stack's bounds are not queried here (0: unknown); nested
    /// runs are limited by count instead (`interp::exec`).
    pub(crate) fn stack_limit() -> usize {
        0
    }
}

pub(crate) fn prepare_or_defer(_: &mut Store, _: InstanceId) -> Result<(), String> {
    Err(WHY.into())
}

/// Nothing is ever prepared, so nothing waits.
pub(crate) fn awaits_preparation(_: &Store, _: FuncAddr) -> bool {
    false
}

/// Nothing to set up (nothing is ever compiled).
pub(crate) fn setup_types(_: &Store) -> Option<usize> {
    None
}

pub(crate) fn begin_prepare(_: &mut Store) -> bool {
    false
}

pub(crate) fn setting_up(_: &Store) -> bool {
    false
}

pub(crate) fn ensure_prepared(_: &mut Store) -> Result<(), String> {
    Err(WHY.into())
}

pub(crate) fn compile_lazily(_: &mut Store, _: FuncAddr) -> Result<(), String> {
    Err(WHY.into())
}

pub(crate) fn osr_enter(
    _: &mut Store,
    _: usize,
    _: &crate::exec::interp::code::Compiled,
    _: u32,
    _: &[u64],
) -> Result<crate::exec::tiering::OsrEntry, Trap> {
    Ok(crate::exec::tiering::OsrEntry::Never)
}

/// No compiled code, so no cache.
pub(crate) fn cache_hits_by_source(_: &Store) -> (usize, usize) {
    (0, 0)
}

pub(crate) fn cache_stats(_: &Store) -> (usize, usize, usize) {
    (0, 0, 0)
}

/// No compiler thread here.
pub(crate) fn background_stats(_: &Store) -> crate::exec::api::BackgroundStats {
    Default::default()
}

pub(crate) fn poll_background(_: &mut Store) {}

/// No compiled code, so no warm start.
pub(crate) fn enable_warm(_: &mut Store) {}

pub(crate) fn save_warm(_: &mut Store) {}

pub(crate) fn warm_stats(_: &Store) -> crate::exec::api::WarmStats {
    Default::default()
}

pub(crate) fn warm_installed(_: &mut Store) {}

pub(crate) fn finish_background(_: &mut Store) {}

pub(crate) fn request_func(_: &mut Store, _: FuncAddr) -> Result<bool, String> {
    Err(WHY.into())
}

/// Never called: no function has compiled code here.
pub(crate) fn invoke(_: &mut Store, _: FuncAddr, _: &[Value]) -> Result<Vec<Value>, Trap> {
    Err(Trap::host(WHY))
}

/// Never called: no function has compiled code here.
pub(crate) fn invoke_slots(_: &mut Store, _: FuncAddr, _: &mut [u64]) -> Result<(), Trap> {
    Err(Trap::host(WHY))
}

/// The jit tier's prepared entry into a function: none here.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry;

/// No function has compiled code here.
pub(crate) fn entry(_: &Store, _: FuncAddr) -> Option<Entry> {
    None
}

/// Never called: [`entry`] gives none.
pub(crate) fn invoke_slots_via(_: &mut Store, _: Entry, _: &mut [u64]) -> Result<(), Trap> {
    Err(Trap::host(WHY))
}

/// Globals always live in the store here.
pub(crate) fn set_global_slot(store: &mut Store, inst: InstanceId, idx: u32, v: u64) {
    let g = store.instance(inst).globals[idx as usize].0 as usize;
    store.globals[g].value = v;
}

/// Globals always live in the store here.
pub(crate) fn global_slot(store: &Store, inst: InstanceId, idx: u32) -> u64 {
    let idata = store.instance(inst);
    store.globals[idata.globals[idx as usize].0 as usize].value
}
