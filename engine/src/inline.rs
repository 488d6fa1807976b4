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

use std::collections::BTreeMap;

use wasmparser::Operator;

use crate::store::{FuncKind, Store};
use crate::types::{FuncAddr, GlobalAddr, MemAddr};

#[derive(Clone, Debug)]
pub struct InlineConfig {
    pub enabled: bool,
    /// Maximum instructions of an inlined function.
    pub max_size: usize,
    /// Maximum nesting of inlined calls.
    pub max_depth: u32,
    /// Count pure counter increments per block (`blockcount`; needs `enabled`).
    pub block_counts: bool,
}

impl Default for InlineConfig {
    fn default() -> Self {
        InlineConfig {
            enabled: true,
            max_size: 64,
            max_depth: 3,
            block_counts: true,
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
                        // Frame reads in the probe function itself become
                        // direct reads (`frame_reads` checks how the handle is used).
                        if depth == 0 && frame_read(m, *function_index).is_some() {
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
                | O::TypedSelect { .. } => {
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

pub fn memarg_of(op: &Operator<'_>) -> Option<wasmparser::MemArg> {
    use Operator as O;
    match op {
        O::I32Load { memarg }
        | O::I64Load { memarg }
        | O::F32Load { memarg }
        | O::F64Load { memarg }
        | O::I32Load8S { memarg }
        | O::I32Load8U { memarg }
        | O::I32Load16S { memarg }
        | O::I32Load16U { memarg }
        | O::I64Load8S { memarg }
        | O::I64Load8U { memarg }
        | O::I64Load16S { memarg }
        | O::I64Load16U { memarg }
        | O::I64Load32S { memarg }
        | O::I64Load32U { memarg }
        | O::I32Store { memarg }
        | O::I64Store { memarg }
        | O::F32Store { memarg }
        | O::F64Store { memarg }
        | O::I32Store8 { memarg }
        | O::I32Store16 { memarg }
        | O::I64Store8 { memarg }
        | O::I64Store16 { memarg }
        | O::I64Store32 { memarg } => Some(*memarg),
        _ => None,
    }
}

/// A frame accessor call that inlined code turns into a direct read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameRead {
    /// `get_local_T(frame, K)`: local K of the probed frame, of type T.
    Local(crate::types::ValType),
    /// `get_pc(frame)`, `get_fid(frame)`: the site's constants.
    Pc,
    Fid,
}

/// The frame read function `func_index` of module `m` is, if it is an import
/// of one (ABI B1) that inlined code can read directly.
pub fn frame_read(m: &crate::module::Module, func_index: u32) -> Option<FrameRead> {
    use crate::module::ImportDesc;
    use crate::types::ValType as T;
    let imp = m
        .imports
        .iter()
        .filter(|i| matches!(i.desc, ImportDesc::Func(_)))
        .nth(func_index as usize)?;
    if imp.module != monitor_abi::imports::MODULE_FRAME_ACCESSOR {
        return None;
    }
    Some(match imp.name.as_str() {
        "get_pc" => FrameRead::Pc,
        "get_fid" => FrameRead::Fid,
        "get_local_i32" => FrameRead::Local(T::I32),
        "get_local_i64" => FrameRead::Local(T::I64),
        "get_local_f32" => FrameRead::Local(T::F32),
        "get_local_f64" => FrameRead::Local(T::F64),
        _ => return None,
    })
}

/// Whether monitor function `addr`, given the frame handle as param `p`, uses
/// the handle only as `local.get p; call get_pc|get_fid` or `local.get p;
/// i32.const K; call get_local_T` (and calls no other frame accessor): then
/// the locals it reads, (K, T). Inlined, those calls are direct reads of the
/// probed frame, with the ABI's semantics as long as local K has type T at
/// every site (the caller checks).
pub fn frame_reads(
    store: &Store,
    addr: FuncAddr,
    p: u32,
) -> Option<Vec<(u32, crate::types::ValType)>> {
    let FuncKind::Wasm { instance, func_idx } = store.funcs[addr.0 as usize].kind else {
        return None;
    };
    let m = &store.instance(instance).module;
    let mut ops = m.operators(func_idx);
    let mut reads = Vec::new();
    let mut window: Vec<Operator<'_>> = Vec::new();
    while !ops.eof() {
        let op = ops.read().ok()?;
        match &op {
            Operator::LocalSet { local_index } | Operator::LocalTee { local_index }
                if *local_index == p =>
            {
                return None
            }
            Operator::Call { function_index } => {
                if let Some(r) = frame_read(m, *function_index) {
                    let n = window.len();
                    let getp = |o: &Operator<'_>| matches!(o, Operator::LocalGet { local_index } if *local_index == p);
                    match (r, n) {
                        (FrameRead::Pc | FrameRead::Fid, n) if n >= 1 && getp(&window[n - 1]) => {}
                        (FrameRead::Local(t), n) if n >= 2 && getp(&window[n - 2]) => {
                            match window[n - 1] {
                                Operator::I32Const { value } if value >= 0 => {
                                    reads.push((value as u32, t))
                                }
                                _ => return None,
                            }
                        }
                        _ => return None,
                    }
                    // The handle was consumed by this call.
                    window.clear();
                    continue;
                }
            }
            _ => {}
        }
        // Any other use of the handle: it must be the start of a pattern.
        if let Some(Operator::LocalGet { local_index }) = window.last() {
            if *local_index == p && !matches!(op, Operator::I32Const { .. }) {
                return None;
            }
        }
        if window.len() >= 2 {
            if let Operator::LocalGet { local_index } = window[window.len() - 2] {
                if local_index == p {
                    return None;
                }
            }
        }
        window.push(op);
        if window.len() > 2 {
            window.remove(0);
        }
    }
    if let Some(Operator::LocalGet { local_index }) = window.last() {
        if *local_index == p {
            return None;
        }
    }
    Some(reads)
}
