//! The JIT tier: every function of a module compiled with Cranelift
//! (cranelift-wasm 0.112 + cranelift-jit), sharing the runtime (store,
//! memories, tables, globals, host functions) with the interpreter.
//!
//! - `env.rs`: the `FuncEnvironment` (how Wasm maps onto `vm.rs` structures).
//! - `vm.rs`: vmctx layout and the stable views JIT code reads.
//! - `libcalls.rs`: runtime functions JIT code calls.
//! - `signals.rs` + `trap_catch.c`: traps (illegal-instruction traps and faults in
//!   JIT code) become typed `Trap`s with function and pc.
//!
//! Code is compiled once per module (cached in the module) and shared by its
//! instances; each instance has a vmctx block. Calls: defined functions directly,
//! imports and `call_indirect` through (code, vmctx) pairs, host functions through
//! per-signature trampolines.

/// Whether this build has the JIT tiers (x86-64 Linux).
pub const AVAILABLE: bool = true;

pub(crate) mod background;
mod by_source;
pub mod cache;
pub mod cache_limit;
pub(crate) mod env;
pub(crate) mod libcalls;
mod located;
pub(crate) mod osr;
pub mod profiling;
pub(crate) mod signals;
pub(crate) mod tramps;
mod warm;

use std::cell::RefCell;
// Small integer keys looked up on every crossing between the tiers: Fx, not SipHash.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;
use std::sync::Arc;

use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{self, MemFlags, Signature, UserFuncName};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module as _};

use crate::core::error::{Trap, TrapKind, TrapSite};
use crate::core::module::Module;
use crate::core::types::{FuncAddr, InstanceId, ValType, Value};
use crate::exec::tiering::OsrEntry;
use crate::runtime::store::{FuncKind, Store};
use crate::runtime::vm::{self, VmLayout};
use cache::CodeCache;
use env::{wasm_sig, Env};
pub(crate) use tramps::buffer_slots;
pub(crate) use warm::{
    enable as enable_warm, installed as warm_installed, save as save_warm, stats as warm_stats,
};

/// Per-function metadata for traps and profilers.
pub struct FuncInfo {
    pub func_idx: Option<u32>,
    pub name: String,
    pub start: usize,
    pub len: usize,
    /// (code offset, trap code), sorted.
    pub traps: Vec<(u32, ir::TrapCode)>,
    /// (code start, code end, module byte offset), sorted.
    pub srclocs: Vec<(u32, u32, u32)>,
    /// Start of the function body in the module (pc 0).
    pub body_start: u32,
    /// Code ranges of woven probe calls: (start, end, monitor export).
    pub probe_calls: Vec<(u32, u32, std::sync::Arc<str>)>,
    /// Code ranges of inlined monitor code and where it came from.
    pub inlined: Vec<(u32, u32, crate::core::provenance::InlinedFrom)>,
    /// The original body (from its local declarations), to locate the memory
    /// access behind a guard-page fault (not for woven modules).
    pub body: Option<std::sync::Arc<[u8]>>,
}

impl FuncInfo {
    /// A trampoline or stub: no Wasm function behind it.
    fn stub(
        name: String,
        start: *const u8,
        len: usize,
        traps: Vec<(u32, ir::TrapCode)>,
    ) -> FuncInfo {
        FuncInfo {
            func_idx: None,
            name,
            start: start as usize,
            len,
            traps,
            srclocs: Vec::new(),
            body_start: 0,
            probe_calls: Vec::new(),
            inlined: Vec::new(),
            body: None,
        }
    }
}

/// A module's compiled code.
pub struct JitCode {
    module: Option<JITModule>,
    pub layout: VmLayout,
    /// Code of each defined function.
    pub funcs: Vec<*const u8>,
    /// Per module type index: host trampoline and entry trampoline.
    pub host_tramps: Vec<*const u8>,
    pub entry_tramps: Vec<*const u8>,
    /// Per module type index: the lazy tier's compile-on-first-call stub.
    pub lazy_stubs: Vec<*const u8>,
    /// The trampoline of clock functions (`Linker::clock`), if the module
    /// has their type `[] -> [i64]`.
    pub clock_tramp: Option<*const u8>,
    pub infos: Vec<FuncInfo>,
    pub compile_time: std::time::Duration,
}

impl Drop for JitCode {
    fn drop(&mut self) {
        signals::unregister(self.infos.iter().map(|i| i.start));
        if let Some(m) = self.module.take() {
            // SAFETY: the code is dropped with the last instance using it (the
            // store), after which nothing can call into it.
            unsafe { m.free_memory() };
        }
    }
}

/// Store-wide JIT state.
#[derive(Default)]
pub struct StoreJit {
    /// Per store type id: (host trampoline, entry trampoline).
    tramps: HashMap<u32, (*const u8, *const u8)>,
    /// The clock functions' trampoline (`JitCode::clock_tramp` of the first
    /// module that has one).
    clock_tramp: Option<*const u8>,
    /// Host function contexts (boxed: JIT code holds pointers to them).
    host_ctxs: Vec<Box<libcalls::HostCtx>>,
    /// A host function's error while called from JIT code.
    pub(crate) pending_trap: Option<Trap>,
    /// Number of store functions whose funcref is final.
    filled: usize,
    /// Total compile time (for --metrics).
    pub compile_time: std::time::Duration,
    /// Perf map / jitdump output, if enabled.
    pub profiling: profiling::Profiling,
    /// Functions compiled one by one (lazy tier).
    lazy_code: Vec<Rc<JitCode>>,
    /// Store addresses of the functions already compiled lazily.
    lazy_done: HashSet<u32>,
    /// Dyn tier: OSR entries by (instance, function index, loop pc); `None`
    /// if the loop cannot be entered.
    osr_code: HashMap<(u32, u32, u32), Option<Rc<JitCode>>>,
    /// Number of functions compiled and of OSR entries (for --metrics).
    pub dyn_compiled: usize,
    pub osr_entries: usize,
    /// Dyn tier: the compiler thread, and the time spent linking its code.
    pub(crate) background: background::Background,
    pub background_link_time: std::time::Duration,
    /// OSR entries the compiler thread is working on.
    osr_pending: HashSet<(u32, u32, u32)>,
    /// The compiled-code cache (`Config::code_cache`), once opened.
    cache: Option<Arc<CodeCache>>,
    /// Dyn tier: instances whose JIT preparation waits for the first tier-up
    /// request (in instantiation order), and whether one was made.
    unprepared: Vec<InstanceId>,
    started: bool,
    /// Dyn tier: instances whose set-up the compiler thread is building
    /// ([`begin_prepare`]), with the tier it is built for and the layout
    /// it gives the instance (made once: jsc's 7,000 functions took 76k
    /// instructions a request).
    setting_up: Vec<(InstanceId, crate::runtime::store::Tier, VmLayout)>,
    /// Compiles finished before their instance was set up: installed once
    /// it is.
    parked: Vec<background::Finished>,
    /// Set-ups the compiler thread built, linked once some code needs them
    /// (a run that ends first never pays for linking them).
    built: Vec<background::Finished>,
    /// Dyn tier: warm-start records (`warm.rs`).
    warm: warm::Warm,
}

thread_local! {
    static ISA: RefCell<Option<cranelift_codegen::isa::OwnedTargetIsa>> = const { RefCell::new(None) };
}

/// The host ISA with our flags (built once per thread).
fn isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    if let Some(i) = ISA.with(|c| c.borrow().clone()) {
        return Ok(i);
    }
    let i = build_isa()?;
    ISA.with(|c| *c.borrow_mut() = Some(i.clone()));
    Ok(i)
}

fn build_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    build_isa_at("speed")
}

/// The host ISA with our flags and Cranelift's `opt_level` `opt`.
fn build_isa_at(opt: &str) -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    flags.set("opt_level", opt).map_err(|e| e.to_string())?;
    flags
        .set("preserve_frame_pointers", "true")
        .map_err(|e| e.to_string())?;
    flags
        .set(
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        )
        .map_err(|e| e.to_string())?;
    let isa_builder = cranelift_native::builder().map_err(|e| e.to_string())?;
    isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())
}

/// The vmctx layout of `m`. With `inline_globals` (every tier but dyn, where
/// the interpreter shares the instance's globals through the store) and
/// `Module::private_globals_in_vmctx`, the module's own globals that it does
/// not export live in the vmctx: nothing but its compiled code can name them
/// (initialisers and segment offsets, evaluated by the store, run before any
/// of that code).
fn layout_of(m: &Module, inline_globals: bool) -> VmLayout {
    let n_globals = m.num_imported_globals as usize + m.globals.len();
    let n_tables = m.num_imported_tables as usize + m.tables.len();
    let n_mems = m.num_imported_memories as usize + m.memories.len();
    let mut l = VmLayout::new(
        m.types.len(),
        n_mems,
        n_globals,
        n_tables,
        m.num_funcs() as usize,
    );
    // A function that runs interpreted reads and writes globals in the
    // store: then no global may live in the vmctx instead.
    let interpreted = crate::exec::interp::load::has_interp_only(m);
    if inline_globals && m.private_globals_in_vmctx && !interpreted {
        for i in m.num_imported_globals as usize..n_globals {
            // A vmctx slot holds 8 bytes: a v128 stays in the store; so does
            // a reference that may name a heap object (a GC root).
            let ty = m.global_type(i as u32).ty;
            l.inline_globals[i] = ty != crate::core::types::ValType::V128
                && (!ty.is_ref() || ty == crate::core::types::ValType::FuncRef);
        }
        for e in &m.exports {
            if e.kind == crate::core::types::ExternKind::Global {
                l.inline_globals[e.index as usize] = false;
            }
        }
    }
    l
}

/// Whether compiled code of a store in `tier` keeps unexported globals in
/// the vmctx (`layout_of`).
fn inline_globals(tier: crate::runtime::store::Tier) -> bool {
    tier != crate::runtime::store::Tier::Dyn
}

/// The JIT code of an instance, if it was prepared for a compiled tier.
fn jit_code(idata: &crate::runtime::store::InstanceData) -> Option<&JitCode> {
    idata.jit_code.as_ref()?.downcast_ref()
}

