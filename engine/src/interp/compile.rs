//! Translation of a function body into interpreter [`Op`]s.
//!
//! Runs in the same pass as validation: the `FuncValidator` tells us the exact
//! operand stack height and the enclosing control frames at every instruction,
//! so branch stack adjustments are computed without a second stack model.
//!
//! # Register translation
//!
//! Every value has a home slot relative to the frame pointer: local `i` lives at
//! `fp + i`, the operand at height `h` at `fp + num_locals + h` (its *canonical*
//! slot). Because heights are static, hot instructions are translated into
//! register-form ops naming their operand and result slots (`I32AddR { dst, a, b }`),
//! and `local.get`/`*.const` emit nothing: the translator keeps a virtual operand
//! stack ([`V`]) whose entries may be deferred (a local or a constant, not yet
//! copied to the canonical slot). A `local.set` retargets the result slot of the
//! op that produced its value. Everything else (calls, branches that move values,
//! table/bulk ops, probes, ...) is a stack-form op: before it, all deferred entries
//! are materialised, so the stack in memory is exactly Wasm's, and the op finds
//! `sp` in `Compiled::sp_offs`.
//!
//! Invariants (relied on by frame accessors, probes and traps):
//! - At every probe and stack-form op the operand stack is exact (materialised).
//! - No deferred entry survives a barrier (labels, probes, control flow, calls),
//!   and an op before a barrier is never rewritten by a later instruction.
//! - Every op carries the pc of its own Wasm instruction (materialising copies,
//!   which cannot trap, carry the pc of the instruction that needed them).
//! - Register translation is off when the instrumenter is `dynamic()` (any op may
//!   be patched by a dynamic probe, so every instruction gets its own stack-form op)
//!   and with `WIZENG_NO_FUSE=1`.

use wasmparser::{BlockType, FrameKind, FuncValidator, FunctionBody, Operator, ValidatorResources};

use super::code::*;
use super::reg::{dst_mut, jump_target_mut, load_r, store_r, RBin, RUn};
use crate::error::LoadError;
use crate::instrument::{Instrumenter, ProbeCall, Site, When};
use crate::types::FuncType;

/// What the translator needs to know about the module.
pub(crate) struct ModuleCtx<'a> {
    pub types: &'a [FuncType],
    pub func_types: &'a [u32],
    /// Features the body is decoded with (must match the validator's).
    pub features: wasmparser::WasmFeatures,
}

impl ModuleCtx<'_> {
    fn block_arity(&self, bt: BlockType) -> (u32, u32) {
        match bt {
            BlockType::Empty => (0, 0),
            BlockType::Type(_) => (0, 1),
            BlockType::FuncType(i) => {
                let t = &self.types[i as usize];
                (t.params.len() as u32, t.results.len() as u32)
            }
        }
    }
}

enum Fixup {
    /// Patch the jump target of the op at this index.
    Op(usize),
    /// Patch a br_table entry.
    Table(usize),
}

struct Ctl {
    /// For loops, the branch target is known: the loop start.
    loop_start: Option<u32>,
    /// Branches to the end of this block to patch when it is reached.
    fixups: Vec<Fixup>,
    /// The `JumpIfZero` of an `if`, patched at `else` or `end`.
    if_jump: Option<usize>,
}

/// An entry of the translator's virtual operand stack.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum V {
    /// In its canonical slot.
    Stack,
    /// Deferred `local.get`: the value is local `x` (which is not written while
    /// the entry is on the stack: writes materialise it first).
    Local(u32),
    /// Deferred constant.
    Const(u64),
}

struct Translator<'a> {
    ctx: &'a ModuleCtx<'a>,
    out: Compiled,
    ctls: Vec<Ctl>,
    body_start: usize,
    cur_pc: u32,
    /// Register translation enabled (off when dynamic probes may patch any op).
    reg: bool,
    /// Ops before this index must not be rewritten by later instructions (branch
    /// targets, probes, control flow).
    barrier: usize,
    /// The virtual operand stack (exactly the validator's height while reachable).
    vs: Vec<V>,
}

/// `WIZENG_NO_FUSE=1` disables the register translation (for debugging and measurements).
fn fusion_disabled_by_env() -> bool {
    static NO_FUSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *NO_FUSE.get_or_init(|| std::env::var_os("WIZENG_NO_FUSE").is_some_and(|v| v != "0"))
}

