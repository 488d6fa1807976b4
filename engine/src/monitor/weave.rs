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
//! emitted at their sites; each straight-line block with at least two of them
//! increments one counter (a mutable i64 global appended to the woven module's
//! globals) at its entry instead. The counts reach the monitors' memories
//! through fold functions appended after the app's functions, the first of
//! them exported as [`crate::monitor::blockcount::FOLD_EXPORT`] (`wizeng:fold`,
//! `[] -> []`). No probe of the woven code can read a counted memory (see
//! `blockcount::countable`). **Whoever runs a woven module must call `wizeng:fold`
//! before a monitor's `wasm:exit`** (the engine does it in
//! [`crate::monitor::blockcount::BlockCounters::settle`], which also corrects a block
//! left partly executed by a trap, from `Woven::counters`). A module with a
//! start function gets no block counters (the fold could not be called if it
//! trapped during instantiation).

use std::collections::HashMap;

pub use crate::core::provenance::{InlinedFrom, Origin};

use wasm_encoder::reencode::{Reencode, RoundtripReencoder};
use wasm_encoder::{Encode, Instruction};
use wasmparser::Operator;

use crate::monitor::blockcount::{self, BlockCounters, Ev, FuncBlocks};
use crate::core::error::LoadError;
use crate::monitor::inline::{FrameOp, FrameUse, FrameUses, Intrinsic};
use crate::core::probe::{ArgSource, Instrumenter, ProbeCall, Site, When};
use crate::core::module::Module;
use crate::core::types::{FuncAddr, FuncType, ValType};

/// Module name of the probe imports of a woven module.
pub const PROBE_MODULE: &str = "wizeng:probe";

/// Probes of one function.
#[derive(Default)]
pub struct FuncPlan {
    pub entry: Vec<ProbeCall>,
    pub before: HashMap<u32, Vec<ProbeCall>>,
    pub after: HashMap<u32, Vec<ProbeCall>>,
    /// The operand stack at sites whose probes read operands or take `frame`,
    /// by (pc, after); the entry site is (0, false).
    pub stacks: HashMap<(u32, bool), SiteStack>,
}

/// The operand stack of the probed frame at a site, from validation.
#[derive(Clone, Debug, Default)]
pub struct SiteStack {
    /// Operand types, top first (up to the first unknown one).
    pub types: Vec<ValType>,
    /// Operand height of the frame: what `get_num_operands` returns there.
    pub height: u32,
    /// How many operands from the top the woven code at the site can pop and
    /// push back (those of the innermost block it is in).
    pub accessible: u32,
}

impl SiteStack {
    fn at(site: &Site<'_, '_>, when: When) -> SiteStack {
        let v = site.validator;
        let types = (0..v.operand_stack_height())
            .map_while(|d| {
                v.get_operand_type(d as usize)
                    .flatten()
                    .map(ValType::from_wasmparser)
            })
            .collect();
        let height = v.operand_stack_height();
        let block = v.get_control_frame(0).map_or(0, |f| f.height as u32);
        let mut accessible = height.saturating_sub(block);
        // Probes at a `loop` are woven inside it (see `blockcount::layout`),
        // where only the loop's params could be reached: none are used.
        if when == When::Before && matches!(site.op, Some(Operator::Loop { .. })) {
            accessible = 0;
        }
        SiteStack {
            types,
            height,
            accessible,
        }
    }

    /// Whether inlined code at this site can access the frame this way with
    /// the ABI's semantics (else the accessor would trap, or its operand is out
    /// of the woven code's reach).
    fn allows(&self, u: FrameUse, local_types: &[ValType]) -> bool {
        let i = u.index as usize;
        match u.op {
            FrameOp::Pc | FrameOp::Fid | FrameOp::NumLocals | FrameOp::NumOperands => true,
            FrameOp::Local { ty, .. } => local_types.get(i) == Some(&ty),
            FrameOp::Operand { ty, .. } => {
                u.index < self.accessible && self.types.get(i) == Some(&ty)
            }
        }
    }
}

/// The match result of a whole module, by function index.
#[derive(Default)]
pub struct Plan {
    pub funcs: HashMap<u32, FuncPlan>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }
    /// Whether some probe needs a materialised frame, so the app must run in
    /// the interpreter: it takes `frame` and is not inlined with every use of
    /// the handle an intrinsic (`inline::frame_uses`) that is valid at every
    /// site of that probe (locals and operands of the accessed type,
    /// operands within the woven code's reach: `SiteStack::allows`).
    pub fn frames_need_interpreter(
        &self,
        m: &Module,
        store: &crate::runtime::store::Store,
        cfg: &crate::monitor::inline::InlineConfig,
    ) -> bool {
        let mut uses: HashMap<(FuncAddr, u32), Option<crate::monitor::inline::FrameUses>> = HashMap::new();
        let mut needs = |f: u32, c: &ProbeCall, stack: Option<&SiteStack>| -> bool {
            let Some(p) = c.args.iter().position(|a| *a == ArgSource::Frame) else {
                return false;
            };
            if !cfg.enabled || c.args.iter().filter(|a| **a == ArgSource::Frame).count() > 1 {
                return true;
            }
            let fu = uses.entry((c.func, p as u32)).or_insert_with(|| {
                crate::monitor::inline::frame_uses_if_inlinable(store, c.func, p as u32, cfg)
            });
            let (Some(fu), Some(stack)) = (fu, stack) else {
                return true;
            };
            let Some(code) = f
                .checked_sub(m.num_imported_funcs)
                .and_then(|d| crate::exec::interp::load::module_code(m).get(d as usize))
            else {
                return true;
            };
            !fu.uses().all(|u| stack.allows(u, &code.local_types))
        };
        self.funcs.iter().any(|(f, fp)| {
            let site = |pc: u32, after: bool| fp.stacks.get(&(pc, after));
            fp.entry.iter().any(|c| needs(*f, c, site(0, false)))
                || fp
                    .before
                    .iter()
                    .any(|(pc, cs)| cs.iter().any(|c| needs(*f, c, site(*pc, false))))
                || fp
                    .after
                    .iter()
                    .any(|(pc, cs)| cs.iter().any(|c| needs(*f, c, site(*pc, true))))
        })
    }
}

