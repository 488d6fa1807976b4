//! Inlining a monitor function at a probe site: its locals become fresh
//! locals of the woven function, its body a block, its `return`s branches out
//! of it, its state accesses the woven module's imports of the monitor's
//! memories and globals, its frame accessor calls direct accesses
//! (intrinsics); every inlined instruction is recorded for the provenance
//! table.

use std::sync::Arc;

use wasm_encoder::reencode::{Reencode, RoundtripReencoder};
use wasm_encoder::Instruction;
use wasmparser::Operator;

use super::body::Body;
use super::monitors::InstView;
use super::{err, InlinedFrom};
use crate::core::error::LoadError;
use crate::core::types::{FuncAddr, ValType};
use crate::monitor::inline::{FrameOp, FrameUse, Intrinsic};

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

/// Inlined calls already emitted in the function being woven, by (function,
/// depth, whether its results are dropped, origin): without frame
/// intrinsics, an inlined call's code is the same at every site of a
/// function (its locals are allocated once per function and depth, every
/// other index is the module's), so later sites copy it instead of decoding
/// and re-encoding the monitor function again (atax + `branches`: 602 sites).
#[derive(Default)]
pub(super) struct Memo(rustc_hash::FxHashMap<(FuncAddr, u32, bool, usize), Emitted>);

/// What an inlined call added to a [`Body`], positions relative to its start.
struct Emitted {
    code: Vec<u8>,
    pcs: Vec<u32>,
    inlined: Vec<(u32, InlinedFrom)>,
}

/// The monitor function being inlined, as its instructions are translated.
struct Callee<'s> {
    idata: &'s InstView,
    /// The woven function's locals standing for the callee's locals.
    map: Vec<u32>,
    depth: u32,
    origin: &'s Arc<str>,
    /// Depth of the callee's blocks around the current instruction.
    blocks: u32,
}

impl Body<'_> {
    /// Inline monitor function `addr`; its arguments are on the stack. With
    /// `drop_results`, its results are dropped (a probe's are ignored).
    pub(super) fn inline(
        &mut self,
        addr: FuncAddr,
        depth: u32,
        origin: &Arc<str>,
        drop_results: bool,
    ) -> Result<(), LoadError> {
        if depth == 0 && self.frame_uses.is_some() {
            // (Intrinsics depend on the site.)
            return self.inline_fresh(addr, depth, origin, drop_results);
        }
        let key = (
            addr,
            depth,
            drop_results,
            Arc::as_ptr(origin) as *const u8 as usize,
        );
        let base = self.code.len() as u32;
        if let Some(e) = self.inline_memo.0.get(&key) {
            self.code.extend_from_slice(&e.code);
            let site = self.site_pc;
            self.pcs.extend(e.pcs.iter().map(|p| (base + p, site)));
            let from = e.inlined.iter().map(|(p, f)| (base + p, f.clone()));
            self.inlined.extend(from);
            return Ok(());
        }
        let (pcs, inlined) = (self.pcs.len(), self.inlined.len());
        self.inline_fresh(addr, depth, origin, drop_results)?;
        let e = Emitted {
            code: self.code[base as usize..].to_vec(),
            pcs: self.pcs[pcs..].iter().map(|(p, _)| p - base).collect(),
            inlined: (self.inlined[inlined..].iter())
                .map(|(p, f)| (p - base, f.clone()))
                .collect(),
        };
        self.inline_memo.0.insert(key, e);
        Ok(())
    }

    /// [`Body::inline`], decoding the monitor function.
    fn inline_fresh(
        &mut self,
        addr: FuncAddr,
        depth: u32,
        origin: &Arc<str>,
        drop_results: bool,
    ) -> Result<(), LoadError> {
        let mons = self.mons;
        let Some((idata, func_idx)) = mons.code(addr) else {
            return Err(err("inlining a host function"));
        };
        let mm = idata.module.clone();
        let fty = mm.func_type(func_idx).clone();
        let fname: Arc<str> = mm.func_name(func_idx).into();
        let mbody = mm.body(func_idx);
        let mut ltypes: Vec<ValType> = fty.params.to_vec();
        ltypes.extend(mbody.locals.iter().copied());
        let map = self.enter_inlined(addr, depth, &ltypes, fty.params.len())?;
        let bt = self.block_type(&fty.results);
        self.ins(&Instruction::Block(bt));
        let mut callee = Callee {
            idata,
            map,
            depth,
            origin,
            blocks: 0,
        };
        let mut ops = mm.operators(func_idx);
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
            if self.inline_op(&op, &mut callee)? {
                break;
            }
        }
        if drop_results {
            for _ in 0..fty.results.len() {
                self.ins(&Instruction::Drop);
            }
        }
        Ok(())
    }

    /// The locals standing for those of `addr` inlined at `depth` (`ltypes`:
    /// its params, then its locals; allocated once per function woven),
    /// set from the arguments on the stack and zero.
    fn enter_inlined(
        &mut self,
        addr: FuncAddr,
        depth: u32,
        ltypes: &[ValType],
        np: usize,
    ) -> Result<Vec<u32>, LoadError> {
        let map = match self.inline_locals.get(&(addr, depth)) {
            Some(m) => m.clone(),
            None => {
                let mut m = Vec::with_capacity(ltypes.len());
                for t in ltypes {
                    self.locals.push(*t);
                    m.push(self.num_params + self.locals.len() as u32 - 1);
                }
                self.inline_locals.insert((addr, depth), m.clone());
                m
            }
        };
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
                ValType::ExnRef => {
                    self.ins(&Instruction::RefNull(wasm_encoder::HeapType::Abstract {
                        shared: false,
                        ty: wasm_encoder::AbstractHeapType::Exn,
                    }))
                }
                ValType::V128 => self.ins(&Instruction::V128Const(0)),
            }
            self.ins(&Instruction::LocalSet(map[i]));
        }
        Ok(map)
    }

    /// One instruction of the inlined function, translated; whether it was
    /// the function's final `end`.
    fn inline_op(&mut self, op: &Operator<'_>, c: &mut Callee<'_>) -> Result<bool, LoadError> {
        let mut rt = RoundtripReencoder;
        let idata = c.idata;
        let map = &c.map;
        use Operator as O;
        match op {
            O::Block { .. } | O::Loop { .. } | O::If { .. } => {
                c.blocks += 1;
                self.ins(&rt.instruction(op.clone()).map_err(err)?);
            }
            O::End if c.blocks == 0 => {
                self.ins(&Instruction::End);
                return Ok(true);
            }
            O::End => {
                c.blocks -= 1;
                self.ins(&Instruction::End);
            }
            O::Return => self.ins(&Instruction::Br(c.blocks)),
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
                if c.depth < self.cfg.max_depth && !self.added.func_idx.contains_key(&callee) {
                    self.inline(callee, c.depth + 1, c.origin, false)?;
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
                if let Some(ma) = crate::core::operators::memarg_of(op) {
                    let target = self.added.mem_idx[&idata.memories[ma.memory as usize]];
                    let mut ma2 = rt.mem_arg(ma);
                    ma2.memory_index = target;
                    inst = remap_memarg(inst, ma2);
                }
                self.ins(&inst);
            }
        }
        Ok(false)
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
}