/// Operands an instruction of the register path pops, or None if the instruction
/// is translated into a stack-form op.
fn reg_arity(t: &Translator<'_>, v: &FuncValidator<ValidatorResources>, op: &Operator<'_>) -> Option<usize> {
    use Operator as W;
    Some(match op {
        W::LocalGet { .. } | W::I32Const { .. } | W::I64Const { .. } | W::F32Const { .. } | W::F64Const { .. } | W::Nop => 0,
        W::LocalSet { .. } | W::LocalTee { .. } | W::Drop => 1,
        W::I32Load { memarg } | W::I64Load { memarg } | W::F32Load { memarg } | W::F64Load { memarg } | W::I32Load8S { memarg } | W::I32Load8U { memarg } | W::I32Load16S { memarg } | W::I32Load16U { memarg }
            if memarg.memory == 0 && memarg.offset <= u32::MAX as u64 =>
        {
            1
        }
        W::I32Store { memarg } | W::I64Store { memarg } | W::F32Store { memarg } | W::F64Store { memarg } | W::I32Store8 { memarg } | W::I32Store16 { memarg }
            if memarg.memory == 0 && memarg.offset <= u32::MAX as u64 =>
        {
            2
        }
        W::If { .. } => 1,
        W::BrIf { relative_depth } => {
            // Only branches that need no stack adjustment (the common loop back edge).
            let (b, _) = t.branch(v, *relative_depth)?;
            let height = v.operand_stack_height().checked_sub(1)?;
            if height != b.base - t.out.num_locals + b.keep {
                return None;
            }
            1
        }
        _ if RBin::of(op).is_some() => 2,
        _ if RUn::of(op).is_some() => 1,
        _ => return None,
    })
}