/// The current value of global `idx` of JIT-prepared instance `inst` (the
/// vmctx holds it when the layout inlines it, else the store).
pub(crate) fn global_slot(store: &Store, inst: InstanceId, idx: u32) -> u64 {
    let idata = store.instance(inst);
    if let (Some(code), Some(vmctx)) = (jit_code(idata), idata.vmctx.as_ref()) {
        if code.layout.is_inline_global(idx) {
            return vmctx[code.layout.global(idx) as usize / 8];
        }
    }
    store.globals[idata.globals[idx as usize].0 as usize].value
}

/// Set global `idx` of JIT-prepared instance `inst` (see [`global_slot`]).
pub(crate) fn set_global_slot(store: &mut Store, inst: InstanceId, idx: u32, v: u64) {
    let idata = store
        .instances
        .get_mut(inst.0 as usize)
        .expect("live instance");
    if let Some(code) = idata
        .jit_code
        .as_ref()
        .and_then(|c| c.downcast_ref::<JitCode>())
    {
        if code.layout.is_inline_global(idx) {
            let slot = code.layout.global(idx) as usize / 8;
            if let Some(vm) = idata.vmctx.as_mut() {
                vm[slot] = v;
                return;
            }
        }
    }
    let g = idata.globals[idx as usize].0 as usize;
    store.globals[g].value = v;
}

/// Compile every function of a module (`only: None`), or just function
/// `only` (lazy tier: it then calls every function through the vmctx).
/// Trampolines for every type come with the whole-module compile, and with
/// `only: Some(u32::MAX)` (trampolines alone).
pub fn compile(
    m: &Module,
    only: Option<u32>,
    inline_globals: bool,
    cache: Option<Arc<CodeCache>>,
) -> Result<JitCode, String> {
    compile_with(m, only, None, inline_globals, cache)
}

/// Compile function `func_idx` entered at its loop at `loop_pc` (dyn tier OSR).
pub fn compile_osr(
    m: &Module,
    func_idx: u32,
    loop_pc: u32,
    cache: Option<Arc<CodeCache>>,
) -> Result<JitCode, String> {
    compile_with(m, Some(func_idx), Some(loop_pc), false, cache)
}

fn compile_with(
    m: &Module,
    only: Option<u32>,
    osr_at: Option<u32>,
    inline_globals: bool,
    cache: Option<Arc<CodeCache>>,
) -> Result<JitCode, String> {
    let t0 = std::time::Instant::now();
    let mut input = CodegenInput::new(m, only, osr_at, inline_globals);
    input.cache = cache;
    let out = codegen(&input)?;
    let mut code = link(&input, out)?;
    code.compile_time = t0.elapsed();
    Ok(code)
}

/// Everything a compile reads, owned and `Send`: the machine-code half
/// ([`codegen`]) may run on a background thread; [`link`] then runs on the
/// store's thread.
pub(crate) struct CodegenInput {
    module: std::sync::Arc<crate::core::module::ModuleInfo>,
    layout: VmLayout,
    /// `None`: every function; `Some(i)`: function `i` alone (it then calls
    /// every function through the vmctx); `Some(u32::MAX)`: trampolines alone.
    only: Option<u32>,
    /// OSR: the loop pc entered, and the function's local types.
    osr: Option<(u32, Vec<ValType>)>,
    /// Per defined function: only the interpreter runs it.
    interp_only: Vec<bool>,
    /// Where compiled code is looked up before compiling, and stored after.
    cache: Option<Arc<CodeCache>>,
}

impl CodegenInput {
    pub(crate) fn new(
        m: &Module,
        only: Option<u32>,
        osr_at: Option<u32>,
        inline_globals: bool,
    ) -> CodegenInput {
        Self::in_layout(m, only, osr_at, layout_of(m, inline_globals))
    }

    /// [`CodegenInput::new`] for code that must fit `layout` (an instance's).
    pub(crate) fn in_layout(
        m: &Module,
        only: Option<u32>,
        osr_at: Option<u32>,
        layout: VmLayout,
    ) -> CodegenInput {
        let defined = |i: &u32| (m.num_imported_funcs..m.num_funcs()).contains(i);
        // (A loop entry is compiled for a running activation: its function
        // was translated.)
        let osr = osr_at.zip(only.filter(defined)).and_then(|(pc, i)| {
            let code = crate::exec::interp::load::func_code(m, i).ok()?;
            Some((pc, code.local_types.clone()))
        });
        CodegenInput {
            module: m.shared_info(),
            layout,
            only,
            osr,
            interp_only: interp_only_flags(m, only),
            cache: None,
        }
    }

    /// Bytes of the body compiled (0 for none, or for the whole module).
    pub(crate) fn body_len(&self) -> usize {
        let m = &*self.module;
        let defined = |i: &u32| (m.num_imported_funcs..m.num_funcs()).contains(i);
        self.only.filter(defined).map_or(0, |i| m.body_len(i))
    }

    /// Whether the trampolines include the interpreting stubs: a
    /// trampolines-only compile (the lazy and dyn tiers), or whole-module
    /// code for a module with functions only the interpreter runs (they get
    /// the stubs of their types).
    fn stub_types(&self) -> bool {
        self.only == Some(u32::MAX) || (self.only.is_none() && self.interp_only.contains(&true))
    }
}

/// Machine code, not yet placed in executable memory.
pub(crate) struct CodegenOutput {
    done: Vec<Done>,
    osr_body: Option<osr::OsrBody>,
    /// With a whole-module or trampolines-only compile: the trampolines.
    tramps: Option<tramps::Pieces>,
}

/// FuncIds are assigned in declaration order: [`link`] first declares the
/// runtime functions (`libcalls::table`, ids `0..libcalls::COUNT`), then the
/// module's functions in the order [`codegen`] numbers them.
fn planned_id(k: usize) -> FuncId {
    FuncId::from_u32((libcalls::COUNT + k) as u32)
}

/// Translate and compile the functions `input` names (no JIT module yet).
pub(crate) fn codegen(input: &CodegenInput) -> Result<CodegenOutput, String> {
    let m = &*input.module;
    let isa = isa()?;
    let config = isa.frontend_config();
    let (only, n_defined) = (input.only, m.bodies.len());
    let ids: Vec<FuncId> = match only {
        None => (0..n_defined).map(planned_id).collect(),
        Some(_) => Vec::new(),
    };
    let is_interp_only = |idx: u32| input.interp_only[(idx - m.num_imported_funcs) as usize];
    // Each body with its validator (the module's validation state from its
    // load), for the translator.
    let mut jobs = Vec::new();
    for def in 0..n_defined {
        let idx = m.num_imported_funcs + def as u32;
        if only.is_none_or(|o| o == idx) && !is_interp_only(idx) {
            let (func, body) = m.body_to_validate(idx).map_err(|e| e.message)?;
            jobs.push(Job {
                idx,
                id: if only.is_some() {
                    planned_id(0)
                } else {
                    ids[def]
                },
                func,
                body,
            });
        }
    }
    let osr_body = match (&input.osr, jobs.first()) {
        (Some((pc, _)), Some(j)) => Some(
            osr::rewrite(
                m.body_bytes(j.idx).map_err(|e| e.message)?,
                m.func_type(j.idx).params.len() as u32,
                *pc,
                &|ti| {
                    m.types
                        .get(ti as usize)
                        .is_none_or(|t| !t.params.is_empty())
                },
            )
            .ok_or("loop cannot be entered")?,
        ),
        _ => None,
    };
    // (Trampolines alone compile no function: no digest to make.)
    let by_source = match jobs.is_empty() {
        true => None,
        false => by_source::request_digest(input, &*isa),
    };
    let shared = Shared {
        module: m,
        layout: &input.layout,
        ids: &ids,
        by_source,
        max_id: (libcalls::COUNT + ids.len().max(1)) as u32,
        interp_only: &input.interp_only,
        config,
        osr: osr_body
            .as_ref()
            .zip(input.osr.as_ref())
            .map(|(o, (_, t))| (o, t.as_slice())),
        cache: input.cache.as_deref(),
    };
    let done = compile_jobs(&shared, jobs)?;
    // Trampolines for every type, with a whole-module or trampolines-only compile.
    let tramps = match only {
        None | Some(u32::MAX) => Some(tramps::pieces(
            &m.types,
            input.stub_types(),
            &*isa,
            input.cache.as_deref(),
        )?),
        Some(_) => None,
    };
    Ok(CodegenOutput {
        done,
        osr_body,
        tramps,
    })
}

