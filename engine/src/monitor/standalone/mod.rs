//! Standalone woven modules (`wizeng --emit-woven=out.wasm`): the application
//! with its probes woven in (as the JIT compiles it, see [`crate::monitor::weave`]) and
//! every monitor instance merged into ONE module that runs on any engine with
//! WASI preview1 and multi-memory (e.g. `wasmtime run`), without `--monitors`.
//!
//! What the merged module contains, in each index space after the app's own
//! entities (so the app's indices stay put, apart from defined functions,
//! which shift by the WASI imports added):
//! - every instance in the store at weaving time (the monitors and their
//!   `+lib` libraries) with its state *as it is after matching*: the
//!   monitors' start functions and static calls have already run, so each
//!   memory is written as its current bytes (active data segments of the
//!   non-zero runs), each global with its current value, each table with its
//!   current contents; the monitors' start functions are not kept;
//! - the woven app's `wizeng:probe` imports resolved to those merged monitor
//!   functions, memories and globals (static arguments and static call
//!   results are already constants in the woven code);
//! - the `wizeng` imports monitors use (`puts`, `puti`, `putc`, `error`,
//!   `rdtsc`, monitor ABI A6) implemented in Wasm on WASI `fd_write` /
//!   `clock_time_get`, through a helper memory and a scratch area at address 0
//!   of the app's memory 0 that is saved and restored around every call, so the
//!   app never sees it; `wizeng:frame_accessor` functions trap (probes that
//!   take `frame` are only merged when the weave turned every use of the
//!   handle into an intrinsic, so the only calls left get no frame, where the
//!   engine traps too); any other host import of a monitor stays an import;
//! - the entry export (`_start`, else `main`) wrapped: every monitor's
//!   `wasm:begin` (in `--monitors` order), the app's entry, then the exit
//!   hooks; the app's WASI `proc_exit` import wrapped to run the exit hooks
//!   first. The three steps are also exported separately ([`EXPORT_BEGIN`],
//!   [`EXPORT_APP_START`], [`EXPORT_EXIT`]) for timing the app alone. The exit hooks run once: the woven block counters' fold function
//!   (export `wizeng:fold`, if the weave counted blocks), then every monitor's
//!   `wasm:exit`.
//!
//! Not representable: probes that take `frame` other than through inlined
//! intrinsics (`Plan::frames_need_interpreter`) and dynamic probes
//! (`whamm:dyninstr`) need the engine, so they are an error; `wasm:exit`
//! after a trap does not run (a module cannot catch its own traps).

//!
//! The merge, step by step (each step in its own file):
//! `parts` decodes the sections of the woven app and of every instance;
//! `remap` binds the app's imports, numbers every entity of the merged
//! module and builds each source module's index map; `shims` implements the
//! provided `wizeng` imports in Wasm (on WASI); `lifecycle` wraps the entry
//! point and `proc_exit` with the begin and exit hooks; `encode` writes the
//! sections, with the monitors' state from `snapshot`. `builder` collects
//! the types, imports and helper functions the merge adds.

use std::collections::HashMap;

use crate::core::error::{LoadError, LoadErrorKind};
use crate::core::module::Module;
use crate::core::types::{Extern, FuncAddr};
use crate::monitor::inline::InlineConfig;
use crate::monitor::weave::Plan;
use crate::runtime::store::{InstanceData, Store};

mod builder;
mod encode;
mod lifecycle;
mod parts;
mod remap;
mod shim_code;
mod shims;
mod snapshot;

use builder::Builder;
use encode::Merged;
use parts::Parts;

/// Exports of the merged module for a harness that times the app alone (as
/// `wizeng --metrics` does): call [`EXPORT_BEGIN`], then [`EXPORT_APP_START`]
/// (the app's entry; a `proc_exit` in it no longer runs the exit hooks), then
/// [`EXPORT_EXIT`] (also after the app's `proc_exit`). The entry export itself
/// does all three.
pub const EXPORT_BEGIN: &str = "wizeng:begin";
pub const EXPORT_APP_START: &str = "wizeng:app_start";
pub const EXPORT_EXIT: &str = "wizeng:exit";

/// The WASI module the merged module imports from.
pub const WASI_MODULE: &str = "wasi_snapshot_preview1";