impl Translator<'_> {
    fn emit(&mut self, op: Op) -> usize {
        self.out.ops.push(std::cell::Cell::new(op));
        self.out.pcs.push(self.cur_pc);
        self.out.sp_offs.push(self.out.num_locals + self.vs.len() as u32);
        self.out.ops.len() - 1
    }

    fn here(&self) -> u32 {
        self.out.ops.len() as u32
    }

    fn set_barrier(&mut self) {
        self.barrier = self.out.ops.len();
    }

    /// The canonical slot of operand position `pos`.
    fn canon(&self, pos: usize) -> u32 {
        self.out.num_locals + pos as u32
    }

    /// The last op, if a later instruction may still rewrite it.
    fn last_mut(&mut self) -> Option<&mut Op> {
        let n = self.out.ops.len();
        if !self.reg || n == 0 || n - 1 < self.barrier {
            return None;
        }
        Some(self.out.ops[n - 1].get_mut())
    }

    /// Copy the deferred entry at `pos` to its canonical slot.
    fn materialize_at(&mut self, pos: usize) {
        let dst = self.canon(pos);
        match self.vs[pos] {
            V::Stack => return,
            V::Local(x) => self.emit(Op::Copy { dst, src: x }),
            V::Const(c) => self.emit(Op::ConstTo { dst, c }),
        };
        self.vs[pos] = V::Stack;
    }

    /// Make the in-memory operand stack exact.
    fn materialize_all(&mut self) {
        for pos in 0..self.vs.len() {
            self.materialize_at(pos);
        }
    }

    /// Pop the top entry as a slot: its canonical slot, the local it defers to,
    /// or (for a constant) its canonical slot after writing the constant there.
    fn pop_slot(&mut self) -> u32 {
        let pos = self.vs.len() - 1;
        let s = match self.vs[pos] {
            V::Stack => self.canon(pos),
            V::Local(x) => x,
            V::Const(c) => {
                let dst = self.canon(pos);
                self.emit(Op::ConstTo { dst, c });
                dst
            }
        };
        self.vs.pop();
        s
    }

    /// Emit a register op producing a new top entry at its canonical slot.
    fn emit_push(&mut self, make: impl FnOnce(u32) -> Op) {
        let dst = self.canon(self.vs.len());
        self.emit(make(dst));
        self.vs.push(V::Stack);
    }

    fn emit_bin(&mut self, b: RBin) {
        let n = self.vs.len();
        let (x, y) = (self.vs[n - 2], self.vs[n - 1]);
        if let V::Const(c) = y {
            if b.ri(0, 0, 0).is_some() {
                self.vs.pop();
                let a = self.pop_slot();
                let dst = self.canon(n - 2);
                self.emit(b.ri(dst, a, c as u32).unwrap());
                self.vs.push(V::Stack);
                return;
            }
        }
        if let (V::Const(c), Some(s)) = (x, b.swapped()) {
            if s.ri(0, 0, 0).is_some() {
                let a = self.pop_slot();
                self.vs.pop();
                let dst = self.canon(n - 2);
                self.emit(s.ri(dst, a, c as u32).unwrap());
                self.vs.push(V::Stack);
                return;
            }
        }
        let bs = self.pop_slot();
        let a = self.pop_slot();
        self.emit_push(|dst| b.rr(dst, a, bs));
    }

    /// `local.set x` / `local.tee x` of the top entry.
    fn emit_local_set(&mut self, x: u32, tee: bool) {
        let pos = self.vs.len() - 1;
        let top = self.vs.pop().expect("checked arity");
        // Deferred reads of `x` must see its old value.
        let mut copied = false;
        for p in 0..self.vs.len() {
            if self.vs[p] == V::Local(x) {
                self.materialize_at(p);
                copied = true;
            }
        }
        match top {
            V::Local(y) if y == x => {}
            V::Local(y) => {
                self.emit(Op::Copy { dst: x, src: y });
            }
            V::Const(c) => {
                self.emit(Op::ConstTo { dst: x, c });
            }
            V::Stack => {
                let src = self.canon(pos);
                let retarget = !copied && self.last_mut().and_then(dst_mut).is_some_and(|d| *d == src);
                if retarget {
                    *self.last_mut().and_then(dst_mut).unwrap() = x;
                } else {
                    self.emit(Op::Copy { dst: x, src });
                }
            }
        }
        if tee {
            self.vs.push(match top {
                V::Const(c) => V::Const(c),
                _ => V::Local(x),
            });
        }
    }

    /// Pop an i32 condition and emit a jump to `target` taken when it is non-zero
    /// (`when_true`) or zero, fused with the comparison computing it; the rest of
    /// the stack is materialised first.
    fn emit_reg_cond_jump(&mut self, target: u32, when_true: bool) -> usize {
        let pos = self.vs.len() - 1;
        let before = self.here();
        for p in 0..pos {
            self.materialize_at(p);
        }
        if self.vs[pos] == V::Stack && self.here() == before {
            let c = self.canon(pos);
            if let Some(last) = self.last_mut() {
                if dst_mut(&mut last.clone()).is_some_and(|d| *d == c) {
                    if let Some(j) = RBin::jump(last, !when_true, target) {
                        *last = j;
                        self.vs.pop();
                        return self.out.ops.len() - 1;
                    }
                    if let Op::I32EqzR { a, .. } = *last {
                        *last = if when_true { Op::JmpZR { c: a, t: target } } else { Op::JmpNzR { c: a, t: target } };
                        self.vs.pop();
                        return self.out.ops.len() - 1;
                    }
                }
            }
        }
        let c = self.pop_slot();
        self.emit(if when_true { Op::JmpNzR { c, t: target } } else { Op::JmpZR { c, t: target } })
    }

    fn emit_probes(&mut self, calls: Vec<ProbeCall>) {
        if !calls.is_empty() {
            let k = self.out.probes.len() as u32;
            self.out.probes.push(calls);
            self.emit(Op::Probe(k));
            self.set_barrier();
        }
    }

    fn patch(&mut self, f: &Fixup, target: u32) {
        match *f {
            Fixup::Op(i) => match jump_target_mut(self.out.ops[i].get_mut()) {
                Some(t) => *t = target,
                None => unreachable!("patching a non-branch"),
            },
            Fixup::Table(i) => self.out.br_tables[i].target = target,
        }
    }

    /// Resolve a branch to relative depth `depth` at the current point: the
    /// target (or a placeholder, with a fixup to register) and whether the
    /// stack needs adjusting. Branches to the function body's label jump to its
    /// final `end` (which returns), so probes at that `end` fire as for any
    /// other way out.
    ///
    /// Returns None for an invalid depth; the validator rejects the op right after.
    fn branch(&self, v: &FuncValidator<ValidatorResources>, depth: u32) -> Option<(BrTarget, bool)> {
        let frame = v.get_control_frame(depth as usize)?;
        if depth as usize >= self.ctls.len() {
            return None;
        }
        let (np, nr) = self.ctx.block_arity(frame.block_type);
        let is_loop = frame.kind == FrameKind::Loop;
        let keep = if is_loop { np } else { nr };
        let base = self.out.num_locals + frame.height as u32;
        let height = v.operand_stack_height();
        let needs_move = height != frame.height as u32 + keep;
        let ctl = &self.ctls[self.ctls.len() - 1 - depth as usize];
        let target = ctl.loop_start.unwrap_or(u32::MAX);
        Some((BrTarget { target, base, keep }, needs_move))
    }

    fn add_fixup(&mut self, depth: u32, f: Fixup) {
        let n = self.ctls.len();
        let ctl = &mut self.ctls[n - 1 - depth as usize];
        if ctl.loop_start.is_none() {
            ctl.fixups.push(f);
        }
    }
}

fn memarg(m: &wasmparser::MemArg) -> MemArg {
    MemArg { offset: m.offset as u32, mem: m.memory }
}