/// Place `out` in executable memory (with, for a whole-module or
/// trampolines-only compile, the trampolines of every type).
pub(crate) fn link(input: &CodegenInput, out: CodegenOutput) -> Result<JitCode, String> {
    let t0 = std::time::Instant::now();
    let m = &*input.module;
    let only = input.only;
    let isa = isa()?;
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    // Trampolines call these by symbol (a relocation, not an address in
    // the code), so that their code is the same in every process: cacheable.
    builder.symbol(tramps::HOST_CALL, libcalls::host_call as *const u8);
    builder.symbol(tramps::LAZY_CALL, lazy_call as *const u8);
    builder.symbol(tramps::CLOCK_CALL, libcalls::clock_call as *const u8);
    let table = libcalls::table();
    for (name, addr) in table {
        builder.symbol(name, addr as *const u8);
    }
    let mut jit = JITModule::new(builder);
    for (k, (name, _)) in table.iter().enumerate() {
        // Signatures only matter for calls through the declaration; these
        // are called indirectly through their address, with their own.
        let id = jit
            .declare_function(name, Linkage::Import, &Signature::new(CallConv::SystemV))
            .map_err(|e| e.to_string())?;
        if id != FuncId::from_u32(k as u32) {
            return Err("JIT runtime function ids out of order".into());
        }
    }
    let layout = input.layout.clone();
    let mut ids = Vec::with_capacity(m.bodies.len());
    match only {
        None => {
            for i in m.num_imported_funcs..m.num_funcs() {
                let sig = wasm_sig(m.func_type(i));
                ids.push(
                    jit.declare_function(&format!("f{i}"), Linkage::Local, &sig)
                        .map_err(|e| e.to_string())?,
                );
            }
        }
        Some(i) if i < m.num_funcs() => {
            ids.push(
                jit.declare_function(&format!("f{i}"), Linkage::Local, &wasm_sig(m.func_type(i)))
                    .map_err(|e| e.to_string())?,
            );
        }
        Some(_) => {}
    }
    if ids.iter().enumerate().any(|(k, id)| *id != planned_id(k)) {
        return Err("JIT function ids out of order".into());
    }
    let mut infos = Vec::new();
    let mut pending: Vec<(u32, FuncId, FuncInfo)> = Vec::new();
    let osr_body = out.osr_body;
    for d in out.done {
        let idx = d.idx;
        jit.define_function_bytes(d.id, &d.func, d.alignment, &d.code, &d.relocs)
            .map_err(|e| format!("function {idx}: {e:?}"))?;
        let body_start = m.body(idx).range.start as u32;
        // pc (in the original or woven body) of a source location.
        let body_pc = |bits: u32| {
            let off = bits.saturating_sub(body_start);
            osr_body.as_ref().map_or(off, |o| o.original_pc(off))
        };
        let (inlined, probe_calls) = match &m.origin {
            None => (Vec::new(), Vec::new()),
            Some(o) => (
                d.srclocs
                    .iter()
                    .filter_map(|&(a, b, l)| {
                        o.inlined_at(idx, body_pc(l)).map(|p| (a, b, p.clone()))
                    })
                    .collect(),
                d.srclocs
                    .iter()
                    .filter_map(|&(a, b, l)| {
                        o.probe_call(idx, body_pc(l)).map(|p| (a, b, p.clone()))
                    })
                    .collect(),
            ),
        };
        // Sites are reported in the original module (woven code maps back).
        let srclocs = d
            .srclocs
            .iter()
            .map(|&(a, b, l)| {
                let pc = body_pc(l);
                (a, b, m.origin.as_ref().map_or(pc, |o| o.pc(idx, pc)))
            })
            .collect();
        // A woven function is named as the original: its name-section entry
        // (re-indexed by the weaver), else `func[N]` with the original index.
        let orig_idx = m.origin.as_ref().map_or(idx, |o| o.func(idx));
        let info = FuncInfo {
            func_idx: Some(orig_idx),
            name: m
                .func_names
                .get(&idx)
                .cloned()
                .unwrap_or_else(|| format!("func[{orig_idx}]")),
            start: 0,
            len: d.code.len(),
            traps: d.traps,
            srclocs,
            body_start: 0,
            probe_calls,
            inlined,
            body: m
                .origin
                .is_none()
                .then(|| std::sync::Arc::from(&m.bytes[m.body(idx).range.clone()])),
        };
        pending.push((d.idx, d.id, info));
    }
    // Trampolines for every type of the module.
    let mut set = None;
    if only.is_none_or(|o| o == u32::MAX) {
        let lazy = input.stub_types();
        let built = out.tramps.ok_or("trampolines were not built")?;
        set = Some(tramps::define_all(&mut jit, &m.types, lazy, built)?);
    }
    jit.finalize_definitions().map_err(|e| e.to_string())?;
    // Whole-module: by defined index, null for an interpreted-only function.
    let mut funcs = vec![std::ptr::null(); if only.is_none() { ids.len() } else { 0 }];
    for (idx, id, mut info) in pending {
        let p = jit.get_finalized_function(id);
        match only {
            None => funcs[(idx - m.num_imported_funcs) as usize] = p,
            Some(_) => funcs.push(p),
        }
        info.start = p as usize;
        infos.push(info);
    }
    let mut host_tramps = Vec::new();
    let mut entry_tramps = Vec::new();
    let mut lazy_stubs = Vec::new();
    let (tramp_ids, lazy_ids, clock_id, base) = match set {
        Some(s) => (
            s.tramps,
            s.lazy,
            s.clock,
            jit.get_finalized_function(s.code),
        ),
        None => (Vec::new(), Vec::new(), None, std::ptr::null()),
    };
    // (Offsets within the set's code, which was placed as one piece.)
    let at = |offset: usize| base.wrapping_add(offset);
    for (ti, (l, llen, ltraps)) in lazy_ids.into_iter().enumerate() {
        let lp = at(l);
        lazy_stubs.push(lp);
        infos.push(FuncInfo::stub(
            format!("lazy stub (type {ti})"),
            lp,
            llen,
            ltraps,
        ));
    }
    for (ti, ((h, hlen, htraps), (e, _, _))) in tramp_ids.into_iter().enumerate() {
        let hp = at(h);
        host_tramps.push(hp);
        entry_tramps.push(at(e));
        infos.push(FuncInfo::stub(
            format!("host trampoline (type {ti})"),
            hp,
            hlen,
            htraps,
        ));
    }
    let clock_tramp = clock_id.map(|(c, clen, ctraps)| {
        let cp = at(c);
        infos.push(FuncInfo::stub("clock trampoline".into(), cp, clen, ctraps));
        cp
    });
    signals::register(&infos);
    Ok(JitCode {
        module: Some(jit),
        layout,
        funcs,
        host_tramps,
        entry_tramps,
        lazy_stubs,
        clock_tramp,
        infos,
        compile_time: t0.elapsed(),
    })
}

/// A function to compile.
struct Job<'a> {
    idx: u32,
    id: FuncId,
    func: wasmparser::FuncToValidate<crate::core::module::Resources>,
    body: wasmparser::FunctionBody<'a>,
}

/// A compiled function, ready to be defined in the `JITModule`.
struct Done {
    idx: u32,
    id: FuncId,
    func: ir::Function,
    code: Vec<u8>,
    alignment: u64,
    relocs: Vec<cranelift_codegen::FinalizedMachReloc>,
    traps: Vec<(u32, ir::TrapCode)>,
    /// (code start, code end, source location bits).
    srclocs: Vec<(u32, u32, u32)>,
}

/// What compile threads share: the module and its layout, read only.
/// `Sync` by construction: [`ModuleInfo`] is the module's plain data (the
/// interpreter code, with its op cells, stays behind on the calling thread).
struct Shared<'a> {
    module: &'a crate::core::module::ModuleInfo,
    layout: &'a VmLayout,
    ids: &'a [FuncId],
    config: cranelift_codegen::isa::TargetFrontendConfig,
    /// OSR entry: the rewritten body and the function's local types.
    osr: Option<(&'a osr::OsrBody, &'a [crate::core::types::ValType])>,
    cache: Option<&'a CodeCache>,
    /// Per defined function: only the interpreter runs it.
    interp_only: &'a [bool],
    /// What the functions' keys by source share (`by_source.rs`), if the
    /// module's code is cached by source rather than by IR.
    by_source: Option<[u8; 32]>,
    /// Function ids the compile declares are below this.
    max_id: u32,
}

/// Functions compiled per thread before spreading a compile over threads
/// (`WIZENG_COMPILE_THREADS=N` sets the number of threads, 1 = sequential).
fn compile_threads(jobs: usize) -> usize {
    if jobs <= 1 {
        return 1;
    }
    let max = std::env::var("WIZENG_COMPILE_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(cores);
    max.clamp(1, jobs.max(1))
}

/// The cores this process may use (at most 8), read once: it opens the
/// cgroup files on every call.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
}

