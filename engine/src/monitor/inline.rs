//! Inlining of monitor functions into woven application code (JIT tier).
//!
//! A probe's monitor function is inlined when it is small (at most
//! `max_size` instructions), not recursive, and only uses what woven code can
//! reach: its locals (which become fresh locals of the app function, zeroed on
//! every entry), its globals and memories (imported into the woven module, so
//! they stay the monitor's own state), calls to functions that are themselves
//! inlinable (up to `max_depth`) or to any other function (called through an
//! import; host functions are never called from inlined code, since they see
//! their caller's instance). `return` becomes a branch to a wrapper block. Static arguments
//! arrive as constants, which Cranelift then folds.

pub use crate::core::operators::memarg_of;
use std::collections::{BTreeMap, HashMap};

use wasmparser::Operator;

use crate::core::module::ModuleInfo;
use crate::core::types::{FuncAddr, GlobalAddr, MemAddr, ValType};
use crate::runtime::store::{FuncKind, Store};

#[derive(Clone, Debug)]
pub struct InlineConfig {
    pub enabled: bool,
    /// Maximum instructions of an inlined function.
    pub max_size: usize,
    /// Maximum nesting of inlined calls.
    pub max_depth: u32,
    /// Count pure counter increments per block (`blockcount`; needs `enabled`).
    pub block_counts: bool,
    /// Specialise inlined probes on an operand they only test against zero
    /// (`zero_tested_param`; needs `enabled`).
    pub specialize: bool,
}

impl Default for InlineConfig {
    fn default() -> Self {
        InlineConfig {
            enabled: true,
            max_size: 64,
            max_depth: 3,
            block_counts: true,
            specialize: true,
        }
    }
}

/// How many probe sites were inlined or called, and why not.
#[derive(Default, Debug, Clone)]
pub struct InlineStats {
    /// Probes (not counted through a block) inlined or called.
    pub inlined: u64,
    pub called: u64,
    /// Probes counted through block counters, at how many sites, how many blocks.
    pub folded: u64,
    pub folded_sites: u64,
    pub blocks: u64,
    /// Inlined probes specialised on an operand they only test against zero.
    pub specialized: u64,
    pub reasons: BTreeMap<String, u64>,
}

/// What an inlinable function needs from the woven module.
#[derive(Default, Debug)]
pub struct Needs {
    pub funcs: Vec<FuncAddr>,
    pub memories: Vec<MemAddr>,
    pub globals: Vec<GlobalAddr>,
}