/// Records the probes an inner instrumenter attaches.
pub struct Recorder<'a> {
    pub inner: &'a mut dyn Instrumenter,
    pub plan: Plan,
}

impl Instrumenter for Recorder<'_> {
    fn begin_function(
        &mut self,
        func_idx: u32,
        body: &[u8],
        body_offset: usize,
    ) -> Result<(), LoadError> {
        self.inner.begin_function(func_idx, body, body_offset)
    }
    fn dynamic(&self) -> bool {
        self.inner.dynamic()
    }
    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Vec<ProbeCall>, LoadError> {
        let calls = self.inner.probes(when, site)?;
        if !calls.is_empty() {
            let fp = self.plan.funcs.entry(site.func_idx).or_default();
            let needs_stack = calls.iter().any(|c| {
                c.args
                    .iter()
                    .any(|a| matches!(a, ArgSource::Operand(_) | ArgSource::Frame))
            });
            if needs_stack {
                fp.stacks
                    .insert((site.pc, when == When::After), SiteStack::at(site, when));
            }
            match when {
                When::Entry => fp.entry.extend(calls.iter().cloned()),
                When::Before => fp
                    .before
                    .entry(site.pc)
                    .or_default()
                    .extend(calls.iter().cloned()),
                When::After => fp
                    .after
                    .entry(site.pc)
                    .or_default()
                    .extend(calls.iter().cloned()),
            }
        }
        Ok(calls)
    }
}

pub struct Woven {
    pub bytes: Vec<u8>,
    pub origin: Origin,
    /// Imports of module [`PROBE_MODULE`] to define: name and what it is bound to
    /// (monitor functions, and the memories/globals inlined monitor code uses).
    pub imports: Vec<(String, crate::core::types::Extern)>,
    pub stats: crate::monitor::inline::InlineStats,
    /// Block counters; before a monitor's `wasm:exit`, call
    /// [`BlockCounters::settle`] (or, outside this engine, the export
    /// [`blockcount::FOLD_EXPORT`]).
    pub counters: BlockCounters,
}

/// Index shifts: added imports come right after the app's own imports of each kind.
struct Weaver {
    orig_imports: u32,
    shift: u32,
    orig_mem_imports: u32,
    mem_shift: u32,
    orig_global_imports: u32,
    global_shift: u32,
}

impl Reencode for Weaver {
    type Error = std::convert::Infallible;
    fn function_index(&mut self, f: u32) -> u32 {
        if f >= self.orig_imports {
            f + self.shift
        } else {
            f
        }
    }
    fn memory_index(&mut self, m: u32) -> u32 {
        if m >= self.orig_mem_imports {
            m + self.mem_shift
        } else {
            m
        }
    }
    fn global_index(&mut self, g: u32) -> u32 {
        if g >= self.orig_global_imports {
            g + self.global_shift
        } else {
            g
        }
    }
}

/// Indices of everything added to the woven module.
struct Added {
    func_idx: HashMap<FuncAddr, u32>,
    mem_idx: HashMap<crate::core::types::MemAddr, u32>,
    global_idx: HashMap<crate::core::types::GlobalAddr, u32>,
    /// Monitor functions inlined at probe sites.
    inline: std::collections::HashSet<FuncAddr>,
    /// How inlined probe functions use their frame handle param, by (function, param).
    frame_uses: HashMap<(FuncAddr, u32), FrameUses>,
    /// Type index of `[] -> results` for multi-value wrappers, by results.
    result_types: HashMap<Vec<ValType>, u32>,
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
    }
}

/// The same load/store with another memarg.
fn remap_memarg<'a>(i: Instruction<'a>, m: wasm_encoder::MemArg) -> Instruction<'a> {
    use Instruction as I;
    match i {
        I::I32Load(_) => I::I32Load(m),
        I::I64Load(_) => I::I64Load(m),
        I::F32Load(_) => I::F32Load(m),
        I::F64Load(_) => I::F64Load(m),
        I::I32Load8S(_) => I::I32Load8S(m),
        I::I32Load8U(_) => I::I32Load8U(m),
        I::I32Load16S(_) => I::I32Load16S(m),
        I::I32Load16U(_) => I::I32Load16U(m),
        I::I64Load8S(_) => I::I64Load8S(m),
        I::I64Load8U(_) => I::I64Load8U(m),
        I::I64Load16S(_) => I::I64Load16S(m),
        I::I64Load16U(_) => I::I64Load16U(m),
        I::I64Load32S(_) => I::I64Load32S(m),
        I::I64Load32U(_) => I::I64Load32U(m),
        I::I32Store(_) => I::I32Store(m),
        I::I64Store(_) => I::I64Store(m),
        I::F32Store(_) => I::F32Store(m),
        I::F64Store(_) => I::F64Store(m),
        I::I32Store8(_) => I::I32Store8(m),
        I::I32Store16(_) => I::I32Store16(m),
        I::I64Store8(_) => I::I64Store8(m),
        I::I64Store16(_) => I::I64Store16(m),
        I::I64Store32(_) => I::I64Store32(m),
        other => other,
    }
}