/// Compile `jobs` (in order), on several threads when there are several.
fn compile_jobs(sh: &Shared<'_>, jobs: Vec<Job<'_>>) -> Result<Vec<Done>, String> {
    let n = compile_threads(jobs.len());
    if n <= 1 {
        let mut t = Translator::new()?;
        return jobs.into_iter().map(|j| t.compile(sh, j)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let jobs: Vec<std::sync::Mutex<Option<Job<'_>>>> = jobs
        .into_iter()
        .map(|j| std::sync::Mutex::new(Some(j)))
        .collect();
    let mut out: Vec<Option<Result<Done, String>>> = Vec::new();
    out.resize_with(jobs.len(), || None);
    let results = std::thread::scope(|s| {
        let workers: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    let mut t = match Translator::new() {
                        Ok(t) => t,
                        Err(e) => return vec![(usize::MAX, Err(e))],
                    };
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(slot) = jobs.get(k) else { break };
                        let job = slot.lock().map(|mut j| j.take()).ok().flatten();
                        if let Some(job) = job {
                            mine.push((k, t.compile(sh, job)));
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .map_err(|_| "a compile thread panicked".to_string())
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    for (k, r) in results.into_iter().flatten() {
        if k == usize::MAX {
            return Err(r.err().unwrap_or_default());
        }
        out[k] = Some(r);
    }
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err("a function was not compiled".into())))
        .collect()
}

/// Per-thread compile state.
struct Translator {
    isa: cranelift_codegen::isa::OwnedTargetIsa,
    ctx: Context,
    ft: cranelift_wasm::FuncTranslator,
}

impl Translator {
    fn new() -> Result<Translator, String> {
        Ok(Translator {
            isa: isa()?,
            ctx: Context::new(),
            ft: cranelift_wasm::FuncTranslator::new(),
        })
    }

    fn compile(&mut self, sh: &Shared<'_>, job: Job<'_>) -> Result<Done, String> {
        let m = sh.module;
        let idx = job.idx;
        // Code is cached by source (woven bodies too): a hit builds no IR.
        let by_source = sh
            .by_source
            .filter(|_| sh.cache.is_some() && !dump_clif(idx) && !dump_asm(idx))
            .and_then(|r| by_source::key(&r, m, idx, job.id));
        if let (Some(c), Some(k)) = (sh.cache, &by_source) {
            if let Some(done) = by_source::load(c, k, idx, job.id, sh.max_id) {
                if m.origin.is_some() {
                    c.by_source_woven
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                return Ok(done);
            }
        }
        let done = self.translate_and_compile(sh, job, by_source.is_none())?;
        if let (Some(c), Some(k)) = (sh.cache, &by_source) {
            by_source::store(c, k, &done);
        }
        Ok(done)
    }

    /// Translate `job` to IR and compile it (through Cranelift's cache, keyed
    /// by the IR, if `ir_cache`).
    fn translate_and_compile(
        &mut self,
        sh: &Shared<'_>,
        job: Job<'_>,
        ir_cache: bool,
    ) -> Result<Done, String> {
        let m = sh.module;
        let idx = job.idx;
        let mut fv = job.func.into_validator(Default::default());
        self.ctx.clear();
        self.ctx.func = ir::Function::with_name_signature(
            UserFuncName::user(0, idx),
            wasm_sig(m.func_type(idx)),
        );
        // Stack limit: vmctx -> store ctx -> limit.
        let f = &mut self.ctx.func;
        let vmctx = f.create_global_value(ir::GlobalValueData::VMContext);
        let load = |base, offset: i32, flags| ir::GlobalValueData::Load {
            base,
            offset: offset.into(),
            global_type: I64,
            flags,
        };
        let sc = f.create_global_value(load(
            vmctx,
            vm::STORE_CTX,
            MemFlags::trusted().with_readonly(),
        ));
        let limit = f.create_global_value(load(sc, vm::STORE_CTX_STACK_LIMIT, MemFlags::trusted()));
        f.stack_limit = Some(limit);
        {
            let mut env = Env::new(sh.config, m, sh.layout, sh.ids);
            env.interp_only = sh.interp_only;
            let body = match sh.osr {
                None => job.body,
                Some((o, local_types)) => {
                    env.osr = Some(env::OsrPrologue {
                        local_types: local_types.to_vec(),
                        flag: o.flag,
                    });
                    wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(
                        &o.bytes,
                        m.body(idx).range.start,
                    ))
                }
            };
            self.ft
                .translate_body(&mut fv, body, &mut self.ctx.func, &mut env)
                .map_err(|e| format!("function {idx}: {e}"))?;
        }
        self.ctx.want_disasm = dump_asm(idx);
        let cache = sh.cache.filter(|_| ir_cache);
        let cc = located::compile(&mut self.ctx, &*self.isa, cache)
            .map_err(|e| format!("function {idx}: {e}"))?;
        if dump_clif(idx) {
            // After a compile (not a cache hit), `ctx.func` holds the optimised IR.
            eprintln!("{}", self.ctx.func.display());
        }
        if let Some(asm) = cc.vcode.as_ref().filter(|_| dump_asm(idx)) {
            eprintln!("function {idx}:\n{asm}");
        }
        let code = cc.code_buffer().to_vec();
        let alignment = cc.buffer.alignment as u64;
        let relocs = cc.buffer.relocs().to_vec();
        let traps = cc
            .buffer
            .traps()
            .iter()
            .map(|t| (t.offset, t.code))
            .collect();
        let srclocs = cc
            .buffer
            .get_srclocs_sorted()
            .iter()
            .filter(|s| !s.loc.is_default())
            .map(|s| (s.start, s.end, s.loc.bits()))
            .collect();
        Ok(Done {
            idx,
            id: job.id,
            func: std::mem::replace(&mut self.ctx.func, ir::Function::new()),
            code,
            alignment,
            relocs,
            traps,
            srclocs,
        })
    }
}

/// Whether the interpreter's translator marked function `idx` of `m`
/// (defined) as one the JIT must not compile.
fn interp_only(m: &Module, idx: u32) -> bool {
    crate::exec::interp::load::interp_only(m, idx)
}

/// Per defined function, whether only the interpreter runs it, as far as a
/// compile of `only` reads it: every function's for a whole-module compile
/// (direct calls), the function's own for a single function (it calls
/// everything through the vmctx; asking all 12k functions of a large module
/// per request was a third of a millisecond each).
fn interp_only_flags(m: &Module, only: Option<u32>) -> Vec<bool> {
    let defined = m.num_imported_funcs..m.num_funcs();
    let mut flags = vec![false; defined.len()];
    match only {
        None => {
            for (f, i) in flags.iter_mut().zip(defined) {
                *f = interp_only(m, i);
            }
        }
        Some(i) if defined.contains(&i) => {
            flags[(i - m.num_imported_funcs) as usize] = interp_only(m, i);
        }
        Some(_) => {}
    }
    flags
}

/// Code per (module, tier): the tier decides whole-module or lazy code, and the layout.
type CachedCode = (
    std::sync::Weak<Module>,
    crate::runtime::store::Tier,
    Rc<JitCode>,
);

thread_local! {
    static CODE_CACHE: RefCell<Vec<CachedCode>> = const { RefCell::new(Vec::new()) };
}

fn code_for(store: &Store, inst: InstanceId) -> Result<Rc<JitCode>, String> {
    let m = store.instance(inst).module.clone();
    if let Some(c) = cached_code(&m, store.config.tier) {
        return Ok(c);
    }
    let lazy = matches!(
        store.config.tier,
        crate::runtime::store::Tier::Lazy | crate::runtime::store::Tier::Dyn
    );
    let inline = inline_globals(store.config.tier);
    let code = Rc::new(compile(
        &m,
        if lazy { Some(u32::MAX) } else { None },
        inline,
        code_cache(store),
    )?);
    keep_code(&m, store.config.tier, code.clone());
    Ok(code)
}

/// The code compiled for `m` in `tier` earlier in this thread, if any.
fn cached_code(m: &Arc<Module>, tier: crate::runtime::store::Tier) -> Option<Rc<JitCode>> {
    CODE_CACHE.with(|cc| {
        let mut cc = cc.borrow_mut();
        cc.retain(|(w, _, _)| w.strong_count() > 0);
        cc.iter()
            .find(|(w, t, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(m)) && *t == tier)
            .map(|(_, _, c)| c.clone())
    })
}

/// Keep `code`, compiled for `m` in `tier`, for the next instances of `m`.
fn keep_code(m: &Arc<Module>, tier: crate::runtime::store::Tier, code: Rc<JitCode>) {
    CODE_CACHE.with(|cc| cc.borrow_mut().push((Arc::downgrade(m), tier, code)));
}

/// A new instance's JIT preparation ([`prepare_instance`]): now, or in the
/// dyn tier, until the store's first tier-up request, none being made yet
/// ([`ensure_prepared`]). A program that never gets hot thus costs what it
/// costs the interpreter: no trampolines, vmctx or code cache.
pub(crate) fn prepare_or_defer(store: &mut Store, id: InstanceId) -> Result<(), String> {
    let requested = warm::load(store, id);
    let dyn_tier = store.config.tier == crate::runtime::store::Tier::Dyn;
    let j = &mut crate::exec::state_mut(store).jit;
    if dyn_tier && !j.started {
        j.unprepared.push(id);
        warm::prefetch(store, requested);
        return Ok(());
    }
    // (The instances before it first: it may import their functions.)
    ensure_prepared(store)?;
    prepare_instance(store, id)?;
    warm::prefetch(store, requested);
    Ok(())
}

/// If the JIT is not set up yet, the types of the instances that wait for
/// their preparation: what the first tier-up request sets up
/// ([`ensure_prepared`]).
pub(crate) fn setup_types(store: &Store) -> Option<usize> {
    let j = &crate::exec::state(store).jit;
    if j.started {
        return None;
    }
    let types = |id: &InstanceId| store.instance(*id).module.types.len();
    Some(j.unprepared.iter().map(types).sum())
}

/// Whether `f` is a function of an instance that waits for its JIT
/// preparation (it has no entry points yet, but may get hot).
pub(crate) fn awaits_preparation(store: &Store, f: FuncAddr) -> bool {
    let waiting = &crate::exec::state(store).jit.unprepared;
    match store.funcs[f.0 as usize].kind {
        FuncKind::Wasm { instance, .. } => !waiting.is_empty() && waiting.contains(&instance),
        FuncKind::Host(_) => false,
    }
}

/// Prepare every instance that waits, in instantiation order (an instance
/// needs the entry points of the functions it imports); from now on new
/// instances are prepared at once. The interpreter may be running: this
/// only fills entry points and vmctx blocks, which it does not read. A
/// set-up the compiler thread is building ([`begin_prepare`]) is waited for
/// (or taken back and built here).
pub(crate) fn ensure_prepared(store: &mut Store) -> Result<(), String> {
    let j = &mut crate::exec::state_mut(store).jit;
    j.started = true;
    if j.unprepared.is_empty() {
        return Ok(());
    }
    let j = &crate::exec::state(store).jit;
    let built = |i: InstanceId| {
        j.built
            .iter()
            .any(|f| f.target == background::Target::Setup(i.0))
    };
    let waits: Vec<InstanceId> = j
        .setting_up
        .iter()
        .map(|s| s.0)
        .filter(|&i| !built(i))
        .collect();
    for id in waits {
        let done = crate::exec::state_mut(store)
            .jit
            .background
            .wait_for_setup(id.0);
        install(store, done);
    }
    link_built(store);
    // (Any left: the thread is gone, and `code_for` builds them here.)
    crate::exec::state_mut(store).jit.setting_up.clear();
    prepare_waiting(store)
}

/// Link the set-ups the compiler thread built ([`set_up`]).
fn link_built(store: &mut Store) {
    for f in std::mem::take(&mut crate::exec::state_mut(store).jit.built) {
        let background::Target::Setup(i) = f.target else {
            continue;
        };
        let t0 = std::time::Instant::now();
        let code = f.out.and_then(|out| link(&f.input, out));
        crate::exec::state_mut(store).jit.background_link_time += t0.elapsed();
        set_up(store, InstanceId(i), code);
    }
}

/// Prepare the instances that wait (their set-ups built), then install
/// the compiles that were finished before them.
fn prepare_waiting(store: &mut Store) -> Result<(), String> {
    let ids = std::mem::take(&mut crate::exec::state_mut(store).jit.unprepared);
    for id in ids {
        prepare_instance(store, id)?;
    }
    let parked = std::mem::take(&mut crate::exec::state_mut(store).jit.parked);
    install(store, parked);
    Ok(())
}

/// Dyn tier, a warm start handing functions to the compiler thread at
/// instantiation (`warm::prefetch`): have a compiler thread build the set-up
/// of every instance that waits for it (its module's trampolines, placed
/// from the cache: 0.75 ms of jsc's main thread), on the second thread
/// while the first reads the functions' code, and the store's thread goes
/// on; once a compile needs it, it is linked and the instances prepared
/// ([`link_built`], from [`install`] or [`ensure_prepared`]). Compiles may
/// be requested meanwhile ([`lazy_input`] knows the layout the set-up
/// gives). `false` if there is no compiler thread: [`ensure_prepared`]
/// then.
///
/// A cold run's first tier-up does not use this: it sets the JIT up on the
/// store's thread while the compiler thread compiles the hot code, which
/// is then ready soonest. (Building the set-up on a compiler thread there
/// made PolyBench's cold runs 5-10% slower on a loaded 2-core machine: the
/// hot code waited for it, and for a core.)
pub(crate) fn begin_prepare(store: &mut Store) -> bool {
    if crate::exec::state(store).jit.started {
        return true;
    }
    if !store.config.background_compile || store.config.tier != crate::runtime::store::Tier::Dyn {
        return false;
    }
    open_cache(store);
    let tier = store.config.tier;
    let ids = crate::exec::state(store).jit.unprepared.clone();
    for id in ids {
        let m = store.instance(id).module.clone();
        let same = |(i, _, _): &(InstanceId, _, _)| Arc::ptr_eq(&store.instance(*i).module, &m);
        let asked = crate::exec::state(store).jit.setting_up.iter().any(same);
        if asked || cached_code(&m, tier).is_some() {
            continue;
        }
        let mut input = CodegenInput::new(&m, Some(u32::MAX), None, inline_globals(tier));
        input.cache = code_cache(store);
        let layout = input.layout.clone();
        let j = &mut crate::exec::state_mut(store).jit;
        if !j.background.submit(background::Target::Setup(id.0), input) {
            // The thread did not start: the store's thread builds them all
            // (or, after the first, those left: `code_for`).
            if j.setting_up.is_empty() {
                return false;
            }
            break;
        }
        j.setting_up.push((id, tier, layout));
    }
    crate::exec::state_mut(store).jit.started = true;
    !crate::exec::state(store).jit.setting_up.is_empty() || prepare_waiting(store).is_ok()
}

/// Whether the compiler thread is building a set-up ([`begin_prepare`]).
pub(crate) fn setting_up(store: &Store) -> bool {
    !crate::exec::state(store).jit.setting_up.is_empty()
}

/// Compile (or reuse) the instance's module, build its vmctx, and publish its
/// functions' entry points.
pub(crate) fn prepare_instance(store: &mut Store, id: InstanceId) -> Result<(), String> {
    open_cache(store);
    let code = code_for(store, id)?;
    crate::exec::state_mut(store).jit.compile_time += code.compile_time;
    let j = &mut crate::exec::state_mut(store).jit;
    j.profiling.announce(&code.infos);
    j.clock_tramp = j.clock_tramp.or(code.clock_tramp);
    let m = store.instance(id).module.clone();
    for (ti, _) in m.types.iter().enumerate() {
        let tid = store.instance(id).type_ids[ti];
        crate::exec::state_mut(store)
            .jit
            .tramps
            .entry(tid)
            .or_insert((code.host_tramps[ti], code.entry_tramps[ti]));
    }
    // A host function imported at a GC type was interned from its lossy
    // `FuncType` (another type id than the module's): the module's
    // trampolines of the import's type fit it (same value types).
    let imported = store.instance(id).funcs[..m.num_imported_funcs as usize].to_vec();
    for (k, a) in imported.into_iter().enumerate() {
        let ti = m.func_types[k] as usize;
        let tid = store.funcs[a.0 as usize].type_id;
        let tramps = &mut crate::exec::state_mut(store).jit.tramps;
        tramps
            .entry(tid)
            .or_insert((code.host_tramps[ti], code.entry_tramps[ti]));
    }
    let l = &code.layout;
    let mut vmctx = vec![0u64; l.size_slots].into_boxed_slice();
    let sc = &mut *store.vm_store as *mut vm::VMStoreCtx;
    vmctx[0] = sc as u64;
    vmctx[vm::INSTANCE as usize / 8] = id.0 as u64;
    let inst = &store.instances[id.0 as usize];
    for (i, t) in inst.type_ids.iter().enumerate() {
        vmctx[l.type_id(i as u32) as usize / 8] = *t as u64;
    }
    for (i, a) in inst.memories.iter().enumerate() {
        let vm = &*store.memories[a.0 as usize].vm;
        vmctx[l.memory(i as u32) as usize / 8] = vm as *const vm::VMMemory as u64;
        vmctx[l.memory_base(i as u32) as usize / 8] = vm.base as u64;
    }
    for (i, a) in inst.globals.iter().enumerate() {
        let g = &store.globals[a.0 as usize];
        vmctx[l.global(i as u32) as usize / 8] = if l.is_inline_global(i as u32) {
            g.value
        } else {
            &g.value as *const u64 as u64
        };
    }
    for (i, a) in inst.tables.iter().enumerate() {
        vmctx[l.table(i as u32) as usize / 8] =
            &*store.tables[a.0 as usize].vm as *const vm::VMTable as u64;
    }
    let funcs = inst.funcs.clone();
    let nimp = m.num_imported_funcs as usize;
    let vmctx_ptr = vmctx.as_mut_ptr() as *mut u8;
    // Defined functions' entry points: their code, or (lazy tier) a stub that
    // compiles them on their first call.
    let lazy = code.funcs.is_empty() && nimp < funcs.len();
    for (k, a) in funcs.iter().enumerate().skip(nimp) {
        // (A function only the interpreter runs has no code: its stub.)
        if lazy || code.funcs[k - nimp].is_null() {
            let ctx = Box::new(libcalls::HostCtx {
                store_ctx: sc,
                func: a.0,
            });
            let ti = m.func_types[k] as usize;
            let fr = &mut store.funcrefs[a.0 as usize];
            fr.code = code.lazy_stubs[ti];
            fr.vmctx = &*ctx as *const libcalls::HostCtx as *mut u8;
            crate::exec::state_mut(store).jit.host_ctxs.push(ctx);
        } else {
            let fr = &mut store.funcrefs[a.0 as usize];
            fr.code = code.funcs[k - nimp];
            fr.vmctx = vmctx_ptr;
        }
    }
    fill_funcrefs(store, true);
    for (k, a) in funcs.iter().enumerate() {
        let o = l.func(k as u32) as usize / 8;
        let fr = store.funcrefs[a.0 as usize];
        if fr.code.is_null() {
            return Err(format!(
                "import {k} has no compiled code (a function of an interpreted instance)"
            ));
        }
        vmctx[o] = a.0 as u64;
        vmctx[o + 1] = fr.code as u64;
        vmctx[o + 2] = fr.vmctx as u64;
    }
    let inst = &mut store.instances[id.0 as usize];
    inst.vmctx = Some(vmctx);
    inst.jit_code = Some(code);
    Ok(())
}

/// The lazy tier's stub target: compile function `ctx.func` (once), point its
/// entry points at the code, and call it. Same contract as `host_call`.
extern "C" fn lazy_call(
    ctx: *const libcalls::HostCtx,
    _caller_vmctx: *const u64,
    args: *mut u64,
) -> i32 {
    // SAFETY: as for `libcalls::host_call` (ctx is a live HostCtx of the store
    // JIT code is running in, reached only while `invoke` holds the store).
    let (store, func) = unsafe { (&mut *(*(*ctx).store_ctx).store, FuncAddr((*ctx).func)) };
    // Dyn tier: interpret the function until it is hot; every tier
    // interprets what the JIT must not compile.
    let interpret = crate::exec::tiering::interp_only(store, func)
        || (store.config.tier == crate::runtime::store::Tier::Dyn
            && !crate::exec::tiering::call_is_hot(store, func));
    if !interpret {
        if let Err(e) = compile_lazily(store, func) {
            crate::exec::state_mut(store).jit.pending_trap =
                Some(Trap::host(format!("JIT compilation failed: {e}")));
            return 1;
        }
    }
    let ty = &store.funcs[func.0 as usize].ty;
    // SAFETY: the stub's buffer holds `buffer_slots(ty)` slots.
    let slots = unsafe { std::slice::from_raw_parts_mut(args, buffer_slots(ty)) };
    let r = if ty.is_numeric() {
        // Slots as they are, no conversion (the common case, and cheap).
        if interpret {
            crate::exec::interp::invoke_slots(store, func, slots)
        } else {
            invoke_slots(store, func, slots)
        }
    } else {
        let ty = ty.clone();
        let vals: Vec<Value> = Value::from_slots(&ty.params, slots);
        let r = if interpret {
            crate::exec::interp::invoke(store, func, &vals)
        } else {
            invoke(store, func, &vals)
        };
        r.map(|r| Value::write_all_slots(&r, slots))
    };
    match r {
        Ok(()) => 0,
        Err(t) => {
            crate::exec::state_mut(store).jit.pending_trap = Some(t);
            1
        }
    }
}

/// Compile one function of a lazily compiled instance and publish its code.
pub(crate) fn compile_lazily(store: &mut Store, func: FuncAddr) -> Result<(), String> {
    let Some(input) = lazy_input(store, func)? else {
        return Ok(());
    };
    let t0 = std::time::Instant::now();
    let out = codegen(&input)?;
    let mut code = link(&input, out)?;
    code.compile_time = t0.elapsed();
    publish_func(store, func, code);
    Ok(())
}

/// Dyn tier: have the compiler thread compile `func` for its later calls;
/// `Ok(false)` if there is nothing to compile or no thread (the caller
/// decides), `Err` if the function cannot be compiled.
pub(crate) fn request_func(store: &mut Store, func: FuncAddr) -> Result<bool, String> {
    let Some(input) = lazy_input(store, func)? else {
        return Ok(false);
    };
    let target = background::Target::Func(func.0);
    Ok(crate::exec::state_mut(store)
        .jit
        .background
        .submit(target, input))
}

/// Dyn tier: link and publish what the compiler thread finished (never waits).
pub(crate) fn poll_background(store: &mut Store) {
    let ready = crate::exec::state_mut(store).jit.background.take_ready();
    install(store, ready);
}

/// The store's compiled-code cache, if it has one (`Config::code_cache`;
/// opened when it is first needed, and `None` if it cannot be).
fn code_cache(store: &Store) -> Option<Arc<CodeCache>> {
    crate::exec::state(store).jit.cache.clone()
}

/// Open the store's compiled-code cache, if it is configured and not open yet.
pub(crate) fn open_cache(store: &mut Store) {
    let Some(dir) = store.config.code_cache.clone() else {
        return;
    };
    let limit = store.config.code_cache_limit;
    let j = &mut crate::exec::state_mut(store).jit;
    if j.cache.is_none() {
        j.cache = CodeCache::open(&dir).ok();
        if let Some(c) = &j.cache {
            c.limit.store(limit, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// How many of the code cache's hits placed a function keyed by its source:
/// (all, those of woven modules).
pub(crate) fn cache_hits_by_source(store: &Store) -> (usize, usize) {
    use std::sync::atomic::Ordering::Relaxed;
    match &crate::exec::state(store).jit.cache {
        Some(c) => (c.by_source.load(Relaxed), c.by_source_woven.load(Relaxed)),
        None => (0, 0),
    }
}

/// Compiled-code cache counters: (hits, misses, rejected entries).
pub(crate) fn cache_stats(store: &Store) -> (usize, usize, usize) {
    use std::sync::atomic::Ordering::Relaxed;
    match &crate::exec::state(store).jit.cache {
        Some(c) => (
            c.hits.load(Relaxed),
            c.misses.load(Relaxed),
            c.rejected.load(Relaxed),
        ),
        None => (0, 0, 0),
    }
}

/// What the compiler thread did so far.
pub(crate) fn background_stats(store: &Store) -> crate::exec::api::BackgroundStats {
    let j = &crate::exec::state(store).jit;
    crate::exec::api::BackgroundStats {
        done: j.background.collected,
        in_flight: j.background.in_flight,
        compile_time: j.background.time,
        taken_back: j.background.stolen,
        link_time: j.background_link_time,
        setups: j.background.setups,
    }
}

/// Dyn tier: wait for the compiler thread's code of `func` (and publish it,
/// with whatever else was finished meanwhile).
pub(crate) fn wait_for(store: &mut Store, func: FuncAddr) {
    let done = crate::exec::state_mut(store)
        .jit
        .background
        .wait_for(func.0);
    install(store, done);
}

/// Wait for the compiler thread's work in flight and publish it.
pub(crate) fn finish_background(store: &mut Store) {
    let done = crate::exec::state_mut(store).jit.background.wait_all();
    install(store, done);
}

fn install(store: &mut Store, done: Vec<background::Finished>) {
    for f in done {
        match f.target {
            background::Target::Func(a) if awaits_preparation(store, FuncAddr(a)) => {
                // Its instance is being set up: linked and published then.
                crate::exec::state_mut(store).jit.parked.push(f);
                continue;
            }
            background::Target::Setup(_) => {
                crate::exec::state_mut(store).jit.built.push(f);
                continue;
            }
            _ => {}
        }
        let t0 = std::time::Instant::now();
        let code = f.out.and_then(|out| link(&f.input, out));
        let linked = t0.elapsed();
        let j = &mut crate::exec::state_mut(store).jit;
        j.background_link_time += linked;
        match (f.target, code) {
            (background::Target::Func(a), Ok(code)) => publish_func(store, FuncAddr(a), code),
            (background::Target::Func(a), Err(_)) => {
                crate::exec::tiering::mark(store, FuncAddr(a), crate::exec::tiering::NEVER)
            }
            (background::Target::Osr(i, fi, pc), code) => {
                let code = code.ok().map(Rc::new);
                if let Some(c) = &code {
                    j.compile_time += c.compile_time;
                    j.profiling.announce(&c.infos);
                    j.osr_entries += 1;
                }
                j.osr_pending.remove(&(i, fi, pc));
                j.osr_code.insert((i, fi, pc), code);
            }
            (background::Target::Setup(_), _) => {}
        }
    }
    let j = &crate::exec::state(store).jit;
    if !j.built.is_empty() && !j.parked.is_empty() {
        link_built(store);
    }
}

/// Instance `i`'s set-up ([`begin_prepare`]) is linked: keep it for its
/// module, and once every set-up asked for is there,
/// prepare the instances that wait (a set-up that failed is built again
/// there, by `code_for`, and its error is the preparation's).
fn set_up(store: &mut Store, i: InstanceId, code: Result<JitCode, String>) {
    let j = &mut crate::exec::state_mut(store).jit;
    let Some(k) = j.setting_up.iter().position(|s| s.0 == i) else {
        return;
    };
    let (_, tier, _) = j.setting_up.remove(k);
    if let Ok(code) = code {
        let m = store.instance(i).module.clone();
        keep_code(&m, tier, Rc::new(code));
    }
    if crate::exec::state(store).jit.setting_up.is_empty() {
        let _ = prepare_waiting(store);
    }
}

/// The compile input for function `func` of a lazily compiled instance, or
/// `None` if it has code already (or is not a Wasm function).
fn lazy_input(store: &Store, func: FuncAddr) -> Result<Option<CodegenInput>, String> {
    let FuncKind::Wasm { instance, func_idx } = store.funcs[func.0 as usize].kind else {
        return Ok(None);
    };
    if crate::exec::state(store).jit.lazy_done.contains(&func.0) {
        return Ok(None);
    }
    if crate::exec::tiering::interp_only(store, func) {
        return Err("the function runs in the interpreter (exception handling)".into());
    }
    let idata = store.instance(instance);
    let j = &crate::exec::state(store).jit;
    let setup = j
        .setting_up
        .iter()
        .find(|(i, _, _)| Arc::ptr_eq(&store.instance(*i).module, &idata.module));
    let layout = match (setup, j.setting_up.first()) {
        // Its set-up is being built: the layout that gives it (`code_for`).
        (Some((_, _, l)), _) if idata.vmctx.is_none() && j.unprepared.contains(&instance) => {
            l.clone()
        }
        (None, Some(&(_, tier, _)))
            if idata.vmctx.is_none() && j.unprepared.contains(&instance) =>
        {
            layout_of(&idata.module, inline_globals(tier))
        }
        _ => {
            if idata.vmctx.is_none() {
                return Err("instance has no vmctx".into());
            }
            jit_code(idata)
                .map(|c| c.layout.clone())
                .ok_or("instance has no JIT code")?
        }
    };
    // The instance's layout, whatever the store's tier is now (a woven app in
    // dyn switches it to lazy after the monitors were prepared).
    let mut input = CodegenInput::in_layout(&idata.module, Some(func_idx), None, layout);
    input.cache = code_cache(store);
    Ok(Some(input))
}

/// Point `func`'s entry points (funcref and its instance's vmctx slot) at
/// `code`, its newly compiled code.
fn publish_func(store: &mut Store, func: FuncAddr, code: JitCode) {
    let FuncKind::Wasm { instance, func_idx } = store.funcs[func.0 as usize].kind else {
        return;
    };
    if store.config.tier == crate::runtime::store::Tier::Dyn {
        crate::exec::state_mut(store).jit.dyn_compiled += 1;
    }
    let j = &mut crate::exec::state_mut(store).jit;
    j.compile_time += code.compile_time;
    j.profiling.announce(&code.infos);
    let p = code.funcs[0];
    let o = code.layout.func(func_idx) as usize / 8;
    let inst = &mut store.instances[instance.0 as usize];
    let Some(v) = inst.vmctx.as_mut() else { return };
    let vmctx_ptr = v.as_mut_ptr() as *mut u8;
    v[o + 1] = p as u64;
    v[o + 2] = vmctx_ptr as u64;
    let fr = &mut store.funcrefs[func.0 as usize];
    fr.code = p;
    fr.vmctx = vmctx_ptr;
    retarget_importers(store, func, p, vmctx_ptr);
    let j = &mut crate::exec::state_mut(store).jit;
    j.lazy_code.push(Rc::new(code));
    j.lazy_done.insert(func.0);
    crate::exec::tiering::mark(store, func, crate::exec::tiering::COMPILED);
}

/// Point every other instance's import of `func` at its new code: until
/// then their compiled calls reach it through its stub (`lazy_call`), which
/// works but costs a host-call round trip per call (a probe call from woven
/// code to a monitor function is such an import). Compiled code reads an
/// import's entry at each call, so a call already running is unaffected.
fn retarget_importers(store: &mut Store, func: FuncAddr, code: *const u8, vmctx: *mut u8) {
    for inst in store.instances.iter_mut() {
        let imported = inst.module.num_imported_funcs as usize;
        let Some(layout) = jit_code(inst).map(|c| &c.layout) else {
            continue;
        };
        let entries: smallvec::SmallVec<[usize; 2]> = (0..imported)
            .filter(|&k| inst.funcs[k] == func)
            .map(|k| layout.func(k as u32) as usize / 8)
            .collect();
        if let (Some(v), false) = (inst.vmctx.as_mut(), entries.is_empty()) {
            for o in entries {
                v[o + 1] = code as u64;
                v[o + 2] = vmctx as u64;
            }
        }
    }
}

/// Dyn tier: the interpreter's loop at `pc` of `code`'s function's body
/// (instance `inst`; for a plain body, `interp::plain::osr_pc`) is hot. Compile an entry at that loop (once; in the background if
/// the store compiles there), run the rest of the activation there from the
/// frame's `locals`, and return its results. In the foreground the function
/// itself gets compiled too, for its next calls.
#[cold]
#[inline(never)]
pub(crate) fn osr_enter(
    store: &mut Store,
    inst: usize,
    code: &crate::exec::interp::code::Compiled,
    pc: u32,
    locals: &[u64],
) -> Result<OsrEntry, Trap> {
    if store.config.tier != crate::runtime::store::Tier::Dyn || code.interp_only {
        return Ok(OsrEntry::Never);
    }
    let func_idx = code.func_idx;
    let faddr = store.instances[inst].funcs[func_idx as usize];
    let key = (inst as u32, func_idx, pc);
    let j = &crate::exec::state(store).jit;
    let asked = j.osr_code.contains_key(&key) || j.osr_pending.contains(&key);
    if !asked && !crate::exec::tiering::loop_affordable(store, faddr) {
        return Ok(OsrEntry::Deferred);
    }
    // The entry is asked for before the JIT is set up for the instance (its
    // code fits the layout the set-up gives the instance, `layout_of`): the
    // compiler thread compiles it while this thread builds the trampolines.
    open_cache(store);
    let entry = osr_entry(store, key);
    // (Here, not on the compiler thread with the entry: the entry is ready
    // soonest, which matters more to a loop hot enough to be compiled than
    // the set-up's time on this thread.)
    if ensure_prepared(store).is_err() {
        return Ok(OsrEntry::Never);
    }
    let Some(vmctx) = store.instances[inst].vmctx.as_ref() else {
        return Ok(OsrEntry::Never);
    };
    let vmctx_ptr = vmctx.as_ptr() as *mut u8;
    let Some(entry) = entry else {
        return Ok(OsrEntry::Later);
    };
    if !store.config.background_compile {
        // Later calls run compiled (if the function compiles).
        crate::exec::tiering::settle(store, faddr);
    }
    let Some(entry) = entry else {
        return Ok(OsrEntry::Never);
    };
    // (In the background: once the loop is entered, for the same reason.)
    crate::exec::tiering::settle(store, faddr);
    let args = Value::from_slots(&store.funcs[faddr.0 as usize].ty.params, locals);
    store.vm_store.osr_locals = locals.as_ptr();
    let r = invoke_code(store, faddr, entry.funcs[0], vmctx_ptr, &args);
    store.vm_store.osr_locals = std::ptr::null();
    r.map(OsrEntry::Finished)
}

/// The OSR entry for `key` (instance, function, loop pc): `Some(None)` if it
/// cannot be compiled, `None` while the compiler thread works on it.
fn osr_entry(store: &mut Store, key: (u32, u32, u32)) -> Option<Option<Rc<JitCode>>> {
    if let Some(e) = crate::exec::state(store).jit.osr_code.get(&key) {
        return Some(e.clone());
    }
    let (inst, func_idx, pc) = key;
    let m = store.instances[inst as usize].module.clone();
    if store.config.background_compile {
        let target = background::Target::Osr(inst, func_idx, pc);
        let j = &mut crate::exec::state_mut(store).jit;
        if j.osr_pending.contains(&key) {
            poll_background(store);
            let j = &crate::exec::state(store).jit;
            return j.osr_code.get(&key).cloned();
        }
        let mut input = CodegenInput::new(&m, Some(func_idx), Some(pc), false);
        input.cache = j.cache.clone();
        if j.background.submit(target, input) {
            j.osr_pending.insert(key);
            return None;
        }
    }
    let e = compile_osr(&m, func_idx, pc, code_cache(store))
        .ok()
        .map(Rc::new);
    let j = &mut crate::exec::state_mut(store).jit;
    if let Some(c) = &e {
        j.compile_time += c.compile_time;
        j.profiling.announce(&c.infos);
        j.osr_entries += 1;
    }
    j.osr_code.insert(key, e.clone());
    Some(e)
}

/// Give host functions (that have no code yet) their trampoline and context.
fn fill_funcrefs(store: &mut Store, all: bool) {
    let from = if all {
        0
    } else {
        crate::exec::state(store).jit.filled
    };
    if from == store.funcs.len() {
        // (Every call between the tiers asks: usually nothing is new.)
        return;
    }
    let sc = &mut *store.vm_store as *mut vm::VMStoreCtx;
    for a in from..store.funcs.len() {
        if !store.funcrefs[a].code.is_null() {
            continue;
        }
        if let FuncKind::Host(_) = store.funcs[a].kind {
            let j = &crate::exec::state(store).jit;
            let tramp = match j.clock_tramp {
                Some(c) if store.is_clock(FuncAddr(a as u32)) => Some(c),
                _ => j.tramps.get(&store.funcs[a].type_id).map(|t| t.0),
            };
            if let Some(h) = tramp {
                let ctx = Box::new(libcalls::HostCtx {
                    store_ctx: sc,
                    func: a as u32,
                });
                store.funcrefs[a].code = h;
                store.funcrefs[a].vmctx = &*ctx as *const libcalls::HostCtx as *mut u8;
                crate::exec::state_mut(store).jit.host_ctxs.push(ctx);
            }
        }
    }
    crate::exec::state_mut(store).jit.filled = store.funcs.len();
}

#[repr(C)]
struct EntryArgs {
    tramp: *const u8,
    code: *const u8,
    vmctx: *mut u8,
    buf: *mut u64,
}

extern "C" fn call_entry(p: *mut std::ffi::c_void) {
    // SAFETY: `p` points to the EntryArgs built by `invoke`; `tramp` is an
    // entry trampoline with the signature below.
    unsafe {
        let a = &*(p as *const EntryArgs);
        let f: extern "C" fn(*const u8, *mut u8, *mut u8, *mut u64) = std::mem::transmute(a.tramp);
        f(a.code, a.vmctx, std::ptr::null_mut(), a.buf);
    }
}

/// Call a compiled function.
pub(crate) fn invoke(store: &mut Store, f: FuncAddr, args: &[Value]) -> Result<Vec<Value>, Trap> {
    let fr = store.funcrefs[f.0 as usize];
    invoke_code(store, f, fr.code, fr.vmctx, args)
}

/// Call `code` (with `vmctx`), compiled code of the type of function `f`.
fn invoke_code(
    store: &mut Store,
    f: FuncAddr,
    code: *const u8,
    vmctx: *mut u8,
    args: &[Value],
) -> Result<Vec<Value>, Trap> {
    let ty = &store.funcs[f.0 as usize].ty;
    let mut buf = vec![0u64; buffer_slots(ty)];
    Value::write_all_slots(args, &mut buf);
    run_entry(store, f, code, vmctx, &mut buf)?;
    Ok(Value::from_slots(
        &store.funcs[f.0 as usize].ty.results,
        &buf,
    ))
}

/// Call `f`'s compiled code with its parameter slots in `buf` (at least
/// `buffer_slots` of its type long); its result slots replace them. Slots
/// pass as they are: for a type without references
/// ([`FuncType::is_numeric`]) that is all a call between tiers needs.
pub(crate) fn invoke_slots(store: &mut Store, f: FuncAddr, buf: &mut [u64]) -> Result<(), Trap> {
    let fr = store.funcrefs[f.0 as usize];
    run_entry(store, f, fr.code, fr.vmctx, buf)
}

/// Enter compiled code through the entry trampoline of `f`'s type.
fn run_entry(
    store: &mut Store,
    f: FuncAddr,
    code: *const u8,
    vmctx: *mut u8,
    buf: &mut [u64],
) -> Result<(), Trap> {
    let e =
        entry(store, f).ok_or_else(|| Trap::host("no entry trampoline for this function type"))?;
    enter(store, e, code, vmctx, buf)
}

/// What a call of one function through its entry trampoline looks up, for a
/// caller that makes many calls of it in a row ([`invoke_slots_via`]: a
/// monitor's static calls at match time, millions on a large app): the
/// trampoline of its type (kept by the store's JIT for its lifetime) and the
/// argument buffer's size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    f: FuncAddr,
    tramp: *const u8,
    slots: usize,
}

/// The [`Entry`] of `f`; none before the JIT has the trampolines of its type.
pub(crate) fn entry(store: &Store, f: FuncAddr) -> Option<Entry> {
    let fi = &store.funcs[f.0 as usize];
    let tramp = crate::exec::state(store).jit.tramps.get(&fi.type_id)?.1;
    Some(Entry {
        f,
        tramp,
        slots: buffer_slots(&fi.ty),
    })
}

/// [`invoke_slots`] through an [`Entry`] of the function (no lookups).
pub(crate) fn invoke_slots_via(store: &mut Store, e: Entry, buf: &mut [u64]) -> Result<(), Trap> {
    let fr = store.funcrefs[e.f.0 as usize];
    enter(store, e, fr.code, fr.vmctx, buf)
}

/// Run `code` (with `vmctx`) through `e`'s trampoline on `buf`.
fn enter(
    store: &mut Store,
    e: Entry,
    code: *const u8,
    vmctx: *mut u8,
    buf: &mut [u64],
) -> Result<(), Trap> {
    if buf.len() < e.slots {
        return Err(Trap::host(
            "argument buffer too small for this function type",
        ));
    }
    signals::install();
    store.vm_store.store = store as *mut Store;
    let outermost = store.vm_store.stack_limit == 0;
    if outermost {
        store.vm_store.stack_limit = signals::stack_limit();
    }
    fill_funcrefs(store, false);
    let mut ea = EntryArgs {
        tramp: e.tramp,
        code,
        vmctx,
        buf: buf.as_mut_ptr(),
    };
    store.depth += 1;
    let trapped = signals::catch_traps(
        call_entry,
        &mut ea as *mut EntryArgs as *mut std::ffi::c_void,
    );
    store.depth -= 1;
    if outermost {
        store.vm_store.stack_limit = 0;
    }
    match trapped {
        Some((pc, rets)) => Err(trap_from_pc(store, pc, &rets)),
        None => Ok(()),
    }
}

/// The trap at `pc`; `rets` are the return addresses of the frames above it
/// (innermost first), to name the calling site of a failed host call and the
/// probe a trapping monitor function was called from.
fn trap_from_pc(store: &mut Store, pc: usize, rets: &[usize]) -> Trap {
    // A host function's (or the lazy stub's) trap that names its own site
    // (e.g. deep inside a monitor function compiled on first call) keeps it.
    let host_site = crate::exec::state(store)
        .jit
        .pending_trap
        .as_ref()
        .is_some_and(|t| t.site.is_some());
    let mut t = trap_at(store, pc, rets);
    if t.exit_code().is_some() {
        return t;
    }
    // A trap inside monitor code (inlined, or called by a woven probe): name
    // the monitor function and the probe, as the interpreter does.
    let host = t.site.is_some() && signals::lookup(pc).is_some_and(|l| l.1.is_none());
    let addrs = std::iter::once(pc).chain(rets.iter().map(|r| r - 1));
    for (k, a) in addrs.enumerate() {
        if let Some((from, site)) = signals::inlined_at(a) {
            if !host_site && (k == 0 || (k == 1 && host)) {
                t.site = Some(TrapSite {
                    func: from.func,
                    func_name: from.func_name.to_string(),
                    pc: from.pc,
                });
            }
            return Trap::host(format!(
                "{} trapped: {t} (probe at {} (func {}) pc 0x{:x})",
                from.origin, site.func_name, site.func, site.pc
            ));
        }
        if let Some((origin, site)) = signals::probe_call_at(a) {
            return Trap::host(format!(
                "{origin} trapped: {t} (probe at {} (func {}) pc 0x{:x})",
                site.func_name, site.func, site.pc
            ));
        }
    }
    t
}

/// Cranelift merges a load into the instruction that consumes it, so a
/// guard-page fault can carry the consumer's location `at`. The access that
/// faulted is then the last load/store at or before `at` with no control flow
/// in between (within one expression tree).
///
/// When the faulting instruction has no location of its own (`borrowed`, see
/// `signals::borrowed_location`; `located.rs` gives one to every location-less
/// direct consumer of a load, so this is a longer chain), `at` is the op
/// located just before it.
/// The access is then the first one of `at`'s straight-line code (no
/// control flow in between) whose own location holds no trapping
/// instruction (not in `located`: its load was merged elsewhere, e.g. into
/// a splat the egraph rebuilt without a location); failing that, the first
/// load/store from `at` on (after `at` when `at`'s own access has its
/// location, `Some(true)`); the backward search is the last fallback.
///
/// A bulk memory op at `at` is the access only for an `explicit` trap (its
/// libcall's check); a guard-page fault there is a load merged into its
/// operands (e.g. the widening of `memory.fill`'s destination).
fn faulting_access(
    body: &[u8],
    at: u32,
    borrowed: Option<bool>,
    explicit: bool,
    located: &[u32],
) -> Option<u32> {
    if borrowed.is_some() {
        if let Some(p) = unlocated_access(body, at, located) {
            return Some(p);
        }
    }
    let fb = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(body, 0));
    let mut ops = fb.get_operators_reader().ok()?;
    let mut last: Option<u32> = None;
    while !ops.eof() {
        let (op, off) = ops.read_with_offset().ok()?;
        let off = off as u32;
        use wasmparser::Operator as O;
        let (access, control) = (is_access(&op), ends_block(&op));
        if off > at {
            match borrowed {
                Some(_) if access => return Some(off),
                Some(_) if !control => continue,
                _ => break,
            }
        }
        // A bulk memory op at `at` traps by itself (its libcall's check), and
        // an atomic access is never merged into another instruction.
        if off == at
            && ((explicit
                && matches!(
                    op,
                    O::MemoryInit { .. } | O::MemoryCopy { .. } | O::MemoryFill { .. }
                ))
                || crate::exec::interp::atomic_memarg(&op).is_some())
        {
            return Some(off);
        }
        if off == at && access && borrowed == Some(false) {
            return Some(off);
        }
        if access {
            last = Some(off);
        } else if control {
            last = None;
        }
    }
    last
}

/// A load or store (scalar, SIMD or atomic) with a memarg.
fn is_access(op: &wasmparser::Operator<'_>) -> bool {
    crate::core::operators::memarg_of(op).is_some()
        || crate::exec::interp::simd::MemOp::from_operator(op).is_some()
}

/// Control flow that ends a Cranelift block (a `block` start does not).
fn ends_block(op: &wasmparser::Operator<'_>) -> bool {
    use wasmparser::Operator as O;
    matches!(
        op,
        O::Loop { .. }
            | O::If { .. }
            | O::Else
            | O::End
            | O::Br { .. }
            | O::BrIf { .. }
            | O::BrTable { .. }
            | O::Call { .. }
            | O::CallIndirect { .. }
            | O::Return
    )
}

/// The first access of the straight-line code around `at` that is not in
/// `located` (see `faulting_access`).
fn unlocated_access(body: &[u8], at: u32, located: &[u32]) -> Option<u32> {
    let fb = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(body, 0));
    let mut ops = fb.get_operators_reader().ok()?;
    let mut first: Option<u32> = None;
    while !ops.eof() {
        let (op, off) = ops.read_with_offset().ok()?;
        let off = off as u32;
        if ends_block(&op) {
            if off >= at {
                return first;
            }
            first = None;
        } else if first.is_none() && is_access(&op) && !located.contains(&off) {
            first = Some(off);
        }
    }
    first
}

fn site_at(pc: usize) -> Option<TrapSite> {
    let (_, func_idx, name, wasm_pc) = signals::lookup(pc)?;
    Some(TrapSite {
        func: func_idx?,
        func_name: name,
        pc: wasm_pc.unwrap_or(0),
    })
}

fn trap_at(store: &mut Store, pc: usize, rets: &[usize]) -> Trap {
    let Some((code, func_idx, name, wasm_pc)) = signals::lookup(pc) else {
        return Trap::host(format!("fault in JIT code at {pc:#x}"));
    };
    use ir::TrapCode as T;
    let kind = match code {
        Some(T::HeapOutOfBounds) => TrapKind::MemoryOutOfBounds,
        // Cranelift checks the alignment of atomic accesses only.
        Some(T::HeapMisaligned) => TrapKind::UnalignedAtomic,
        Some(T::NullReference) => TrapKind::NullReference,
        Some(T::TableOutOfBounds) => TrapKind::TableOutOfBounds,
        Some(T::IndirectCallToNull) => TrapKind::UninitializedElement,
        Some(T::BadSignature) => TrapKind::IndirectCallTypeMismatch,
        Some(T::IntegerOverflow) => TrapKind::IntegerOverflow,
        Some(T::IntegerDivisionByZero) => TrapKind::IntegerDivideByZero,
        Some(T::BadConversionToInteger) => TrapKind::InvalidConversionToInteger,
        Some(T::UnreachableCodeReached) => TrapKind::Unreachable,
        Some(T::StackOverflow) => {
            // Detected by the callee's prologue check (after its frame setup,
            // so the first return address is in the caller): report the call
            // site in the caller, as the interpreter does.
            let site = rets.first().and_then(|r| site_at(r - 1));
            if site.is_some() {
                return Trap {
                    kind: TrapKind::CallStackExhausted,
                    site,
                };
            }
            TrapKind::CallStackExhausted
        }
        Some(c) if c == env::TRAP_UNDEFINED_ELEMENT => TrapKind::UndefinedElement,
        Some(c) if c == env::TRAP_NULL_FUNC_REF => TrapKind::NullFunctionReference,
        Some(c) if c == env::TRAP_WAIT_UNSHARED => TrapKind::WaitOnUnsharedMemory,
        Some(c) if c == env::TRAP_WAIT_FOREVER => TrapKind::WaitForever,
        Some(c) if c == env::TRAP_HOST => {
            let mut t = crate::exec::state_mut(store)
                .jit
                .pending_trap
                .take()
                .unwrap_or_else(|| Trap::host("host function failed"));
            // Name the Wasm function that called the host function.
            if t.site.is_none() && t.exit_code().is_none() {
                t.site = rets.first().and_then(|r| site_at(r - 1));
            }
            return t;
        }
        Some(c) => TrapKind::Host(format!("JIT trap {c:?}")),
        None => TrapKind::Host(format!("fault in JIT code at {pc:#x}")),
    };
    let mut pc_in_body = wasm_pc.unwrap_or(0);
    if kind == TrapKind::MemoryOutOfBounds {
        let borrowed = signals::borrowed_location(pc);
        // An explicit trap (`ud2`: a bulk op's failed check) or a fault of an
        // access (guard page).
        // SAFETY: `pc` is the start of an instruction in registered JIT code
        // (`lookup` found it), and every x86 instruction that faults or traps
        // here is at least 2 bytes long.
        let explicit = unsafe { std::ptr::read(pc as *const [u8; 2]) } == [0x0f, 0x0b];
        let located = signals::located_trap_pcs(pc);
        if let Some(p) = signals::body_at(pc)
            .and_then(|b| faulting_access(&b, pc_in_body, borrowed, explicit, &located))
        {
            pc_in_body = p;
        }
    }
    let site = func_idx.map(|f| TrapSite {
        func: f,
        func_name: name,
        pc: pc_in_body,
    });
    Trap { kind, site }
}

/// `WIZENG_DUMP_CLIF=N[,M...]|all`: print the optimised Cranelift IR of those
/// functions (by function index) to stderr as they are compiled.
fn dump_clif(idx: u32) -> bool {
    static SEL: std::sync::OnceLock<Option<Vec<u32>>> = std::sync::OnceLock::new();
    selected(&SEL, "WIZENG_DUMP_CLIF", idx)
}

/// `WIZENG_DUMP_ASM=N[,M...]|all`: print the machine code of those functions
/// (Cranelift's listing, registers allocated) to stderr as they are compiled.
fn dump_asm(idx: u32) -> bool {
    static SEL: std::sync::OnceLock<Option<Vec<u32>>> = std::sync::OnceLock::new();
    selected(&SEL, "WIZENG_DUMP_ASM", idx)
}

/// Whether the function list in environment variable `var` holds `idx`.
fn selected(sel: &std::sync::OnceLock<Option<Vec<u32>>>, var: &str, idx: u32) -> bool {
    let sel = sel.get_or_init(|| {
        let v = std::env::var(var).ok()?;
        Some(if v == "all" {
            Vec::new()
        } else {
            v.split(',').filter_map(|x| x.trim().parse().ok()).collect()
        })
    });
    sel.as_ref()
        .is_some_and(|v| v.is_empty() || v.contains(&idx))
}