/// Translate a reachable instruction of the register path (`reg_arity` is Some
/// and the virtual stack holds enough entries).
fn translate_reg(t: &mut Translator<'_>, v: &FuncValidator<ValidatorResources>, op: &Operator<'_>) {
    use Operator as W;
    match *op {
        W::Nop => {}
        W::LocalGet { local_index } => t.vs.push(V::Local(local_index)),
        W::I32Const { value } => t.vs.push(V::Const(value as u32 as u64)),
        W::I64Const { value } => t.vs.push(V::Const(value as u64)),
        W::F32Const { value } => t.vs.push(V::Const(value.bits() as u64)),
        W::F64Const { value } => t.vs.push(V::Const(value.bits())),
        W::LocalSet { local_index } => t.emit_local_set(local_index, false),
        W::LocalTee { local_index } => t.emit_local_set(local_index, true),
        W::Drop => {
            t.vs.pop();
        }
        W::If { .. } => {
            let j = t.emit_reg_cond_jump(u32::MAX, false);
            t.ctls.push(Ctl { loop_start: None, fixups: Vec::new(), if_jump: Some(j) });
        }
        W::BrIf { relative_depth } => {
            let (b, _) = t.branch(v, relative_depth).expect("checked by reg_arity");
            let i = t.emit_reg_cond_jump(b.target, true);
            t.add_fixup(relative_depth, Fixup::Op(i));
        }
        W::I32Load { memarg } | W::I64Load { memarg } | W::F32Load { memarg } | W::F64Load { memarg } | W::I32Load8S { memarg } | W::I32Load8U { memarg } | W::I32Load16S { memarg } | W::I32Load16U { memarg } => {
            let addr = t.pop_slot();
            let off = memarg.offset as u32;
            t.emit_push(|dst| load_r(op, dst, addr, off).expect("a load"));
        }
        W::I32Store { memarg } | W::I64Store { memarg } | W::F32Store { memarg } | W::F64Store { memarg } | W::I32Store8 { memarg } | W::I32Store16 { memarg } => {
            let val = t.pop_slot();
            let addr = t.pop_slot();
            t.emit(store_r(op, addr, val, memarg.offset as u32).expect("a store"));
        }
        _ => {
            if let Some(b) = RBin::of(op) {
                t.emit_bin(b);
            } else if let Some(u) = RUn::of(op) {
                let a = t.pop_slot();
                t.emit_push(|dst| u.make(dst, a));
            } else {
                unreachable!("not a register-path instruction: {op:?}");
            }
        }
    }
}