/// Each monitor's `wasm:begin` and `wasm:exit`, in `--monitors` order.
#[derive(Default, Debug, Clone)]
pub struct Lifecycle {
    pub begin: Vec<FuncAddr>,
    pub exit: Vec<FuncAddr>,
}

fn unsupported(msg: impl std::fmt::Display) -> LoadError {
    LoadError {
        kind: LoadErrorKind::Unsupported,
        offset: None,
        message: format!("standalone woven module: {msg}"),
    }
}

fn reencode_err(e: wasm_encoder::reencode::Error<std::convert::Infallible>) -> LoadError {
    unsupported(e)
}

/// Weave `plan` into `app` (as the JIT would, with `cfg`) and merge the
/// result with every instance of `store` into one standalone module.
pub fn emit(
    app: &Module,
    plan: &Plan,
    store: &Store,
    cfg: &InlineConfig,
    dynamic: bool,
    life: &Lifecycle,
) -> Result<Vec<u8>, LoadError> {
    if dynamic {
        return Err(unsupported(
            "a monitor imports whamm:dyninstr (probes inserted at run time need the engine)",
        ));
    }
    // Inlined frame intrinsics need no engine; other frame uses do.
    if plan.frames_need_interpreter(app, store, cfg) {
        return Err(unsupported(
            "probes that take `frame` need the engine's frame accessors",
        ));
    }
    if plan.is_empty() {
        return merge(&app.bytes, &[], store, life);
    }
    let w = crate::monitor::weave::weave(app, plan, store, cfg, true)?;
    merge(&w.bytes, &w.imports, store, life)
}

/// Merge a (woven) app, whose `wizeng:probe` imports are bound as in
/// `probe_imports`, with every instance of `store` into one module.
pub fn merge(
    app_bytes: &[u8],
    probe_imports: &[(String, Extern)],
    store: &Store,
    life: &Lifecycle,
) -> Result<Vec<u8>, LoadError> {
    let app = Parts::parse(app_bytes)?;
    let probes: HashMap<&str, Extern> = probe_imports
        .iter()
        .map(|(n, e)| (n.as_str(), *e))
        .collect();
    let insts: Vec<&InstanceData> = store.instances.iter().collect();
    let mons: Vec<Parts> = insts
        .iter()
        .map(|i| Parts::parse(&i.module.bytes))
        .collect::<Result<_, _>>()?;

    // Types: the app's, each instance's, then the helpers'.
    let (types_base, num_types) = remap::type_bases(&app, &mons);
    let mut b = Builder::new(num_types);
    let app_imports = remap::AppImports::bind(&app, &probes)?;
    let mon_imports = shims::MonitorImports::classify(store, &insts);
    if mon_imports.needs_io() && app.memory0_is_64() {
        return Err(unsupported(
            "the monitors' output goes through WASI, which needs the app's memory 0 \
             to be 32-bit, and it is 64-bit",
        ));
    }
    let added = shims::add_imports(&mut b, &app_imports, &mon_imports)?;
    let layout = remap::Layout::number(&app, &app_imports, &insts, &mut b, mon_imports.needs_io());
    let mut app_map = layout.app_map(&app, &app_imports)?;
    let mut mon_maps = layout.monitor_maps(&insts, &mon_imports, &added, &types_base)?;
    let io = shim_code::Io::new(layout.helper_mem, layout.app_has_memory);
    shims::add_helpers(
        &mut b,
        &io,
        store,
        &insts,
        &mon_imports,
        &added,
        &layout.addrs,
        &mut mon_maps,
    )?;
    let hooks = lifecycle::add_hooks(
        &mut b,
        &app,
        &mut app_map,
        store,
        &layout,
        &app_imports,
        life,
    )?;

    Merged {
        store,
        app,
        app_map,
        insts,
        mons,
        mon_maps,
        types_base,
        addrs: layout.addrs,
        b,
        helper_mem: layout.helper_mem,
        wasi_memory: mon_imports.needs_io().then_some(io.scratch_mem),
        entry_name: hooks.entry_name,
        entry_wrapper: hooks.entry_wrapper,
        flags: layout.flags,
        exports: hooks.exports,
    }
    .encode()
}
