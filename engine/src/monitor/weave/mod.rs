//! Weaving: turn the match result (probe calls per site) into Wasm code, for
//! tiers that compile Wasm (the JIT). The woven module is the application with:
//! - one function import per monitor function used as a probe (module
//!   `wizeng:probe`, names `p0`, `p1`, ...), appended after the app's imports
//!   (so every defined function's index shifts by their count);
//! - at each site, the operands a probe needs saved into fresh scratch locals
//!   and pushed back, then a call per probe with constants, locals and saved
//!   operands as arguments (results dropped).
//!
//! Placement matches the interpreter: before the instruction; after a `loop`
//! opcode (branches to a loop re-enter its header, firing its probes each
//! iteration) and after an `end` (branches to a block arrive there); probes at
//! the function's final `end` sit after a wrapper block around the body, so
//! branches to the function's label reach them. `:after` probes follow the
//! instruction. A table maps every woven instruction back to its original pc.
//!
//! The app's code still never names a monitor's state: it calls imports the
//! engine binds to monitor functions.
//!
//! Block counters (with inlining, `InlineConfig::block_counts`; see
//! [`crate::monitor::blockcount`]): probes that are pure counter increments are not
//! emitted at their sites; each straight-line block with at least one of them
//! increments one counter (a mutable i64 global appended to the woven module's
//! globals) at its entry instead. The counts reach the monitors' memories
//! through fold functions appended after the app's functions, the first of
//! them exported as [`crate::monitor::blockcount::FOLD_EXPORT`] (`wizeng:fold`,
//! `[] -> []`), when the module is woven to run elsewhere (`--emit-woven`).
//! No probe of the woven code can read a counted memory (see
//! `blockcount::countable`). **Whoever runs a woven module must fold the
//! counters before a monitor's `wasm:exit`**: elsewhere by calling
//! `wizeng:fold`; the engine's own woven modules have no fold code, and
//! [`crate::monitor::blockcount::BlockCounters::settle`] folds the counters
//! natively (it also corrects a block left partly executed by a trap, from
//! `Woven::counters`). A module with a
//! start function gets no block counters (the fold could not be called if it
//! trapped during instantiation).
//!
//! The weave, step by step: `plan` holds the match result; `collect`
//! decides what is added (probe calls in order, inlining, frame intrinsics,
//! the layout of added imports, types and fold functions); `counters` plans
//! the block counters and their sections; `imports` writes the probe imports
//! and shifts the app's indices; `rewrite` re-encodes the module section by
//! section, `function` each function, `body` the code of each site,
//! `inlined` inlined monitor code; `provenance` maps woven pcs back.

pub use crate::core::provenance::{InlinedFrom, Origin};

use crate::core::error::LoadError;
use crate::core::module::Module;
use crate::core::types::{Extern, ValType};
use crate::monitor::blockcount::BlockCounters;
use crate::monitor::inline::{InlineConfig, InlineStats};
use crate::runtime::store::Store;

mod body;
mod collect;
mod counters;
mod function;
mod imports;
mod inlined;
mod plan;
mod provenance;
mod rewrite;

pub use plan::{FuncPlan, Plan, Recorder, Replay, SiteCalls, SiteStack};

/// Module name of the probe imports of a woven module.
pub const PROBE_MODULE: &str = "wizeng:probe";

pub struct Woven {
    pub bytes: Vec<u8>,
    pub origin: Origin,
    /// Imports of module [`PROBE_MODULE`] to define: name and what it is bound to
    /// (monitor functions, and the memories/globals inlined monitor code uses).
    pub imports: Vec<(String, Extern)>,
    pub stats: InlineStats,
    /// Block counters; before a monitor's `wasm:exit`, call
    /// [`BlockCounters::settle`] (or, outside this engine, the export
    /// [`crate::monitor::blockcount::FOLD_EXPORT`]).
    pub counters: BlockCounters,
}

fn enc_val(t: ValType) -> wasm_encoder::ValType {
    match t {
        ValType::I32 => wasm_encoder::ValType::I32,
        ValType::I64 => wasm_encoder::ValType::I64,
        ValType::F32 => wasm_encoder::ValType::F32,
        ValType::F64 => wasm_encoder::ValType::F64,
        ValType::V128 => wasm_encoder::ValType::V128,
        ValType::FuncRef => wasm_encoder::ValType::FUNCREF,
        ValType::ExternRef => wasm_encoder::ValType::EXTERNREF,
        ValType::ExnRef => wasm_encoder::ValType::EXNREF,
    }
}

fn err(msg: impl std::fmt::Display) -> LoadError {
    LoadError {
        kind: crate::core::error::LoadErrorKind::MonitorBind,
        offset: None,
        message: format!("weaving: {msg}"),
    }
}

/// Weave the plan into the module, inlining small monitor functions. With
/// `fold_export`, the block counters are folded by Wasm code the module
/// exports ([`crate::monitor::blockcount::FOLD_EXPORT`], for running it
/// elsewhere); without, [`BlockCounters::settle`] folds them itself (the
/// engine's woven modules: no fold code to compile).
pub fn weave(
    m: &Module,
    plan: &Plan,
    store: &Store,
    cfg: &InlineConfig,
    fold_export: bool,
) -> Result<Woven, LoadError> {
    let (targets, site_calls) = collect::site_calls(plan);
    let mut inlining = collect::Inlining::choose(store, cfg, &targets);
    let frame_uses = collect::inlined_frame_uses(store, &site_calls, &inlining.inline);
    let (counters, func_blocks) =
        counters::plan_block_counters(m, plan, store, cfg, &site_calls, &mut inlining.needs)?;
    let mut stats = collect::stats(&counters, &func_blocks, &site_calls, &inlining);
    let layout = collect::Layout::new(m, store, inlining, frame_uses, &counters, fold_export);
    let probe_imports = imports::ProbeImports::new(store, &layout);
    let mut rw = rewrite::Rewriter::new(
        m,
        plan,
        store,
        cfg,
        &layout,
        &probe_imports,
        &func_blocks,
        counters.blocks.len(),
    );
    let bytes = rw.rewrite()?;
    stats.specialized += rw.specialized;
    let mut origin = std::mem::take(&mut rw.prov).into_origin(m.num_imported_funcs, layout.shift());
    origin.mem_imports = layout.mem_imports;
    origin.mem_shift = layout.needs.memories.len() as u32;
    Ok(Woven {
        bytes,
        origin,
        imports: probe_imports.bound,
        stats,
        counters,
    })
}