fn err(msg: impl std::fmt::Display) -> LoadError {
    LoadError {
        kind: crate::core::error::LoadErrorKind::MonitorBind,
        offset: None,
        message: format!("weaving: {msg}"),
    }
}

/// Emits one function's body.
struct Body<'p> {
    code: Vec<u8>,
    /// Declared locals (original first, then scratch).
    locals: Vec<ValType>,
    num_params: u32,
    scratch: HashMap<(ValType, u32), u32>,
    pcs: Vec<(u32, u32)>,
    probe_calls: Vec<(u32, std::sync::Arc<str>)>,
    added: &'p Added,
    header_len: u32,
    store: &'p crate::runtime::store::Store,
    cfg: &'p crate::monitor::inline::InlineConfig,
    /// App locals used for each (inlined function, depth)'s locals.
    inline_locals: HashMap<(FuncAddr, u32), Vec<u32>>,
    /// (woven pc, where the inlined instruction came from).
    inlined: Vec<(u32, InlinedFrom)>,
    /// The original pc of the site being woven.
    site_pc: u32,
    /// The original index of the function being woven.
    site_fid: u32,
    /// Params and locals of the function being woven (before any added).
    num_locals: u32,
    /// The operand height at the site being woven (`SiteStack::height`).
    site_height: u32,
    /// The scratch locals the site's top operands are saved in while its
    /// probes run (top first).
    saved: Vec<u32>,
    /// How the probe function being inlined (depth 0) uses its frame handle.
    frame_uses: Option<&'p FrameUses>,
    /// Which probe functions only test an operand against zero (shared by
    /// the module's functions).
    zero_tested: &'p mut crate::monitor::inline::ZeroTested,
    /// Probe calls inlined twice under a test of their operand.
    specialized: u64,
}

impl<'p> Body<'p> {
    fn ins(&mut self, i: &Instruction<'_>) {
        i.encode(&mut self.code);
    }

    fn scratch(&mut self, t: ValType, k: u32) -> u32 {
        if let Some(l) = self.scratch.get(&(t, k)) {
            return *l;
        }
        self.locals.push(t);
        let l = self.num_params + self.locals.len() as u32 - 1;
        self.scratch.insert((t, k), l);
        l
    }

    fn block_type(&self, results: &[ValType]) -> wasm_encoder::BlockType {
        match results.len() {
            0 => wasm_encoder::BlockType::Empty,
            1 => wasm_encoder::BlockType::Result(enc_val(results[0])),
            _ => wasm_encoder::BlockType::FunctionType(self.added.result_types[results]),
        }
    }

    /// Inline monitor function `addr`; its arguments are on the stack. With
    /// `drop_results`, its results are dropped (a probe's are ignored).
    fn inline(
        &mut self,
        addr: FuncAddr,
        depth: u32,
        origin: &std::sync::Arc<str>,
        drop_results: bool,
    ) -> Result<(), LoadError> {
        let store = self.store;
        let crate::runtime::store::FuncKind::Wasm { instance, func_idx } = store.funcs[addr.0 as usize].kind
        else {
            return Err(err("inlining a host function"));
        };
        let idata = store.instance(instance);
        let mm = idata.module.clone();
        let fty = mm.func_type(func_idx).clone();
        let fname: std::sync::Arc<str> = mm.func_name(func_idx).into();
        let mbody = mm.body(func_idx);
        let mut ltypes: Vec<ValType> = fty.params.to_vec();
        ltypes.extend(mbody.locals.iter().copied());
        let map = match self.inline_locals.get(&(addr, depth)) {
            Some(m) => m.clone(),
            None => {
                let mut m = Vec::with_capacity(ltypes.len());
                for t in &ltypes {
                    self.locals.push(*t);
                    m.push(self.num_params + self.locals.len() as u32 - 1);
                }
                self.inline_locals.insert((addr, depth), m.clone());
                m
            }
        };
        let np = fty.params.len();
        for i in (0..np).rev() {
            self.ins(&Instruction::LocalSet(map[i]));
        }
        for (i, t) in ltypes.iter().enumerate().skip(np) {
            match t {
                ValType::I32 => self.ins(&Instruction::I32Const(0)),
                ValType::I64 => self.ins(&Instruction::I64Const(0)),
                ValType::F32 => self.ins(&Instruction::F32Const(0.0)),
                ValType::F64 => self.ins(&Instruction::F64Const(0.0)),
                ValType::FuncRef => {
                    self.ins(&Instruction::RefNull(wasm_encoder::HeapType::Abstract {
                        shared: false,
                        ty: wasm_encoder::AbstractHeapType::Func,
                    }))
                }
                ValType::ExternRef => {
                    self.ins(&Instruction::RefNull(wasm_encoder::HeapType::Abstract {
                        shared: false,
                        ty: wasm_encoder::AbstractHeapType::Extern,
                    }))
                }
                ValType::V128 => return Err(err("v128 locals")),
            }
            self.ins(&Instruction::LocalSet(map[i]));
        }
        let bt = self.block_type(&fty.results);
        self.ins(&Instruction::Block(bt));
        let mut rt = RoundtripReencoder;
        let mut ops = mm.operators(func_idx);
        let mut d = 0u32;
        let frame_uses = if depth == 0 { self.frame_uses } else { None };
        let mut n = 0usize;
        while !ops.eof() {
            let off = ops.original_position();
            let op = ops.read().map_err(LoadError::from)?;
            n += 1;
            match frame_uses.and_then(|f| f.at.get(&(n - 1))) {
                Some(Intrinsic::Elide) => continue,
                Some(Intrinsic::Access(u)) => {
                    self.frame_access(*u);
                    continue;
                }
                None => {}
            }
            let mpc = (off - mbody.range.start) as u32;
            let here = self.code.len() as u32;
            self.pcs.push((here, self.site_pc));
            self.inlined.push((
                here,
                InlinedFrom {
                    origin: origin.clone(),
                    func: func_idx,
                    func_name: fname.clone(),
                    pc: mpc,
                },
            ));
            use Operator as O;
            match &op {
                O::Block { .. } | O::Loop { .. } | O::If { .. } => {
                    d += 1;
                    self.ins(&rt.instruction(op.clone()).map_err(err)?);
                }
                O::End if d == 0 => {
                    self.ins(&Instruction::End);
                    break;
                }
                O::End => {
                    d -= 1;
                    self.ins(&Instruction::End);
                }
                O::Return => self.ins(&Instruction::Br(d)),
                O::LocalGet { local_index } => {
                    self.ins(&Instruction::LocalGet(map[*local_index as usize]))
                }
                O::LocalSet { local_index } => {
                    self.ins(&Instruction::LocalSet(map[*local_index as usize]))
                }
                O::LocalTee { local_index } => {
                    self.ins(&Instruction::LocalTee(map[*local_index as usize]))
                }
                O::GlobalGet { global_index } => self.ins(&Instruction::GlobalGet(
                    self.added.global_idx[&idata.globals[*global_index as usize]],
                )),
                O::GlobalSet { global_index } => self.ins(&Instruction::GlobalSet(
                    self.added.global_idx[&idata.globals[*global_index as usize]],
                )),
                O::Call { function_index } => {
                    let callee = idata.funcs[*function_index as usize];
                    if depth < self.cfg.max_depth && !self.added.func_idx.contains_key(&callee) {
                        self.inline(callee, depth + 1, origin, false)?;
                    } else {
                        self.ins(&Instruction::Call(self.added.func_idx[&callee]));
                    }
                }
                O::MemorySize { mem, .. } => self.ins(&Instruction::MemorySize(
                    self.added.mem_idx[&idata.memories[*mem as usize]],
                )),
                O::MemoryGrow { mem, .. } => self.ins(&Instruction::MemoryGrow(
                    self.added.mem_idx[&idata.memories[*mem as usize]],
                )),
                O::MemoryFill { mem } => self.ins(&Instruction::MemoryFill(
                    self.added.mem_idx[&idata.memories[*mem as usize]],
                )),
                O::MemoryCopy { dst_mem, src_mem } => self.ins(&Instruction::MemoryCopy {
                    dst_mem: self.added.mem_idx[&idata.memories[*dst_mem as usize]],
                    src_mem: self.added.mem_idx[&idata.memories[*src_mem as usize]],
                }),
                _ => {
                    let mut inst = rt.instruction(op.clone()).map_err(err)?;
                    if let Some(ma) = crate::core::operators::memarg_of(&op) {
                        let target = self.added.mem_idx[&idata.memories[ma.memory as usize]];
                        let mut ma2 = rt.mem_arg(ma);
                        ma2.memory_index = target;
                        inst = remap_memarg(inst, ma2);
                    }
                    self.ins(&inst);
                }
            }
        }
        if drop_results {
            for _ in 0..fty.results.len() {
                self.ins(&Instruction::Drop);
            }
        }
        Ok(())
    }