/// Validate and translate one function body.
pub(crate) fn translate(
    v: &mut FuncValidator<ValidatorResources>,
    body: &FunctionBody<'_>,
    ctx: &ModuleCtx<'_>,
    mut instr: Option<&mut (dyn Instrumenter + '_)>,
) -> Result<Compiled, LoadError> {
    let func_idx = v.index();
    let ty = &ctx.types[ctx.func_types[func_idx as usize] as usize];
    let body_start = body.range().start;
    let mut reader = body.get_binary_reader();
    v.read_locals(&mut reader)?;
    let num_locals = v.len_locals();
    let local_types = (0..num_locals).filter_map(|i| v.get_local_type(i)).map(crate::types::ValType::from_wasmparser).collect();
    let mut t = Translator {
        ctx,
        out: Compiled {
            num_params: ty.params.len() as u32,
            num_locals,
            num_results: ty.results.len() as u32,
            func_idx,
            local_types,
            ..Default::default()
        },
        ctls: vec![Ctl { loop_start: None, fixups: Vec::new(), if_jump: None }],
        body_start,
        cur_pc: 0,
        reg: !instr.as_deref().is_some_and(|i| i.dynamic()) && !fusion_disabled_by_env(),
        barrier: 0,
        vs: Vec::new(),
    };
    reader.set_features(ctx.features);
    let body_bytes = body.as_bytes();
    if let Some(ins) = instr.as_deref_mut() {
        ins.begin_function(func_idx, body_bytes, body_start)?;
    }
    let mut max_height = 0u32;
    let mut instr_index = 0u32;
    let mut first = true;
    while !reader.eof() {
        let offset = reader.original_position();
        let op = reader.read_operator()?;
        t.cur_pc = (offset - t.body_start) as u32;
        let reachable = !v.get_control_frame(0).map(|f| f.unreachable).unwrap_or(true);
        let at_func_end = reader.eof();
        if let Some(ins) = instr.as_deref_mut() {
            if first {
                let site = Site { func_idx, pc: 0, op: None, validator: v, at_func_end: false, instr_index: 0 };
                let calls = ins.probes(When::Entry, &site)?;
                let pc = t.cur_pc;
                t.cur_pc = 0;
                t.emit_probes(calls);
                t.cur_pc = pc;
            }
        }
        first = false;
        // An `end` is also reached by the branches to its block, which arrive with
        // the block's results on top of its entry height.
        let is_end = matches!(op, Operator::End);
        let reached = reachable || (is_end && t.ctls.last().is_some_and(|c| !c.fixups.is_empty() || c.if_jump.is_some()));
        if !reachable && is_end {
            if let Some(f) = v.get_control_frame(0) {
                let (_, nr) = ctx.block_arity(f.block_type);
                t.vs.clear();
                t.vs.resize(f.height + nr as usize, V::Stack);
            }
        }
        let mut calls = Vec::new();
        if reached {
            if let Some(ins) = instr.as_deref_mut() {
                let site = Site { func_idx, pc: t.cur_pc, op: Some(&op), validator: v, at_func_end, instr_index };
                calls = ins.probes(When::Before, &site)?;
            }
        }
        let regop = t.reg && reachable && reg_arity(&t, v, &op).is_some_and(|n| n <= t.vs.len());
        if reachable && (!regop || !calls.is_empty()) {
            // Stack-form ops, probes and labels see the exact operand stack.
            t.materialize_all();
        }
        // Branches to this instruction (a loop header, a block's end) land before its probes.
        let site_start = t.here();
        t.emit_probes(calls);
        if reachable || matches!(op, Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } | Operator::Else | Operator::End) {
            let before = t.here();
            let r = if regop {
                translate_reg(&mut t, v, &op);
                Ok(())
            } else {
                translate_op(&mut t, v, &op, reachable, site_start)
            };
            let control = matches!(op, Operator::If { .. } | Operator::BrIf { .. });
            if !regop || control {
                t.set_barrier();
            }
            if r.is_ok() && t.here() == before && reachable && instr.as_deref().is_some_and(|i| i.dynamic()) {
                t.emit(Op::Nop);
            }
            if let Err(e) = r {
                // An op we cannot translate is usually one the validator rejects
                // (e.g. SIMD): report the validator's error, which names the feature.
                v.op(offset, &op)?;
                return Err(e);
            }
        }
        v.op(offset, &op)?;
        let height = v.operand_stack_height();
        max_height = max_height.max(height);
        if regop {
            debug_assert_eq!(t.vs.len(), height as usize, "virtual stack out of sync after {op:?}");
        } else {
            // After a stack-form op everything is in its canonical slot.
            t.vs.clear();
            t.vs.resize(height as usize, V::Stack);
        }
        let falls_through = !v.get_control_frame(0).map(|f| f.unreachable).unwrap_or(true);
        if reachable && falls_through && !at_func_end {
            if let Some(ins) = instr.as_deref_mut() {
                let site = Site { func_idx, pc: t.cur_pc, op: Some(&op), validator: v, at_func_end, instr_index };
                let calls = ins.probes(When::After, &site)?;
                if !calls.is_empty() {
                    t.materialize_all();
                    t.emit_probes(calls);
                }
            }
        }
        instr_index += 1;
    }
    v.finish(reader.original_position())?;
    t.out.max_height = max_height + 1;
    if std::env::var_os("WIZENG_DUMP_OPS").is_some() {
        eprintln!("func {func_idx}: locals {num_locals}, max height {}", t.out.max_height);
        for (i, op) in t.out.ops.iter().enumerate() {
            eprintln!("  {i:4} pc {:#6x} sp {:3} {:?}", t.out.pcs[i], t.out.sp_offs[i], op.get());
        }
    }
    Ok(t.out)
}