/// Decide whether `addr` can be inlined; collect what it needs.
pub fn analyse(
    store: &Store,
    addr: FuncAddr,
    cfg: &InlineConfig,
    depth: u32,
    stack: &mut Vec<FuncAddr>,
    needs: &mut Needs,
) -> Result<(), String> {
    let (inst, fidx) = match store.funcs[addr.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => (instance, func_idx),
        FuncKind::Host(_) => return Err("host function".into()),
    };
    if stack.contains(&addr) {
        return Err("recursive".into());
    }
    // An inlined body is a block typed by the function's results: several
    // results would need a type of their own in the woven module.
    if store.funcs[addr.0 as usize].ty.results.len() > 1 {
        return Err("multi-value results".into());
    }
    let idata = store.instance(inst);
    let m = &idata.module;
    let mut n = 0usize;
    let mut ops = m.operators(fidx);
    stack.push(addr);
    let r = (|| {
        while !ops.eof() {
            let op = ops.read().map_err(|e| e.to_string())?;
            n += 1;
            if n > cfg.max_size + 1 {
                return Err(format!("larger than {} instructions", cfg.max_size));
            }
            use Operator as O;
            match &op {
                O::Call { function_index } => {
                    let callee = idata.funcs[*function_index as usize];
                    // Host functions see their caller's instance (e.g. `wizeng.puts`
                    // reads the caller's memory 0): they must be called from the
                    // monitor's own code, so a function calling one stays a call.
                    if matches!(store.funcs[callee.0 as usize].kind, FuncKind::Host(_)) {
                        // Frame accessors in the probe function itself become
                        // intrinsics (`frame_uses` checks how the handle is used).
                        if depth == 0 && frame_op(m, *function_index).is_some() {
                            continue;
                        }
                        return Err("calls a host function".into());
                    }
                    let mut sub = Needs::default();
                    let inl = depth < cfg.max_depth
                        && analyse(store, callee, cfg, depth + 1, stack, &mut sub).is_ok();
                    if inl {
                        merge(needs, sub);
                    } else if stack.contains(&callee) {
                        return Err("recursive".into());
                    } else if !needs.funcs.contains(&callee) {
                        needs.funcs.push(callee);
                    }
                }
                O::GlobalGet { global_index } | O::GlobalSet { global_index } => {
                    let g = idata.globals[*global_index as usize];
                    if !needs.globals.contains(&g) {
                        needs.globals.push(g);
                    }
                }
                O::Block { blockty } | O::Loop { blockty } | O::If { blockty } => {
                    if matches!(blockty, wasmparser::BlockType::FuncType(_)) {
                        return Err("multi-value block types".into());
                    }
                }
                O::CallIndirect { .. }
                | O::ReturnCall { .. }
                | O::ReturnCallIndirect { .. }
                | O::RefFunc { .. }
                | O::TableGet { .. }
                | O::TableSet { .. }
                | O::TableSize { .. }
                | O::TableGrow { .. }
                | O::TableFill { .. }
                | O::TableCopy { .. }
                | O::TableInit { .. }
                | O::ElemDrop { .. }
                | O::MemoryInit { .. }
                | O::DataDrop { .. }
                | O::TypedSelect { .. }
                // Blocks the inliner does not nest (and handlers it would
                // have to keep apart from the app's).
                | O::Try { .. }
                | O::TryTable { .. }
                | O::Delegate { .. }
                | O::Throw { .. }
                | O::ThrowRef
                | O::Rethrow { .. } => {
                    return Err(format!("uses {}", monitor_abi::opcode_of(&op).mnemonic()))
                }
                _ => {
                    if let Some(mem) = memory_of(&op) {
                        for mi in mem {
                            let a = idata.memories[mi as usize];
                            if !needs.memories.contains(&a) {
                                needs.memories.push(a);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    })();
    stack.pop();
    r
}

fn merge(into: &mut Needs, from: Needs) {
    for f in from.funcs {
        if !into.funcs.contains(&f) {
            into.funcs.push(f);
        }
    }
    for m in from.memories {
        if !into.memories.contains(&m) {
            into.memories.push(m);
        }
    }
    for g in from.globals {
        if !into.globals.contains(&g) {
            into.globals.push(g);
        }
    }
}

/// The memories an instruction accesses.
pub fn memory_of(op: &Operator<'_>) -> Option<Vec<u32>> {
    use Operator as O;
    Some(match op {
        O::MemorySize { mem, .. } | O::MemoryGrow { mem, .. } | O::MemoryFill { mem } => vec![*mem],
        O::MemoryCopy { dst_mem, src_mem } => vec![*dst_mem, *src_mem],
        _ => {
            let m = memarg_of(op)?;
            vec![m.memory]
        }
    })
}

/// A `wizeng:frame_accessor` function (docs/monitor-abi.md#frame-accessors) that inlined code can turn
/// into a direct access of the probed frame (an intrinsic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameOp {
    Pc,
    Fid,
    NumLocals,
    NumOperands,
    /// `get_local_T` / `set_local_T`.
    Local {
        ty: ValType,
        set: bool,
    },
    /// `get_operand_T` / `set_operand_T`.
    Operand {
        ty: ValType,
        set: bool,
    },
}

impl FrameOp {
    /// Arguments after the handle: none, the index, or the index and the value.
    fn extra_args(self) -> usize {
        match self {
            FrameOp::Local { set, .. } | FrameOp::Operand { set, .. } => 1 + set as usize,
            _ => 0,
        }
    }
    fn results(self) -> usize {
        match self {
            FrameOp::Local { set, .. } | FrameOp::Operand { set, .. } => !set as usize,
            _ => 1,
        }
    }
}

/// The intrinsic function `func_index` of module `m` is, if it is an import
/// of a frame accessor that inlined code can access directly.
pub fn frame_op(m: &crate::core::module::Module, func_index: u32) -> Option<FrameOp> {
    use crate::core::module::ImportDesc;
    let imp = m
        .imports
        .iter()
        .filter(|i| matches!(i.desc, ImportDesc::Func(_)))
        .nth(func_index as usize)?;
    if imp.module != monitor_abi::imports::MODULE_FRAME_ACCESSOR {
        return None;
    }
    let ty = |s: &str| match s {
        "i32" => Some(ValType::I32),
        "i64" => Some(ValType::I64),
        "f32" => Some(ValType::F32),
        "f64" => Some(ValType::F64),
        _ => None,
    };
    let name = imp.name.as_str();
    Some(match name {
        "get_pc" => FrameOp::Pc,
        "get_fid" => FrameOp::Fid,
        "get_num_locals" => FrameOp::NumLocals,
        "get_num_operands" => FrameOp::NumOperands,
        _ => {
            let (verb, rest) = name.split_once('_')?;
            let (what, t) = rest.rsplit_once('_')?;
            let (ty, set) = (ty(t)?, verb == "set");
            match (verb, what) {
                ("get" | "set", "local") => FrameOp::Local { ty, set },
                ("get" | "set", "operand") => FrameOp::Operand { ty, set },
                _ => return None,
            }
        }
    })
}

/// One direct access of the probed frame by inlined code: `Pc`, `Fid`,
/// `NumLocals`, `NumOperands` are the site's constants; local `index` is
/// `local.get/set index` in the woven function; operand `index` (from the top)
/// is the scratch local it is saved in while the site's probes run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameUse {
    pub op: FrameOp,
    /// The constant index argument (0 for accessors without one).
    pub index: u32,
}

/// What the weaver emits for an instruction of a probe function that takes
/// the frame handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    /// Nothing: the handle, or the constant index of an accessor call.
    Elide,
    /// The accessor call itself.
    Access(FrameUse),
}

/// How a probe function uses its frame handle, when every use is an intrinsic.
#[derive(Debug, Default)]
pub struct FrameUses {
    /// By instruction index in the function's body.
    pub at: HashMap<usize, Intrinsic>,
}

impl FrameUses {
    pub fn uses(&self) -> impl Iterator<Item = FrameUse> + '_ {
        self.at.values().filter_map(|i| match i {
            Intrinsic::Access(u) => Some(*u),
            Intrinsic::Elide => None,
        })
    }
    /// How many operands from the top the accesses reach.
    pub fn operand_depth(&self) -> u32 {
        self.uses()
            .filter_map(|u| match u.op {
                FrameOp::Operand { .. } => Some(u.index + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// Whether monitor function `addr`, given the frame handle as param `p`, uses
/// the handle only as the first argument of frame accessors [`frame_op`]
/// knows, with a constant (non-negative) index where they take one: `local.get
/// p; [i32.const K; value...;] call F`, where the code computing a `set_*`'s
/// value is straight-line and leaves the handle and index alone. Then inlined,
/// each call is an intrinsic: the handle and index are elided and the call is
/// a direct access. That keeps the ABI's semantics as long as the index is in
/// range and has type T at every site (`Plan::frames_need_interpreter` checks).
pub fn frame_uses(store: &Store, addr: FuncAddr, p: u32) -> Option<FrameUses> {
    let FuncKind::Wasm { instance, func_idx } = store.funcs[addr.0 as usize].kind else {
        return None;
    };
    let m = &store.instance(instance).module;
    /// A handle on the operand stack, not yet consumed by an accessor call.
    struct Pending {
        /// Instruction index of its `local.get`, and of the constant index after it.
        at: usize,
        index: Option<(usize, i32)>,
        /// Operand height below the handle (relative to the outermost pending handle).
        base: usize,
    }
    let mut pending: Vec<Pending> = Vec::new();
    let mut height = 0usize;
    let mut after_handle = false;
    let mut out = FrameUses::default();
    let mut ops = m.operators(func_idx);
    let mut i = 0usize;
    while !ops.eof() {
        let op = ops.read().ok()?;
        let at = i;
        i += 1;
        let was_handle = std::mem::take(&mut after_handle);
        match op {
            Operator::LocalSet { local_index } | Operator::LocalTee { local_index }
                if local_index == p =>
            {
                return None
            }
            Operator::LocalGet { local_index } if local_index == p => {
                if pending.is_empty() {
                    height = 0;
                }
                pending.push(Pending {
                    at,
                    index: None,
                    base: height,
                });
                height += 1;
                after_handle = true;
                continue;
            }
            Operator::I32Const { value } if was_handle => {
                pending.last_mut()?.index = Some((at, value));
                height += 1;
                continue;
            }
            Operator::Call { function_index } => {
                if let Some(f) = frame_op(m, function_index) {
                    let h = pending.pop()?;
                    // The handle (and index) are exactly this call's arguments.
                    if h.base + 1 + f.extra_args() != height {
                        return None;
                    }
                    let index = match (f.extra_args(), h.index) {
                        (0, None) => 0,
                        (0, Some(_)) => return None,
                        (_, Some((k_at, k))) if k >= 0 => {
                            out.at.insert(k_at, Intrinsic::Elide);
                            k as u32
                        }
                        _ => return None,
                    };
                    out.at.insert(h.at, Intrinsic::Elide);
                    out.at
                        .insert(at, Intrinsic::Access(FrameUse { op: f, index }));
                    height = h.base + f.results();
                    continue;
                }
            }
            _ => {}
        }
        // While a handle is pending, code may compute a `set_*`'s value above
        // it, but must not touch it or its index.
        if let Some(h) = pending.last() {
            let (pops, pushes) = height_effect(m, &op)?;
            let floor = h.base + 1 + h.index.is_some() as usize;
            if height < floor + pops {
                return None;
            }
            height = height - pops + pushes;
        }
    }
    pending.is_empty().then_some(out)
}

/// [`frame_uses`] of a probe function that [`analyse`] inlines.
pub fn frame_uses_if_inlinable(
    store: &Store,
    addr: FuncAddr,
    p: u32,
    cfg: &InlineConfig,
) -> Option<FrameUses> {
    analyse(store, addr, cfg, 0, &mut Vec::new(), &mut Needs::default()).ok()?;
    frame_uses(store, addr, p)
}

/// Operands popped and pushed by a straight-line instruction of module `m`
/// (`None` for control flow and anything else that is not plain computation).
fn height_effect(m: &crate::core::module::Module, op: &Operator<'_>) -> Option<(usize, usize)> {
    use monitor_abi::Category;
    use Operator as O;
    Some(match op {
        O::Call { function_index } => {
            let t = m.func_type(*function_index);
            (t.params.len(), t.results.len())
        }
        O::Drop => (1, 0),
        O::Select | O::TypedSelect { .. } => (3, 1),
        O::LocalGet { .. } | O::GlobalGet { .. } => (0, 1),
        O::LocalSet { .. } | O::GlobalSet { .. } => (1, 0),
        O::LocalTee { .. } => (1, 1),
        _ => match monitor_abi::opcode_of(op).category() {
            Category::Numeric | Category::Memory => {
                let e = monitor_abi::stack_effect(op, &monitor_abi::stack::NoContext)?;
                (e.params.len(), e.results.len())
            }
            _ => return None,
        },
    })
}

/// [`zero_tested_param`] of probe calls, memoised by (function, positions
/// of its operand arguments as a bit set; asked at every probe site woven).
#[derive(Default)]
pub struct ZeroTested(rustc_hash::FxHashMap<(FuncAddr, u64), Option<(u32, bool)>>);

impl ZeroTested {
    /// For probe call `c`: (argument index, operand from the top, whether a
    /// test's result is used as a value) of an operand argument its function
    /// only tests against zero.
    pub fn of(
        &mut self,
        store: &Store,
        c: &crate::core::probe::ProbeCall,
    ) -> Option<(usize, u32, bool)> {
        self.of_code(|f| wasm_code(store, f), c)
    }

    /// [`ZeroTested::of`], with `code` giving a function's module and index
    /// in it (`None` for a host function).
    pub fn of_code<'m>(
        &mut self,
        code: impl FnOnce(FuncAddr) -> Option<(&'m ModuleInfo, u32)>,
        c: &crate::core::probe::ProbeCall,
    ) -> Option<(usize, u32, bool)> {
        use crate::core::probe::ArgSource;
        let params = || -> Vec<u32> {
            (0..c.args.len() as u32)
                .filter(|&i| matches!(c.args[i as usize], ArgSource::Operand(_)))
                .collect()
        };
        let find = |ps: &[u32]| {
            let (m, func_idx) = code(c.func)?;
            zero_tested_param_in(m, func_idx, ps)
        };
        let (p, data) = if c.args.len() <= 64 {
            let set = (c.args.iter().enumerate())
                .filter(|(_, a)| matches!(a, ArgSource::Operand(_)))
                .fold(0u64, |s, (i, _)| s | 1 << i);
            *self
                .0
                .entry((c.func, set))
                .or_insert_with(|| find(&params()))
        } else {
            find(&params())
        }?;
        let ArgSource::Operand(n) = c.args[p as usize] else {
            unreachable!("a candidate is an operand argument")
        };
        Some((p as usize, n, data))
    }
}

/// The first `i32` parameter of Wasm function `addr` (among `candidates`)
/// that the function only tests against zero: every read of it is consumed
/// at once by `i32.eqz`, `if`, `br_if`, or `i32.eq`/`i32.ne` after an
/// `i32.const 0`, and it is never written. Such a function behaves the same
/// for every non-zero value of that parameter, so a probe site can call it
/// with the constant 1 or 0 on the two sides of a test of the operand
/// (`weave::Body::probes`), and in each the inlined code folds to constants:
/// a branch tally's address no longer depends on the condition. With it,
/// whether some test's result is a value rather than a branch condition
/// (only then does the JIT gain by specialising: a probe that branches on
/// the parameter already has a fixed address on each side).
pub fn zero_tested_param(store: &Store, addr: FuncAddr, candidates: &[u32]) -> Option<(u32, bool)> {
    let (m, func_idx) = wasm_code(store, addr)?;
    zero_tested_param_in(m, func_idx, candidates)
}

/// The module and index of Wasm function `addr` (`None` for a host function).
fn wasm_code(store: &Store, addr: FuncAddr) -> Option<(&ModuleInfo, u32)> {
    match store.funcs[addr.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => Some((&store.instance(instance).module, func_idx)),
        FuncKind::Host(_) => None,
    }
}

/// [`zero_tested_param`] of function `func_idx` of module `m`.
pub fn zero_tested_param_in(
    m: &ModuleInfo,
    func_idx: u32,
    candidates: &[u32],
) -> Option<(u32, bool)> {
    let params = &m.func_type(func_idx).params;
    let mut ops = Vec::new();
    let mut rd = m.operators(func_idx);
    while !rd.eof() {
        ops.push(rd.read().ok()?);
    }
    use Operator as O;
    let branch = |op: Option<&Operator<'_>>| matches!(op, Some(O::If { .. } | O::BrIf { .. }));
    // Per read of `p`: None if not a zero test, else whether it feeds a branch.
    let test = |i: usize| match &ops[i + 1..] {
        [O::If { .. } | O::BrIf { .. }, ..] => Some(true),
        [O::I32Eqz, rest @ ..] => Some(branch(rest.first())),
        [O::I32Const { value: 0 }, O::I32Eq | O::I32Ne, rest @ ..] => Some(branch(rest.first())),
        _ => None,
    };
    candidates.iter().copied().find_map(|p| {
        if params.get(p as usize) != Some(&ValType::I32) {
            return None;
        }
        let mut data = false;
        for (i, op) in ops.iter().enumerate() {
            match op {
                O::LocalSet { local_index } | O::LocalTee { local_index } if *local_index == p => {
                    return None
                }
                O::LocalGet { local_index } if *local_index == p => data |= !test(i)?,
                _ => {}
            }
        }
        Some((p, data))
    })
}