    /// A frame accessor call of inlined code, as a direct access (see
    /// `inline::frame_uses`; `Plan::frames_need_interpreter` checked it is
    /// valid at this site).
    fn frame_access(&mut self, u: FrameUse) {
        let i = match u.op {
            FrameOp::Pc => Instruction::I32Const(self.site_pc as i32),
            FrameOp::Fid => Instruction::I32Const(self.site_fid as i32),
            FrameOp::NumLocals => Instruction::I32Const(self.num_locals as i32),
            FrameOp::NumOperands => Instruction::I32Const(self.site_height as i32),
            FrameOp::Local { set: false, .. } => Instruction::LocalGet(u.index),
            FrameOp::Local { set: true, .. } => Instruction::LocalSet(u.index),
            FrameOp::Operand { set: false, .. } => {
                Instruction::LocalGet(self.saved[u.index as usize])
            }
            FrameOp::Operand { set: true, .. } => {
                Instruction::LocalSet(self.saved[u.index as usize])
            }
        };
        self.ins(&i);
    }

    /// The frame uses of call `c` if it is inlined and takes `frame`.
    fn frame_uses_of(&self, c: &ProbeCall) -> Option<&'p FrameUses> {
        let p = c.args.iter().position(|a| *a == ArgSource::Frame)?;
        self.added.frame_uses.get(&(c.func, p as u32))
    }

    /// Calls for one site. The top operands the probes read (`argN`, or
    /// operand accesses of inlined code) are saved in scratch locals first
    /// and pushed back after the last probe, so probes see what earlier ones
    /// wrote with `set_operand_T`, as in the interpreter.
    fn probes(&mut self, calls: &[ProbeCall], stack: Option<&SiteStack>) -> Result<(), LoadError> {
        if calls.is_empty() {
            return Ok(());
        }
        let depth = calls
            .iter()
            .flat_map(|c| {
                let args = c.args.iter().filter_map(|a| match a {
                    ArgSource::Operand(n) => Some(*n + 1),
                    _ => None,
                });
                args.chain(self.frame_uses_of(c).map(|f| f.operand_depth()))
            })
            .max()
            .unwrap_or(0);
        self.saved.clear();
        self.site_height = stack.map_or(0, |s| s.height);
        if depth > 0 {
            let stack = stack.ok_or_else(|| err("operand types unknown at a probe site"))?;
            for k in 0..depth {
                let t = *stack
                    .types
                    .get(k as usize)
                    .ok_or_else(|| err("operand below the frame's stack"))?;
                let l = self.scratch(t, k);
                self.saved.push(l);
                self.ins(&Instruction::LocalSet(l));
            }
        }
        for c in calls {
            match self.zero_tested_operand(c) {
                // The probe only tests this operand against zero: inline it
                // twice, with 1 and with 0, under a test of the operand; each
                // copy folds to constants (e.g. a fixed counter address).
                Some((i, n)) => {
                    self.specialized += 1;
                    self.ins(&Instruction::LocalGet(self.saved[n as usize]));
                    self.ins(&Instruction::If(wasm_encoder::BlockType::Empty));
                    self.call(c, Some((i, 1)))?;
                    self.ins(&Instruction::Else);
                    self.call(c, Some((i, 0)))?;
                    self.ins(&Instruction::End);
                }
                None => self.call(c, None)?,
            }
        }
        for k in (0..self.saved.len()).rev() {
            self.ins(&Instruction::LocalGet(self.saved[k]));
        }
        Ok(())
    }

    /// The probe call `c`: its arguments (argument `fixed.0` replaced by the
    /// constant `fixed.1`), then the inlined function or a call.
    fn call(&mut self, c: &ProbeCall, fixed: Option<(usize, i32)>) -> Result<(), LoadError> {
        for (k, (a, t)) in c.args.iter().zip(&c.types).enumerate() {
            if let Some((_, v)) = fixed.filter(|(i, _)| *i == k) {
                self.ins(&Instruction::I32Const(v));
                continue;
            }
            match a {
                ArgSource::Const(v) => match t {
                    ValType::I32 => self.ins(&Instruction::I32Const(*v as u32 as i32)),
                    ValType::I64 => self.ins(&Instruction::I64Const(*v as i64)),
                    ValType::F32 => self.ins(&Instruction::F32Const(f32::from_bits(*v as u32))),
                    ValType::F64 => self.ins(&Instruction::F64Const(f64::from_bits(*v))),
                    _ => return Err(err(format!("cannot pass a constant of type {t}"))),
                },
                ArgSource::Operand(n) => self.ins(&Instruction::LocalGet(self.saved[*n as usize])),
                ArgSource::Local(n) => self.ins(&Instruction::LocalGet(*n)),
                // Inlined, every use of the handle is an intrinsic
                // (`Plan::frames_need_interpreter`): no frame is materialised.
                ArgSource::Frame if self.frame_uses_of(c).is_some() => {
                    self.ins(&Instruction::RefNull(wasm_encoder::HeapType::Abstract {
                        shared: false,
                        ty: wasm_encoder::AbstractHeapType::Extern,
                    }))
                }
                ArgSource::Frame => {
                    return Err(err(
                        "a probe that takes `frame` and is not inlined needs the interpreter",
                    ))
                }
            }
        }
        if self.added.inline.contains(&c.func) {
            self.frame_uses = self.frame_uses_of(c);
            let r = self.inline(c.func, 0, &c.origin, true);
            self.frame_uses = None;
            r?;
        } else {
            let idx = self.added.func_idx[&c.func];
            self.probe_calls
                .push((self.code.len() as u32, c.origin.clone()));
            self.ins(&Instruction::Call(idx));
            let nres = self.store.func_type(c.func).results.len();
            for _ in 0..nres {
                self.ins(&Instruction::Drop);
            }
        }
        Ok(())
    }

    /// For an inlined probe call without frame intrinsics: (argument index,
    /// operand) of an `i32` operand argument its function only tests against
    /// zero, with some test's result used as a value
    /// (`inline::zero_tested_param`).
    fn zero_tested_operand(&mut self, c: &ProbeCall) -> Option<(usize, u32)> {
        if !self.cfg.specialize
            || !self.added.inline.contains(&c.func)
            || self.frame_uses_of(c).is_some()
        {
            return None;
        }
        let (i, n, data) = self.zero_tested.of(self.store, c)?;
        data.then_some((i, n))
    }
}