fn translate_op(
    t: &mut Translator<'_>,
    v: &FuncValidator<ValidatorResources>,
    op: &Operator<'_>,
    reachable: bool,
    site_start: u32,
) -> Result<(), LoadError> {
    use Operator as W;
    let simple = |t: &mut Translator<'_>, o: Op| {
        t.emit(o);
    };
    match *op {
        // Reinterpretations are no-ops on raw bits.
        W::Nop | W::I32ReinterpretF32 | W::I64ReinterpretF64 | W::F32ReinterpretI32 | W::F64ReinterpretI64 => {}
        W::Unreachable => simple(t, Op::Unreachable),
        W::Block { .. } => t.ctls.push(Ctl { loop_start: None, fixups: Vec::new(), if_jump: None }),
        W::Loop { .. } => {
            // Back edges re-enter at the loop instruction itself, so its probes
            // (block:start, opcode:loop) fire on every iteration, as in Wizard.
            t.ctls.push(Ctl { loop_start: Some(site_start), fixups: Vec::new(), if_jump: None })
        }
        W::If { .. } => {
            let j = if reachable { Some(t.emit(Op::JumpIfZero(u32::MAX))) } else { None };
            t.ctls.push(Ctl { loop_start: None, fixups: Vec::new(), if_jump: j });
        }
        W::Else => {
            // The then-branch jumps over the else-branch to the end.
            if reachable {
                let j = t.emit(Op::Jump(u32::MAX));
                t.ctls.last_mut().unwrap().fixups.push(Fixup::Op(j));
            }
            let here = t.here();
            if let Some(j) = t.ctls.last_mut().unwrap().if_jump.take() {
                t.patch(&Fixup::Op(j), here);
            }
        }
        W::End => {
            let ctl = t.ctls.pop().expect("balanced");
            // Branches to a block land on its `end` (before the end's probes).
            let here = site_start;
            for f in &ctl.fixups {
                t.patch(f, here);
            }
            if let Some(j) = ctl.if_jump {
                t.patch(&Fixup::Op(j), here);
            }
            if t.ctls.is_empty() {
                // End of the function body (also reached by branches to the
                // function's label, with the results on top of the locals).
                let i = t.emit(Op::Return);
                t.out.sp_offs[i] = t.out.num_locals + t.out.num_results;
            }
        }
        W::Br { relative_depth } => {
            let Some((b, mv)) = t.branch(v, relative_depth) else { return Ok(()) };
            if mv {
                let i = t.emit(Op::Br(b));
                t.add_fixup(relative_depth, Fixup::Op(i));
            } else {
                let i = t.emit(Op::Jump(b.target));
                t.add_fixup(relative_depth, Fixup::Op(i));
            }
        }
        W::BrIf { relative_depth } => {
            // The validator's height here still includes the condition; the
            // branch happens after popping it.
            let Some((b, _)) = t.branch(v, relative_depth) else { return Ok(()) };
            let Some(height) = v.operand_stack_height().checked_sub(1) else { return Ok(()) };
            let frame_height = b.base - t.out.num_locals;
            let mv = height != frame_height + b.keep;
            let i = t.emit(if mv { Op::BrIf(b) } else { Op::JumpIfNonZero(b.target) });
            t.add_fixup(relative_depth, Fixup::Op(i));
        }
        W::BrTable { ref targets } => {
            let start = t.out.br_tables.len();
            let mut depths: Vec<u32> = Vec::with_capacity(targets.len() as usize + 1);
            for d in targets.targets() {
                depths.push(d?);
            }
            depths.push(targets.default());
            for (k, d) in depths.iter().enumerate() {
                let Some((b, _)) = t.branch(v, *d) else {
                    t.out.br_tables.truncate(start);
                    return Ok(());
                };
                t.out.br_tables.push(b);
                t.add_fixup(*d, Fixup::Table(start + k));
            }
            t.emit(Op::BrTable { start: start as u32, len: depths.len() as u32 });
        }
        W::Return => simple(t, Op::Return),
        W::Call { function_index } => simple(t, Op::Call(function_index)),
        W::CallIndirect { type_index, table_index, .. } => simple(t, Op::CallIndirect { ty: type_index, table: table_index }),
        W::ReturnCall { function_index } => simple(t, Op::ReturnCall(function_index)),
        W::ReturnCallIndirect { type_index, table_index } => {
            simple(t, Op::ReturnCallIndirect { ty: type_index, table: table_index })
        }
        W::Drop => simple(t, Op::Drop),
        W::Select | W::TypedSelect { .. } => simple(t, Op::Select),
        W::LocalGet { local_index } => simple(t, Op::LocalGet(local_index)),
        W::LocalSet { local_index } => simple(t, Op::LocalSet(local_index)),
        W::LocalTee { local_index } => simple(t, Op::LocalTee(local_index)),
        W::GlobalGet { global_index } => simple(t, Op::GlobalGet(global_index)),
        W::GlobalSet { global_index } => simple(t, Op::GlobalSet(global_index)),

        W::I32Load { memarg } | W::F32Load { memarg } => simple(t, Op::I32Load(memarg_of(&memarg))),
        W::I64Load { memarg } | W::F64Load { memarg } => simple(t, Op::I64Load(memarg_of(&memarg))),
        W::I32Load8S { memarg } => simple(t, Op::I32Load8S(memarg_of(&memarg))),
        W::I32Load8U { memarg } => simple(t, Op::I32Load8U(memarg_of(&memarg))),
        W::I32Load16S { memarg } => simple(t, Op::I32Load16S(memarg_of(&memarg))),
        W::I32Load16U { memarg } => simple(t, Op::I32Load16U(memarg_of(&memarg))),
        W::I64Load8S { memarg } => simple(t, Op::I64Load8S(memarg_of(&memarg))),
        W::I64Load8U { memarg } => simple(t, Op::I64Load8U(memarg_of(&memarg))),
        W::I64Load16S { memarg } => simple(t, Op::I64Load16S(memarg_of(&memarg))),
        W::I64Load16U { memarg } => simple(t, Op::I64Load16U(memarg_of(&memarg))),
        W::I64Load32S { memarg } => simple(t, Op::I64Load32S(memarg_of(&memarg))),
        W::I64Load32U { memarg } => simple(t, Op::I64Load32U(memarg_of(&memarg))),
        W::I32Store { memarg } | W::F32Store { memarg } => simple(t, Op::I32Store(memarg_of(&memarg))),
        W::I64Store { memarg } | W::F64Store { memarg } => simple(t, Op::I64Store(memarg_of(&memarg))),
        W::I32Store8 { memarg } => simple(t, Op::I32Store8(memarg_of(&memarg))),
        W::I64Store8 { memarg } => simple(t, Op::I64Store8(memarg_of(&memarg))),
        W::I32Store16 { memarg } => simple(t, Op::I32Store16(memarg_of(&memarg))),
        W::I64Store16 { memarg } => simple(t, Op::I64Store16(memarg_of(&memarg))),
        W::I64Store32 { memarg } => simple(t, Op::I64Store32(memarg_of(&memarg))),
        W::MemorySize { mem, .. } => simple(t, Op::MemorySize(mem)),
        W::MemoryGrow { mem, .. } => simple(t, Op::MemoryGrow(mem)),
        W::MemoryFill { mem } => simple(t, Op::MemoryFill(mem)),
        W::MemoryCopy { dst_mem, src_mem } => simple(t, Op::MemoryCopy { dst: dst_mem, src: src_mem }),
        W::MemoryInit { data_index, mem } => simple(t, Op::MemoryInit { data: data_index, mem }),
        W::DataDrop { data_index } => simple(t, Op::DataDrop(data_index)),

        W::I32Const { value } => simple(t, Op::Const(value as u32 as u64)),
        W::I64Const { value } => simple(t, Op::Const(value as u64)),
        W::F32Const { value } => simple(t, Op::Const(value.bits() as u64)),
        W::F64Const { value } => simple(t, Op::Const(value.bits())),
        W::RefNull { .. } => simple(t, Op::Const(0)),
        W::RefIsNull => simple(t, Op::RefIsNull),
        W::RefFunc { function_index } => simple(t, Op::RefFunc(function_index)),
        W::TableGet { table } => simple(t, Op::TableGet(table)),
        W::TableSet { table } => simple(t, Op::TableSet(table)),
        W::TableSize { table } => simple(t, Op::TableSize(table)),
        W::TableGrow { table } => simple(t, Op::TableGrow(table)),
        W::TableFill { table } => simple(t, Op::TableFill(table)),
        W::TableCopy { dst_table, src_table } => simple(t, Op::TableCopy { dst: dst_table, src: src_table }),
        W::TableInit { elem_index, table } => simple(t, Op::TableInit { elem: elem_index, table }),
        W::ElemDrop { elem_index } => simple(t, Op::ElemDrop(elem_index)),

        _ => {
            if let Some(o) = numeric(op) {
                simple(t, o)
            } else {
                return Err(LoadError {
                    kind: crate::error::LoadErrorKind::Unsupported,
                    offset: Some(t.body_start + t.cur_pc as usize),
                    message: format!("unsupported instruction {op:?}"),
                });
            }
        }
    }
    Ok(())
}

