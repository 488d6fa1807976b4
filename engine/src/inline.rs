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