/// Weave the plan into the module, inlining small monitor functions.
pub fn weave(
    m: &Module,
    plan: &Plan,
    store: &crate::runtime::store::Store,
    cfg: &crate::monitor::inline::InlineConfig,
) -> Result<Woven, LoadError> {
    use crate::monitor::inline::{analyse, InlineStats, Needs};
    // Probe targets in a deterministic order (by function, then pc).
    let mut targets: Vec<FuncAddr> = Vec::new();
    let mut fids: Vec<&u32> = plan.funcs.keys().collect();
    fids.sort();
    let mut site_calls: Vec<(u32, u64, &ProbeCall)> = Vec::new();
    for f in fids {
        let fp = &plan.funcs[f];
        let mut sites: Vec<(u32, u8, &Vec<ProbeCall>)> = fp
            .before
            .iter()
            .map(|(pc, v)| (*pc, 1, v))
            .chain(fp.after.iter().map(|(pc, v)| (*pc, 2, v)))
            .collect();
        sites.sort_by_key(|s| (s.0, s.1));
        let entry = fp.entry.iter().map(|c| (0, c));
        let keyed = sites.iter().flat_map(|s| {
            let w = if s.1 == 1 { When::Before } else { When::After };
            s.2.iter().map(move |c| (blockcount::key(s.0, w), c))
        });
        for (k, c) in entry.chain(keyed) {
            site_calls.push((*f, k, c));
            if !targets.contains(&c.func) {
                targets.push(c.func);
            }
        }
    }
    // Inline or call each target; collect what inlined code needs.
    let mut stats = InlineStats::default();
    let mut needs = Needs::default();
    let mut inline = std::collections::HashSet::new();
    let mut call_targets: Vec<FuncAddr> = Vec::new();
    let mut why: HashMap<FuncAddr, String> = HashMap::new();
    for t in &targets {
        let mut n = Needs::default();
        let r = if cfg.enabled {
            analyse(store, *t, cfg, 0, &mut Vec::new(), &mut n)
        } else {
            Err("inlining is off".to_string())
        };
        match r {
            Ok(()) => {
                inline.insert(*t);
                for f in n.funcs {
                    if !needs.funcs.contains(&f) {
                        needs.funcs.push(f);
                    }
                }
                for x in n.memories {
                    if !needs.memories.contains(&x) {
                        needs.memories.push(x);
                    }
                }
                for g in n.globals {
                    if !needs.globals.contains(&g) {
                        needs.globals.push(g);
                    }
                }
            }
            Err(reason) => {
                call_targets.push(*t);
                why.insert(*t, reason);
            }
        }
    }
    // Inlined probes that take `frame` access it through intrinsics.
    let mut frame_uses = HashMap::new();
    for (_, _, c) in &site_calls {
        let Some(p) = c.args.iter().position(|a| *a == ArgSource::Frame) else {
            continue;
        };
        if inline.contains(&c.func) && !frame_uses.contains_key(&(c.func, p as u32)) {
            if let Some(u) = crate::monitor::inline::frame_uses(store, c.func, p as u32) {
                frame_uses.insert((c.func, p as u32), u);
            }
        }
    }
    // Block counters (see `blockcount`): which probes are counted per block.
    let mut counters = BlockCounters::default();
    let mut func_blocks: HashMap<u32, FuncBlocks> = HashMap::new();
    if cfg.enabled && cfg.block_counts && m.start.is_none() {
        let countable = blockcount::countable(store, site_calls.iter().map(|c| c.2));
        if !countable.is_empty() {
            let first_global =
                m.num_imported_globals + needs.globals.len() as u32 + m.globals.len() as u32;
            let mut fids: Vec<&u32> = plan.funcs.keys().collect();
            fids.sort();
            for f in fids {
                let fb = blockcount::plan_function(
                    m,
                    *f,
                    &plan.funcs[f],
                    &countable,
                    first_global,
                    &mut counters,
                )?;
                func_blocks.insert(*f, fb);
            }
        }
    }
    let mut counted_mems: Vec<crate::core::types::MemAddr> = counters
        .blocks
        .iter()
        .flat_map(|b| b.sites.iter().flat_map(|s| s.1.iter().map(|i| i.mem)))
        .collect();
    counted_mems.sort_by_key(|a| a.0);
    counted_mems.dedup();
    for a in &counted_mems {
        if !needs.memories.contains(a) {
            needs.memories.push(*a);
        }
    }
    stats.folded = counters.probes_folded;
    stats.folded_sites = counters.sites_folded;
    stats.blocks = counters.blocks.len() as u64;
    for (f, k, c) in &site_calls {
        if func_blocks.get(f).is_some_and(|fb| fb.folded.contains(k)) {
            continue;
        }
        if inline.contains(&c.func) {
            stats.inlined += 1;
        } else {
            stats.called += 1;
            *stats.reasons.entry(why[&c.func].clone()).or_default() += 1;
        }
    }
    // Added imports: functions (called probes, then functions inlined code calls), memories, globals.
    let mut added_funcs: Vec<FuncAddr> = call_targets.clone();
    for f in &needs.funcs {
        if !added_funcs.contains(f) {
            added_funcs.push(*f);
        }
    }
    let func_types: Vec<FuncType> = added_funcs
        .iter()
        .map(|f| store.func_type(*f).clone())
        .collect();
    let shift = added_funcs.len() as u32;
    let orig_types = m.types.len() as u32;
    let mut extra_types: Vec<FuncType> = func_types.clone();
    let mut result_types: HashMap<Vec<ValType>, u32> = HashMap::new();
    let mut want_results = |r: &[ValType], extra: &mut Vec<FuncType>| {
        if r.len() > 1 && !result_types.contains_key(r) {
            extra.push(FuncType::new([], r.to_vec()));
            result_types.insert(r.to_vec(), orig_types + extra.len() as u32 - 1);
        }
    };
    for t in &m.types {
        want_results(&t.results, &mut extra_types);
    }
    for f in &inline {
        want_results(&store.func_type(*f).results.clone(), &mut extra_types);
    }
    // The fold functions: `[] -> []`, after the app's functions.
    let fold_type = orig_types + extra_types.len() as u32;
    let first_fold = m.num_imported_funcs + shift + m.bodies.len() as u32;
    let mut fold_funcs = Vec::new();
    if !counters.blocks.is_empty() {
        extra_types.push(FuncType::new([], []));
    }
    let n_mem_imports = m
        .imports
        .iter()
        .filter(|i| matches!(i.desc, crate::core::module::ImportDesc::Memory(_)))
        .count() as u32;
    let n_global_imports = m.num_imported_globals;
    let added = Added {
        func_idx: added_funcs
            .iter()
            .enumerate()
            .map(|(j, f)| (*f, m.num_imported_funcs + j as u32))
            .collect(),
        mem_idx: needs
            .memories
            .iter()
            .enumerate()
            .map(|(j, a)| (*a, n_mem_imports + j as u32))
            .collect(),
        global_idx: needs
            .globals
            .iter()
            .enumerate()
            .map(|(j, a)| (*a, n_global_imports + j as u32))
            .collect(),
        inline,
        frame_uses,
        result_types,
    };
    if !counters.blocks.is_empty() {
        fold_funcs =
            blockcount::fold_functions(&counters.blocks, &|a| added.mem_idx[&a], first_fold);
    }
    let n_counters = counters.blocks.len();
    // Sections the fold needs that the app may lack are added in order.
    let need_globals = std::cell::Cell::new(n_counters > 0);
    let need_exports = std::cell::Cell::new(n_counters > 0);
    let counter_globals = |gs: &mut wasm_encoder::GlobalSection| {
        for _ in 0..n_counters {
            gs.global(
                wasm_encoder::GlobalType {
                    val_type: wasm_encoder::ValType::I64,
                    mutable: true,
                    shared: false,
                },
                &wasm_encoder::ConstExpr::i64_const(0),
            );
        }
    };
    let fold_export = |es: &mut wasm_encoder::ExportSection| {
        es.export(
            blockcount::FOLD_EXPORT,
            wasm_encoder::ExportKind::Func,
            first_fold,
        );
    };
    let missing = |out: &mut wasm_encoder::Module, globals: bool, exports: bool| {
        if globals && need_globals.replace(false) {
            let mut gs = wasm_encoder::GlobalSection::new();
            counter_globals(&mut gs);
            out.section(&gs);
        }
        if exports && need_exports.replace(false) {
            let mut es = wasm_encoder::ExportSection::new();
            fold_export(&mut es);
            out.section(&es);
        }
    };
    let mut imports: Vec<(String, crate::core::types::Extern)> = Vec::new();
    let mut import_entities: Vec<(String, wasm_encoder::EntityType)> = Vec::new();
    for (j, f) in added_funcs.iter().enumerate() {
        imports.push((format!("p{j}"), crate::core::types::Extern::Func(*f)));
        import_entities.push((
            format!("p{j}"),
            wasm_encoder::EntityType::Function(orig_types + j as u32),
        ));
    }
    for (j, a) in needs.memories.iter().enumerate() {
        imports.push((format!("m{j}"), crate::core::types::Extern::Memory(*a)));
        let pages = store.memory(*a).pages();
        import_entities.push((
            format!("m{j}"),
            wasm_encoder::EntityType::Memory(wasm_encoder::MemoryType {
                minimum: pages,
                maximum: None,
                memory64: false,
                shared: false,
                page_size_log2: None,
            }),
        ));
    }
    for (j, a) in needs.globals.iter().enumerate() {
        imports.push((format!("g{j}"), crate::core::types::Extern::Global(*a)));
        let gt = store.globals[a.0 as usize].ty;
        import_entities.push((
            format!("g{j}"),
            wasm_encoder::EntityType::Global(wasm_encoder::GlobalType {
                val_type: enc_val(gt.ty),
                mutable: gt.mutable,
                shared: false,
            }),
        ));
    }
    let mut weaver = Weaver {
        orig_imports: m.num_imported_funcs,
        shift,
        orig_mem_imports: n_mem_imports,
        mem_shift: needs.memories.len() as u32,
        orig_global_imports: n_global_imports,
        global_shift: needs.globals.len() as u32,
    };
    let mut out = wasm_encoder::Module::new();
    let mut pcs_all: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut calls_all: Vec<Vec<(u32, std::sync::Arc<str>)>> = Vec::new();
    let mut inlined_all: Vec<Vec<(u32, InlinedFrom)>> = Vec::new();
    let mut def = 0u32;
    let mut zero_tested = crate::monitor::inline::ZeroTested::default();
    let mut saw_imports = false;
    let mut code_sec: Option<wasm_encoder::CodeSection> = None;
    let parser = wasmparser::Parser::new(0);
    for payload in parser.parse_all(&m.bytes) {
        let payload = payload.map_err(LoadError::from)?;
        use wasmparser::Payload as P;
        match payload {
            P::Version { .. } => {}
            P::TypeSection(r) => {
                let mut ts = wasm_encoder::TypeSection::new();
                weaver.parse_type_section(&mut ts, r).map_err(err)?;
                for t in &extra_types {
                    ts.function(
                        t.params.iter().map(|v| enc_val(*v)),
                        t.results.iter().map(|v| enc_val(*v)),
                    );
                }
                out.section(&ts);
            }
            P::ImportSection(r) => {
                saw_imports = true;
                let mut is = wasm_encoder::ImportSection::new();
                weaver.parse_import_section(&mut is, r).map_err(err)?;
                for (name, e) in &import_entities {
                    is.import(PROBE_MODULE, name, *e);
                }
                out.section(&is);
            }
            P::FunctionSection(r) => {
                if !saw_imports && !import_entities.is_empty() {
                    let mut is = wasm_encoder::ImportSection::new();
                    for (name, e) in &import_entities {
                        is.import(PROBE_MODULE, name, *e);
                    }
                    out.section(&is);
                    saw_imports = true;
                }
                let mut fs = wasm_encoder::FunctionSection::new();
                weaver.parse_function_section(&mut fs, r).map_err(err)?;
                for _ in &fold_funcs {
                    fs.function(fold_type);
                }
                out.section(&fs);
            }
            P::TableSection(r) => {
                let mut s = wasm_encoder::TableSection::new();
                weaver.parse_table_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::MemorySection(r) => {
                let mut s = wasm_encoder::MemorySection::new();
                weaver.parse_memory_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::GlobalSection(r) => {
                let mut s = wasm_encoder::GlobalSection::new();
                weaver.parse_global_section(&mut s, r).map_err(err)?;
                if need_globals.replace(false) {
                    counter_globals(&mut s);
                }
                out.section(&s);
            }
            P::ExportSection(r) => {
                missing(&mut out, true, false);
                let mut s = wasm_encoder::ExportSection::new();
                weaver.parse_export_section(&mut s, r).map_err(err)?;
                if need_exports.replace(false) {
                    fold_export(&mut s);
                }
                out.section(&s);
            }
            P::StartSection { func, .. } => {
                missing(&mut out, true, true);
                out.section(&wasm_encoder::StartSection {
                    function_index: weaver.function_index(func),
                });
            }
            P::ElementSection(r) => {
                missing(&mut out, true, true);
                let mut s = wasm_encoder::ElementSection::new();
                weaver.parse_element_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::DataCountSection { count, .. } => {
                missing(&mut out, true, true);
                out.section(&wasm_encoder::DataCountSection { count });
            }
            P::DataSection(r) => {
                if let Some(c) = code_sec.take() {
                    out.section(&c);
                }
                let mut s = wasm_encoder::DataSection::new();
                weaver.parse_data_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::CodeSectionStart { .. } => {
                missing(&mut out, true, true);
                code_sec = Some(wasm_encoder::CodeSection::new())
            }
            P::CodeSectionEntry(_) => {
                let idx = m.num_imported_funcs + def;
                let fty = m.func_type(idx);
                let fb = m.body(idx);
                let mut b = Body {
                    code: Vec::new(),
                    locals: fb.locals.clone(),
                    num_params: fty.params.len() as u32,
                    scratch: HashMap::new(),
                    pcs: Vec::new(),
                    probe_calls: Vec::new(),
                    added: &added,
                    header_len: 0,
                    store,
                    cfg,
                    inline_locals: HashMap::new(),
                    inlined: Vec::new(),
                    site_pc: 0,
                    site_fid: idx,
                    num_locals: (fty.params.len() + fb.locals.len()) as u32,
                    site_height: 0,
                    saved: Vec::new(),
                    frame_uses: None,
                    zero_tested: &mut zero_tested,
                    specialized: 0,
                };
                let fp = plan.funcs.get(&idx);
                let no_blocks = FuncBlocks::default();
                let fblocks = func_blocks.get(&idx).unwrap_or(&no_blocks);
                let wrapped = fp.is_some_and(|fp| blockcount::wrapped(m, idx, fp));
                let mut n = 0usize;
                blockcount::for_each_event(m, idx, wrapped, |ev, pc, op| {
                    if let Some(g) = fblocks.starts.get(&n) {
                        // A counted block starts: one increment for all its probes.
                        b.ins(&Instruction::GlobalGet(*g));
                        b.ins(&Instruction::I64Const(1));
                        b.ins(&Instruction::I64Add);
                        b.ins(&Instruction::GlobalSet(*g));
                    }
                    n += 1;
                    b.site_pc = pc;
                    match ev {
                        Ev::Site(_, when) => {
                            let calls = fp.and_then(|f| match when {
                                When::Entry => Some(&f.entry),
                                When::Before => f.before.get(&pc),
                                When::After => f.after.get(&pc),
                            });
                            if let Some(c) = calls {
                                if !fblocks.folded.contains(&blockcount::key(pc, when)) {
                                    b.pcs.push((b.code.len() as u32, pc));
                                    let stack =
                                        fp.and_then(|f| f.stacks.get(&(pc, when == When::After)));
                                    b.probes(c, stack)?;
                                }
                            }
                            if when == When::Entry && wrapped {
                                // Probes at the final `end`: wrap the body so
                                // branches to the function's label reach them.
                                let bt = b.block_type(&fty.results);
                                b.ins(&Instruction::Block(bt));
                            }
                        }
                        Ev::Op => {
                            b.pcs.push((b.code.len() as u32, pc));
                            b.ins(&weaver.instruction(op.clone()).map_err(err)?);
                        }
                        Ev::WrapEnd => b.ins(&Instruction::End),
                        Ev::Split => {}
                    }
                    Ok(())
                })?;
                // Header: local declarations (run-length encoded).
                let mut header = Vec::new();
                let mut groups: Vec<(u32, ValType)> = Vec::new();
                for t in &b.locals {
                    match groups.last_mut() {
                        Some((n, lt)) if lt == t => *n += 1,
                        _ => groups.push((1, *t)),
                    }
                }
                (groups.len() as u32).encode(&mut header);
                for (n, t) in &groups {
                    n.encode(&mut header);
                    enc_val(*t).encode(&mut header);
                }
                b.header_len = header.len() as u32;
                let pcs: Vec<(u32, u32)> =
                    b.pcs.iter().map(|(w, o)| (w + b.header_len, *o)).collect();
                header.extend_from_slice(&b.code);
                code_sec
                    .get_or_insert_with(wasm_encoder::CodeSection::new)
                    .raw(&header);
                stats.specialized += b.specialized;
                pcs_all.push(pcs);
                calls_all.push(
                    b.probe_calls
                        .iter()
                        .map(|(w, o)| (w + b.header_len, o.clone()))
                        .collect(),
                );
                inlined_all.push(
                    b.inlined
                        .iter()
                        .map(|(w, o)| (w + b.header_len, o.clone()))
                        .collect(),
                );
                def += 1;
                if def as usize == m.bodies.len() {
                    let cs = code_sec.get_or_insert_with(wasm_encoder::CodeSection::new);
                    for f in &fold_funcs {
                        cs.function(f);
                    }
                }
            }
            P::CustomSection(c) => {
                if let Some(cs) = code_sec.take() {
                    out.section(&cs);
                }
                if c.name() == "name" {
                    if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                        if let Ok(ns) = weaver.custom_name_section(names) {
                            out.section(&ns);
                        }
                    }
                }
            }
            P::End(_) => {
                if let Some(cs) = code_sec.take() {
                    out.section(&cs);
                }
            }
            _ => {}
        }
    }
    Ok(Woven {
        bytes: out.finish(),
        origin: Origin {
            orig_imports: m.num_imported_funcs,
            shift,
            pcs: pcs_all,
            probe_calls: calls_all,
            inlined: inlined_all,
        },
        imports,
        stats,
        counters,
    })
}