fn memarg_of(m: &wasmparser::MemArg) -> MemArg {
    memarg(m)
}

fn numeric(op: &Operator<'_>) -> Option<Op> {
    use Operator as W;
    Some(match op {
        W::I32Eqz => Op::I32Eqz,
        W::I32Eq => Op::I32Eq,
        W::I32Ne => Op::I32Ne,
        W::I32LtS => Op::I32LtS,
        W::I32LtU => Op::I32LtU,
        W::I32GtS => Op::I32GtS,
        W::I32GtU => Op::I32GtU,
        W::I32LeS => Op::I32LeS,
        W::I32LeU => Op::I32LeU,
        W::I32GeS => Op::I32GeS,
        W::I32GeU => Op::I32GeU,
        W::I64Eqz => Op::I64Eqz,
        W::I64Eq => Op::I64Eq,
        W::I64Ne => Op::I64Ne,
        W::I64LtS => Op::I64LtS,
        W::I64LtU => Op::I64LtU,
        W::I64GtS => Op::I64GtS,
        W::I64GtU => Op::I64GtU,
        W::I64LeS => Op::I64LeS,
        W::I64LeU => Op::I64LeU,
        W::I64GeS => Op::I64GeS,
        W::I64GeU => Op::I64GeU,
        W::F32Eq => Op::F32Eq,
        W::F32Ne => Op::F32Ne,
        W::F32Lt => Op::F32Lt,
        W::F32Gt => Op::F32Gt,
        W::F32Le => Op::F32Le,
        W::F32Ge => Op::F32Ge,
        W::F64Eq => Op::F64Eq,
        W::F64Ne => Op::F64Ne,
        W::F64Lt => Op::F64Lt,
        W::F64Gt => Op::F64Gt,
        W::F64Le => Op::F64Le,
        W::F64Ge => Op::F64Ge,
        W::I32Clz => Op::I32Clz,
        W::I32Ctz => Op::I32Ctz,
        W::I32Popcnt => Op::I32Popcnt,
        W::I32Add => Op::I32Add,
        W::I32Sub => Op::I32Sub,
        W::I32Mul => Op::I32Mul,
        W::I32DivS => Op::I32DivS,
        W::I32DivU => Op::I32DivU,
        W::I32RemS => Op::I32RemS,
        W::I32RemU => Op::I32RemU,
        W::I32And => Op::I32And,
        W::I32Or => Op::I32Or,
        W::I32Xor => Op::I32Xor,
        W::I32Shl => Op::I32Shl,
        W::I32ShrS => Op::I32ShrS,
        W::I32ShrU => Op::I32ShrU,
        W::I32Rotl => Op::I32Rotl,
        W::I32Rotr => Op::I32Rotr,
        W::I64Clz => Op::I64Clz,
        W::I64Ctz => Op::I64Ctz,
        W::I64Popcnt => Op::I64Popcnt,
        W::I64Add => Op::I64Add,
        W::I64Sub => Op::I64Sub,
        W::I64Mul => Op::I64Mul,
        W::I64DivS => Op::I64DivS,
        W::I64DivU => Op::I64DivU,
        W::I64RemS => Op::I64RemS,
        W::I64RemU => Op::I64RemU,
        W::I64And => Op::I64And,
        W::I64Or => Op::I64Or,
        W::I64Xor => Op::I64Xor,
        W::I64Shl => Op::I64Shl,
        W::I64ShrS => Op::I64ShrS,
        W::I64ShrU => Op::I64ShrU,
        W::I64Rotl => Op::I64Rotl,
        W::I64Rotr => Op::I64Rotr,
        W::F32Abs => Op::F32Abs,
        W::F32Neg => Op::F32Neg,
        W::F32Ceil => Op::F32Ceil,
        W::F32Floor => Op::F32Floor,
        W::F32Trunc => Op::F32Trunc,
        W::F32Nearest => Op::F32Nearest,
        W::F32Sqrt => Op::F32Sqrt,
        W::F32Add => Op::F32Add,
        W::F32Sub => Op::F32Sub,
        W::F32Mul => Op::F32Mul,
        W::F32Div => Op::F32Div,
        W::F32Min => Op::F32Min,
        W::F32Max => Op::F32Max,
        W::F32Copysign => Op::F32Copysign,
        W::F64Abs => Op::F64Abs,
        W::F64Neg => Op::F64Neg,
        W::F64Ceil => Op::F64Ceil,
        W::F64Floor => Op::F64Floor,
        W::F64Trunc => Op::F64Trunc,
        W::F64Nearest => Op::F64Nearest,
        W::F64Sqrt => Op::F64Sqrt,
        W::F64Add => Op::F64Add,
        W::F64Sub => Op::F64Sub,
        W::F64Mul => Op::F64Mul,
        W::F64Div => Op::F64Div,
        W::F64Min => Op::F64Min,
        W::F64Max => Op::F64Max,
        W::F64Copysign => Op::F64Copysign,
        W::I32WrapI64 => Op::I32WrapI64,
        W::I32TruncF32S => Op::I32TruncF32S,
        W::I32TruncF32U => Op::I32TruncF32U,
        W::I32TruncF64S => Op::I32TruncF64S,
        W::I32TruncF64U => Op::I32TruncF64U,
        W::I64ExtendI32S => Op::I64ExtendI32S,
        W::I64ExtendI32U => Op::I64ExtendI32U,
        W::I64TruncF32S => Op::I64TruncF32S,
        W::I64TruncF32U => Op::I64TruncF32U,
        W::I64TruncF64S => Op::I64TruncF64S,
        W::I64TruncF64U => Op::I64TruncF64U,
        W::F32ConvertI32S => Op::F32ConvertI32S,
        W::F32ConvertI32U => Op::F32ConvertI32U,
        W::F32ConvertI64S => Op::F32ConvertI64S,
        W::F32ConvertI64U => Op::F32ConvertI64U,
        W::F32DemoteF64 => Op::F32DemoteF64,
        W::F64ConvertI32S => Op::F64ConvertI32S,
        W::F64ConvertI32U => Op::F64ConvertI32U,
        W::F64ConvertI64S => Op::F64ConvertI64S,
        W::F64ConvertI64U => Op::F64ConvertI64U,
        W::F64PromoteF32 => Op::F64PromoteF32,
        W::I32Extend8S => Op::I32Extend8S,
        W::I32Extend16S => Op::I32Extend16S,
        W::I64Extend8S => Op::I64Extend8S,
        W::I64Extend16S => Op::I64Extend16S,
        W::I64Extend32S => Op::I64Extend32S,
        W::I32TruncSatF32S => Op::I32TruncSatF32S,
        W::I32TruncSatF32U => Op::I32TruncSatF32U,
        W::I32TruncSatF64S => Op::I32TruncSatF64S,
        W::I32TruncSatF64U => Op::I32TruncSatF64U,
        W::I64TruncSatF32S => Op::I64TruncSatF32S,
        W::I64TruncSatF32U => Op::I64TruncSatF32U,
        W::I64TruncSatF64S => Op::I64TruncSatF64S,
        W::I64TruncSatF64U => Op::I64TruncSatF64U,
        _ => return None,
    })
}
