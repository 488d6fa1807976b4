//! Translation of a function body into interpreter [`Op`]s.
//!
//! Runs in the same pass as validation: the `FuncValidator` tells us the exact
//! operand stack height and the enclosing control frames at every instruction,
//! so branch stack adjustments are computed without a second stack model.

use crate::core::module::BodyValidator;
use wasmparser::{BlockType, FrameKind, FunctionBody, Operator};

use super::code::*;
use super::fused::{jump_target_mut, F64Bin, Form, I32Bin};
use crate::core::error::LoadError;
use crate::core::probe::{ArgSource, Direct, Instrumenter, ProbeCall, Site, When};
use crate::core::types::{slot_count, FuncType, ValType};
use wasmparser::WasmModuleResources;

mod eh;
mod simd;

/// What the translator needs to know about the module.
pub(crate) struct ModuleCtx<'a> {
    pub types: &'a [FuncType],
    pub func_types: &'a [u32],
    /// Features the body is decoded with (must match the validator's).
    pub features: wasmparser::WasmFeatures,
    /// Emit `Op::LoopHead` (dyn tier).
    pub osr: bool,
    /// A body translated after load (`load::translate_later`, plain bodies):
    /// never one with exception handling (`load::needs_eager`: such
    /// functions are translated at load), so no legacy `try` to count.
    pub after_load: bool,
    /// Emit a loop's `Op::LoopHead` before its probes, where an OSR entry
    /// into woven code (which has them inside the loop) starts (plain
    /// bodies, `plain.rs`).
    pub loop_head_first: bool,
    /// Some type of the module has a `v128`.
    pub v128_types: bool,
    /// The module declares something of a heap reference type
    /// (`stackmap::module_has_heap_refs`): its functions get stack maps.
    pub heap_refs: bool,
    /// An `externref` may name a heap object (the module converts between
    /// `any` and `extern`): such values keep a function interpreted too.
    pub extern_objects: bool,
}

impl ModuleCtx<'_> {
    /// Slots of a block's params and results.
    fn block_arity(&self, bt: BlockType) -> (u32, u32) {
        match bt {
            BlockType::Empty => (0, 0),
            BlockType::Type(t) => (0, ValType::from_wasmparser(t).slots() as u32),
            BlockType::FuncType(i) => {
                let t = &self.types[i as usize];
                (slot_count(&t.params) as u32, slot_count(&t.results) as u32)
            }
        }
    }
}

enum Fixup {
    /// Patch the jump target of the op at this index.
    Op(usize),
    /// Patch a br_table entry.
    Table(usize),
    /// Patch catch clause `.1` of exception handler region `.0`.
    Catch(usize, usize),
}

struct Ctl {
    /// For loops, the branch target is known: the loop start.
    loop_start: Option<u32>,
    /// Branches to the end of this block to patch when it is reached.
    fixups: Vec<Fixup>,
    /// The `JumpIfZero` of an `if`, patched at `else` or `end`.
    if_jump: Option<usize>,
    /// A `try_table` or legacy `try`: its handler region (`Compiled::handlers`).
    region: Option<u32>,
    /// The innermost handler region around code in this block.
    inner: Option<u32>,
    /// A legacy `try` with `catch` clauses: the local slot its catches
    /// store the exnref in (for `rethrow`).
    exn_slot: Option<u32>,
}

impl Ctl {
    /// A block (not a loop, an `if` or a `try`) inside a block whose
    /// innermost handler region is `inner`.
    fn block(inner: Option<u32>) -> Ctl {
        Ctl {
            loop_start: None,
            fixups: Vec::new(),
            if_jump: None,
            region: None,
            inner,
            exn_slot: None,
        }
    }
}

struct Translator<'a> {
    ctx: &'a ModuleCtx<'a>,
    out: Compiled,
    ctls: Vec<Ctl>,
    body_start: usize,
    cur_pc: u32,
    /// Superinstruction fusion enabled (off when dynamic probes may patch any op).
    fuse: bool,
    /// Ops before this index must not be fused with later ones (branch targets,
    /// probes, control flow).
    barrier: usize,
    /// The instruction being translated is `fusable` (see `emit`).
    in_fusable: bool,
    /// The body may have `v128` values (two slots each): stack heights are
    /// counted in slots by summing operand types. Otherwise a height in
    /// values is one in slots.
    wide: bool,
    /// The module has a 64-bit memory (memory accesses may need `Op::Mem64`).
    mem64: bool,
    /// The next local slot reserved for a legacy `try`'s caught exnref.
    next_exn_slot: u32,
    /// Dyn tier: the iteration count a loop header starts from (below zero,
    /// wrapping, for a large body: `tiering::size_extra`).
    loop_count_start: u32,
}

/// `WIZENG_NO_FUSE=1` disables superinstructions (for debugging and measurements).
fn fusion_disabled_by_env() -> bool {
    static NO_FUSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *NO_FUSE.get_or_init(|| std::env::var_os("WIZENG_NO_FUSE").is_some_and(|v| v != "0"))
}

/// Instructions whose ops may take part in a fusion; anything else (control
/// flow, calls, probes) ends a fusion window.
fn fusable(op: &Operator<'_>) -> bool {
    use Operator as W;
    matches!(
        op,
        W::LocalGet { .. }
            | W::LocalSet { .. }
            | W::LocalTee { .. }
            | W::I32Const { .. }
            | W::I64Const { .. }
            | W::F32Const { .. }
            | W::F64Const { .. }
            | W::I32Load { .. }
            | W::I64Load { .. }
            | W::F32Load { .. }
            | W::F64Load { .. }
            | W::I32Store { .. }
            | W::I64Store { .. }
            | W::F32Store { .. }
            | W::F64Store { .. }
            | W::Nop
            | W::Drop
            | W::V128Const { .. }
            | W::V128Load32Splat { .. }
    ) || numeric(op).is_some()
        || simd::fuses(op)
}

impl Translator<'_> {
    /// Dyn tier: count a loop's iterations where compiled code can be
    /// entered (`Op::LoopHead`), at a reachable loop without params entered
    /// with an empty operand stack (`v` before the `loop`).
    fn loop_head(&mut self, v: &BodyValidator, blockty: wasmparser::BlockType, reachable: bool) {
        let no_params = match blockty {
            // (not validated yet: the index may be out of range)
            wasmparser::BlockType::FuncType(i) => self
                .ctx
                .types
                .get(i as usize)
                .is_some_and(|t| t.params.is_empty()),
            _ => true,
        };
        if self.ctx.osr && reachable && no_params && v.operand_stack_height() == 0 {
            self.emit(Op::LoopHead(self.loop_count_start));
        }
    }

    fn emit(&mut self, op: Op) -> usize {
        // Ops that may still fuse with a preceding `local.get` wait; anything
        // else settles the pending pair (inside straight-line code only: control
        // instructions settle before their branch targets are taken).
        if self.in_fusable && !matches!(op, Op::LocalGet(_) | Op::Const(_)) {
            self.settle_get_pair();
        }
        self.out.ops.push(std::cell::Cell::new(op));
        self.out.pcs.push(self.cur_pc);
        self.out.ops.len() - 1
    }

    fn here(&self) -> u32 {
        self.out.ops.len() as u32
    }

    fn set_barrier(&mut self) {
        self.barrier = self.out.ops.len();
    }

    /// The `k`-th last op (1 = last) if it may be fused with the next one.
    fn last(&self, k: usize) -> Option<Op> {
        let n = self.out.ops.len();
        if !self.fuse || k > n || n - k < self.barrier {
            return None;
        }
        Some(self.out.ops[n - k].get())
    }

    /// `local.get a; local.get b` (or `local.tee a; local.get b`) that the next
    /// op did not consume become one op, at the pc of the `local.get b`.
    fn settle_get_pair(&mut self) {
        let (k, fused) = match (self.last(3), self.last(2), self.last(1)) {
            (Some(Op::LocalGet(a)), Some(Op::LocalGet(b)), Some(Op::LocalGet(c))) => {
                (3, Op::LocalGet3(a, b, c))
            }
            (_, Some(Op::LocalGet(a)), Some(Op::LocalGet(b))) => (2, Op::LocalGet2(a, b)),
            (_, Some(Op::LocalTee(a)), Some(Op::LocalGet(b))) => (2, Op::TeeGet(a, b)),
            _ => return,
        };
        let pc = self.out.pcs[self.out.pcs.len() - 1];
        self.pop_ops(k);
        self.out.ops.push(std::cell::Cell::new(fused));
        self.out.pcs.push(pc);
    }

    /// Drop the last `k` ops (they are being replaced by a fused op emitted at
    /// the current instruction's pc).
    fn pop_ops(&mut self, k: usize) {
        for _ in 0..k {
            self.out.ops.pop();
            self.out.pcs.pop();
        }
    }

    /// An i32 binop, fused with the `local.get`/`i32.const` ops producing its operands.
    fn emit_i32bin(&mut self, b: I32Bin) {
        let form = match (self.last(2), self.last(1)) {
            (Some(Op::LocalGet(a)), Some(Op::LocalGet(y))) => Some((2, Form::LL(a, y, DST_PUSH))),
            (Some(Op::LocalGet(a)), Some(Op::Const(c))) => {
                Some((2, Form::LC(a, c as u32, DST_PUSH)))
            }
            (_, Some(Op::Const(c))) => Some((1, Form::C(c as u32))),
            (_, Some(Op::LocalGet(y))) => Some((1, Form::L(y))),
            _ => None,
        };
        match form {
            Some((k, f)) => {
                self.pop_ops(k);
                self.emit(b.make(f));
            }
            None => {
                // Address arithmetic: `x + a * c`, `x + (a << c)`, `x + y + z`.
                let fused = match (b, self.last(1)) {
                    (
                        I32Bin::Add,
                        Some(Op::I32MulLC {
                            a,
                            c,
                            dst: DST_PUSH,
                        }),
                    ) => Some(Op::I32AddMulLC { a, c }),
                    (
                        I32Bin::Add,
                        Some(Op::I32ShlLC {
                            a,
                            c,
                            dst: DST_PUSH,
                        }),
                    ) => Some(Op::I32AddShlLC { a, c }),
                    (I32Bin::Add, Some(Op::I32Add)) => Some(Op::I32Add3),
                    _ => None,
                };
                match (fused, self.last(2)) {
                    (Some(Op::I32AddMulLC { a, c }), Some(Op::LocalGet(x))) => {
                        self.pop_ops(2);
                        self.emit(Op::I32AddMulLLC { x, a, c });
                    }
                    (Some(op), _) => {
                        self.pop_ops(1);
                        self.emit(op);
                    }
                    (None, _) => {
                        self.emit(b.make(Form::Plain));
                    }
                }
            }
        }
    }

    fn emit_f64bin(&mut self, b: F64Bin, plain: Op) {
        match (self.last(2), self.last(1)) {
            (Some(Op::LocalGet(a)), Some(Op::LocalGet(y))) => {
                self.pop_ops(2);
                self.emit(b.ll(a, y));
            }
            (_, Some(Op::LocalGet(y))) => {
                self.pop_ops(1);
                self.emit(b.l(y));
            }
            (_, Some(Op::Const(c))) => {
                self.pop_ops(1);
                self.emit(b.c(c));
            }
            (_, Some(Op::I64LoadSS { off })) if b == F64Bin::Add => {
                // In place: the op keeps the load's pc (the load is what traps).
                self.out
                    .ops
                    .last_mut()
                    .unwrap()
                    .set(Op::F64AddLoadSS { off });
            }
            (_, Some(Op::F64Add)) if b == F64Bin::Add => {
                self.pop_ops(1);
                self.emit(Op::F64Add3);
            }
            (Some(load @ (Op::I64LoadLL { .. } | Op::I64LoadSL { .. })), Some(Op::F64Mul))
                if b == F64Bin::Add =>
            {
                // At the load's pc: the load is the only part that traps.
                let fused = match load {
                    Op::I64LoadLL { a, b, off } => Op::F64MulAddLoadLL { a, b, off },
                    Op::I64LoadSL { b, off } => Op::F64MulAddLoadSL { b, off },
                    _ => unreachable!(),
                };
                self.pop_ops(1);
                self.out.ops.last_mut().unwrap().set(fused);
            }
            (_, Some(Op::F64Mul)) if b == F64Bin::Add => {
                self.pop_ops(1);
                self.emit(Op::F64MulAdd);
            }
            _ => {
                self.emit(plain);
            }
        }
    }

    /// An f32 add/sub/mul/div, fused with the `local.get`/`f32.const` ops producing its operands.
    fn emit_f32bin(&mut self, plain: Op) {
        type Forms = (fn(u32) -> Op, fn(u32, u32) -> Op, fn(u32) -> Op);
        let (l, ll, c): Forms = match plain {
            Op::F32Add => (Op::F32AddL, Op::F32AddLL, Op::F32AddC),
            Op::F32Sub => (Op::F32SubL, Op::F32SubLL, Op::F32SubC),
            Op::F32Mul => (Op::F32MulL, Op::F32MulLL, Op::F32MulC),
            _ => (Op::F32DivL, Op::F32DivLL, Op::F32DivC),
        };
        let (k, fused) = match (self.last(2), self.last(1)) {
            (Some(Op::LocalGet(a)), Some(Op::LocalGet(b))) => (2, ll(a, b)),
            (_, Some(Op::LocalGet(b))) => (1, l(b)),
            (_, Some(Op::Const(k))) => (1, c(k as u32)),
            _ => (0, plain),
        };
        self.pop_ops(k);
        self.emit(fused);
    }

    /// `local.set`/`local.tee`, folded into the op producing the value when possible.
    fn emit_local_set(&mut self, x: u32, tee: bool) {
        if x < DST_TEE {
            let dst = if tee { x | DST_TEE } else { x };
            if let Some(op) = self.last(1) {
                match I32Bin::split(&op) {
                    Some((b, Form::LL(a, y, DST_PUSH))) => {
                        self.out
                            .ops
                            .last_mut()
                            .unwrap()
                            .set(b.make(Form::LL(a, y, dst)));
                        return;
                    }
                    Some((b, Form::LC(a, c, DST_PUSH))) => {
                        // Two in-place increments in a row become one op.
                        if let (
                            I32Bin::Add,
                            true,
                            Some(Op::I32AddLC {
                                a: a0,
                                c: c0,
                                dst: d0,
                            }),
                        ) = (b, dst == a, self.last(2))
                        {
                            if let (true, Ok(c0)) = (d0 == a0, i16::try_from(c0 as i32)) {
                                self.pop_ops(2);
                                self.emit(Op::Inc2 {
                                    c: c0,
                                    a: a0,
                                    b: a,
                                    d: c,
                                });
                                return;
                            }
                        }
                        self.out
                            .ops
                            .last_mut()
                            .unwrap()
                            .set(b.make(Form::LC(a, c, dst)));
                        return;
                    }
                    Some((I32Bin::Add, Form::Plain)) => {
                        self.out.ops.last_mut().unwrap().set(Op::I32AddS(dst));
                        return;
                    }
                    _ => {}
                }
                let with_dst = match op {
                    Op::I32LoadL { a, off } => Some(Op::I32LoadLS { a, off, dst }),
                    Op::I64LoadL { a, off } => Some(Op::I64LoadLS { a, off, dst }),
                    Op::I32LoadSL { b, off } => Some(Op::I32LoadSLS { b, off, dst }),
                    Op::I64LoadSL { b, off } => Some(Op::I64LoadSLS { b, off, dst }),
                    _ => None,
                };
                if let Some(f) = with_dst {
                    // In place: the op keeps the load's pc (the load is what traps).
                    self.out.ops.last_mut().unwrap().set(f);
                    return;
                }
                if !tee {
                    match op {
                        Op::LocalGet(src) => {
                            self.pop_ops(1);
                            self.emit(Op::LocalCopy { src, dst: x });
                            return;
                        }
                        Op::Const(c) => {
                            self.pop_ops(1);
                            self.emit(Op::LocalSetConst { dst: x, c });
                            return;
                        }
                        _ => {}
                    }
                }
            }
        }
        self.emit(if tee {
            Op::LocalTee(x)
        } else {
            Op::LocalSet(x)
        });
    }

    /// Before an indirect call through a 64-bit table: narrow its i64 index
    /// (`Op::TableIndex64`).
    fn table_index64(&mut self, v: &BodyValidator, table: u32) {
        if v.resources().table_at(table).is_some_and(|t| t.table64) {
            self.emit(Op::TableIndex64);
        }
    }

    /// An i32/i64 (or f32/f64) load from memory 0, fused with its address computation.
    fn emit_load(&mut self, m: MemArg, wide: bool, plain: Op) {
        if m.mem == 0 {
            if let Some(op) = self.last(1) {
                let fused = match (op, I32Bin::split(&op)) {
                    (Op::LocalGet(a), _) => Some(if wide {
                        Op::I64LoadL { a, off: m.offset }
                    } else {
                        Op::I32LoadL { a, off: m.offset }
                    }),
                    (_, Some((I32Bin::Add, Form::Plain))) => Some(if wide {
                        Op::I64LoadSS { off: m.offset }
                    } else {
                        Op::I32LoadSS { off: m.offset }
                    }),
                    (_, Some((I32Bin::Add, Form::LC(a, c, DST_PUSH)))) => Some(if wide {
                        Op::I64LoadLC {
                            a,
                            c,
                            off: m.offset,
                        }
                    } else {
                        Op::I32LoadLC {
                            a,
                            c,
                            off: m.offset,
                        }
                    }),
                    (_, Some((I32Bin::Add, Form::L(b)))) => Some(if wide {
                        Op::I64LoadSL { b, off: m.offset }
                    } else {
                        Op::I32LoadSL { b, off: m.offset }
                    }),
                    (_, Some((I32Bin::Add, Form::LL(a, b, DST_PUSH)))) => Some(if wide {
                        Op::I64LoadLL {
                            a,
                            b,
                            off: m.offset,
                        }
                    } else {
                        Op::I32LoadLL {
                            a,
                            b,
                            off: m.offset,
                        }
                    }),
                    _ => None,
                };
                if let Some(f) = fused {
                    // The fused op traps at the load's pc (the current instruction).
                    self.pop_ops(1);
                    self.emit(f);
                    return;
                }
            }
        }
        self.emit(plain);
    }

    /// An i32/f32 store, fused with a `local.tee` of the value (memory 0).
    fn emit_store32(&mut self, m: MemArg) {
        if let (0, Some(Op::LocalTee(t))) = (m.mem, self.last(1)) {
            self.pop_ops(1);
            self.emit(Op::I32StoreTee { t, off: m.offset });
            return;
        }
        self.emit(Op::I32Store(m));
    }

    /// `select`, fused with a signed compare of two locals computing its condition.
    fn emit_select(&mut self) {
        let (k, op) = match self.last(1) {
            Some(Op::I32GtSLL {
                a,
                b,
                dst: DST_PUSH,
            }) => (1, Op::SelectGtSLL { a, b }),
            Some(Op::I32LtSLL {
                a,
                b,
                dst: DST_PUSH,
            }) => (1, Op::SelectLtSLL { a, b }),
            _ => (0, Op::Select),
        };
        self.pop_ops(k);
        self.emit(op);
    }

    /// An i64/f64 store, fused with a `local.tee` of the value and an
    /// `x + y * z` computing it (memory 0). The fused op keeps the store's pc.
    fn emit_store64(&mut self, m: MemArg) {
        if m.mem == 0 {
            let fused = match (self.last(2), self.last(1)) {
                (Some(Op::F64MulAdd), Some(Op::LocalTee(t))) => {
                    Some((2, Op::F64MulAddTeeStore { t, off: m.offset }))
                }
                (_, Some(Op::LocalTee(t))) => Some((1, Op::I64StoreTee { t, off: m.offset })),
                (_, Some(Op::F64MulAdd)) => Some((1, Op::F64MulAddStore { off: m.offset })),
                _ => None,
            };
            if let Some((k, op)) = fused {
                self.pop_ops(k);
                self.emit(op);
                return;
            }
        }
        self.emit(Op::I64Store(m));
    }

    /// A jump to `target` taken when the i32 on top of the stack is non-zero
    /// (`when_true`) or zero, fused with the comparison computing it.
    fn emit_cond_jump(&mut self, target: u32, when_true: bool) -> usize {
        if let Some(op) = self.last(1) {
            if op == Op::I32Eqz {
                self.pop_ops(1);
                return self.emit(if when_true {
                    Op::JumpIfZero(target)
                } else {
                    Op::JumpIfNonZero(target)
                });
            }
            if let Some((b, f)) = I32Bin::split(&op) {
                let cmp = if when_true { Some(b) } else { b.negate() };
                if let Some(j) = cmp.and_then(|c| c.jump(f, target)) {
                    // The loop counter step: `local a += c` (tee) + jump if != k.
                    if let (Op::JmpI32NeC { c: k, t }, Some(Op::I32AddLC { a, c, dst })) =
                        (j, self.last(2))
                    {
                        if dst == a | DST_TEE {
                            if let Ok(c) = i16::try_from(c as i32) {
                                self.pop_ops(2);
                                return self.emit(Op::IncJmpNe { c, a, k, t });
                            }
                        }
                    }
                    self.pop_ops(1);
                    return self.emit(j);
                }
            }
        }
        self.emit(if when_true {
            Op::JumpIfNonZero(target)
        } else {
            Op::JumpIfZero(target)
        })
    }

    /// A site's probes: direct counter increments if `ins` can give them,
    /// else one `Op::Probe`.
    fn emit_probes(&mut self, calls: Vec<ProbeCall>, ins: &mut (dyn Instrumenter + '_)) {
        if calls.is_empty() {
            return;
        }
        match ins.direct_increments(&calls) {
            Some(direct) => {
                for d in direct {
                    match d {
                        Direct::Inc(i) => {
                            let (lo, hi, delta) = (i.addr as u32, (i.addr >> 32) as u32, i.delta);
                            self.emit(if i.width == 8 {
                                Op::MonInc64 { lo, hi, delta }
                            } else {
                                Op::MonInc32 { lo, hi, delta }
                            });
                        }
                        Direct::Select { operand, nz, z } => {
                            let k = self.out.sel_incs.len() as u32;
                            self.out.sel_incs.push([nz, z]);
                            self.emit(Op::MonIncSel { n: operand, k });
                        }
                    }
                }
            }
            None => {
                let k = self.out.probes.len() as u32;
                self.out.probes.push(calls);
                self.emit(Op::Probe(k));
            }
        }
        self.set_barrier();
    }

    fn patch(&mut self, f: &Fixup, target: u32) {
        match *f {
            Fixup::Op(i) => match jump_target_mut(self.out.ops[i].get_mut()) {
                Some(t) => *t = target,
                None => unreachable!("patching a non-branch"),
            },
            Fixup::Table(i) => self.out.br_tables[i].target = target,
            Fixup::Catch(r, k) => self.out.handlers[r].catches[k].to.target = target,
        }
    }

    /// Resolve a branch to relative depth `depth` at the current point: the
    /// target (a placeholder until the block's end is reached, unless a loop)
    /// with its stack adjustment, and whether values must move (before the
    /// branch pops anything). None for an invalid depth; the validator rejects
    /// the op right after.
    fn branch(&self, v: &BodyValidator, depth: u32) -> Option<(BrTarget, bool)> {
        let frame = v.get_control_frame(depth as usize)?;
        if depth as usize >= self.ctls.len() {
            return None;
        }
        let (np, nr) = self.ctx.block_arity(frame.block_type);
        let is_loop = frame.kind == FrameKind::Loop;
        let keep = if is_loop { np } else { nr };
        let frame_height = self.slots_below(v, frame.height as u32);
        let base = self.out.operand_base() as u32 + frame_height;
        let height = self.slots_below(v, v.operand_stack_height());
        let needs_move = height != frame_height + keep;
        // Branches to the function body's label are ordinary branches to its
        // final `end` (which returns), so probes at that `end` fire as for any
        // other way out.
        let ctl = &self.ctls[self.ctls.len() - 1 - depth as usize];
        let target = ctl.loop_start.unwrap_or(u32::MAX);
        Some((BrTarget { target, base, keep }, needs_move))
    }

    /// Slots taken by the bottom `values` operands of the whole operand stack.
    fn slots_below(&self, v: &BodyValidator, values: u32) -> u32 {
        if !self.wide {
            return values;
        }
        let height = v.operand_stack_height();
        (height.saturating_sub(values)..height)
            .map(|d| match v.get_operand_type(d as usize) {
                Some(Some(t)) => ValType::from_wasmparser(t).slots() as u32,
                _ => 1,
            })
            .sum()
    }

    /// The type of the operand `depth` values from the top, if known.
    fn operand_type(v: &BodyValidator, depth: usize) -> Option<ValType> {
        match v.get_operand_type(depth) {
            Some(Some(t)) => Some(ValType::from_wasmparser(t)),
            _ => None,
        }
    }

    /// The probe calls at `site`, with their arguments in slots: the
    /// instrumenter names operands by depth in values and locals by index.
    fn site_calls(
        &self,
        ins: &mut (dyn Instrumenter + '_),
        when: When,
        site: &Site<'_, '_>,
    ) -> Result<Vec<ProbeCall>, LoadError> {
        let mut calls = ins.probes(when, site)?;
        if self.wide {
            self.slot_args(site.validator, &mut calls);
        }
        Ok(calls.into_vec())
    }

    fn slot_args(&self, v: &BodyValidator, calls: &mut [ProbeCall]) {
        for call in calls {
            for a in &mut call.args {
                match a {
                    ArgSource::Operand(n) | ArgSource::OpaqueOperand(n) => {
                        let h = v.operand_stack_height();
                        // Slots above the operand's low slot.
                        let above = self.slots_below(v, h) - self.slots_below(v, h - *n - 1);
                        *n = above - 1;
                    }
                    ArgSource::Local(n) | ArgSource::OpaqueLocal(n) => {
                        *n = self.out.local_slot(*n as usize) as u32
                    }
                    _ => {}
                }
            }
        }
    }

    /// A cast target for `Op::RefTest`/`RefCast`/`CastTest`.
    fn cast(&mut self, r: wasmparser::RefType, on_fail: bool) -> u32 {
        self.out.casts.push(Cast {
            heap: crate::core::gc_types::HeapTy::of(r.heap_type()),
            nullable: r.is_nullable(),
            on_fail,
        });
        self.out.casts.len() as u32 - 1
    }

    /// An indirect call through type `ty`, which subtypes may have (a
    /// non-final type): a callee of a subtype matches, which only the
    /// interpreter checks (compiled code compares type ids exactly).
    fn subtyped_call(&mut self, v: &BodyValidator, ty: u32) {
        if v.resources().sub_type_at(ty).is_some_and(|st| !st.is_final) {
            self.require_interpreter();
        }
    }

    fn add_fixup(&mut self, depth: u32, f: Fixup) {
        let n = self.ctls.len();
        let ctl = &mut self.ctls[n - 1 - depth as usize];
        if ctl.loop_start.is_none() {
            ctl.fixups.push(f);
        }
    }
}

/// Whether a value of type `t` may be a reference the collector must see:
/// one of the `any` hierarchy (`any`, `eq`, `i31`, `struct`, `array`,
/// `none`, concrete struct and array types), or of the `extern` one when
/// `extern_objects`.
fn holds_gc_ref(v: &BodyValidator, t: wasmparser::ValType, extern_objects: bool) -> bool {
    use wasmparser::AbstractHeapType as A;
    let wasmparser::ValType::Ref(r) = t else {
        return false;
    };
    match v.resources().top_type(&r.heap_type()) {
        wasmparser::HeapType::Abstract { ty: A::Any, .. } => true,
        wasmparser::HeapType::Abstract { ty: A::Extern, .. } => extern_objects,
        _ => false,
    }
}

fn memarg(m: &wasmparser::MemArg) -> MemArg {
    MemArg {
        offset: m.offset as u32,
        mem: m.memory,
    }
}

/// Validate and translate one function body.
pub(crate) fn translate(
    v: &mut BodyValidator,
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
    let local_types: Vec<ValType> = (0..num_locals)
        .filter_map(|i| v.get_local_type(i))
        .map(ValType::from_wasmparser)
        .collect();
    let has_v128 = |tys: &[ValType]| tys.contains(&ValType::V128);
    let local_slots = if has_v128(&local_types) {
        let mut at = 0u32;
        local_types
            .iter()
            .map(|t| {
                at += t.slots() as u32;
                at - t.slots() as u32
            })
            .collect()
    } else {
        Vec::new()
    };
    // Any SIMD instruction has the 0xFD prefix; that byte elsewhere (in an
    // immediate) only costs the slower height computation.
    let wide = has_v128(&local_types) || ctx.v128_types || body.as_bytes().contains(&0xFD);
    let exn_types = ty.params.iter().chain(&*ty.results).chain(&local_types);
    let interp_only = exn_types.clone().any(|t| *t == ValType::ExnRef);
    let local_slot_count = slot_count(&local_types) as u32;
    let exn_slots = if ctx.after_load {
        0
    } else {
        eh::legacy_try_count(ctx, body)
    };
    // (A legacy catch keeps an exnref, a heap reference, in a hidden slot.)
    let mut gc_maps = super::stackmap::Recorder::new(v, ctx.heap_refs || exn_slots > 0, wide);
    let mut t = Translator {
        ctx,
        out: Compiled {
            num_params: slot_count(&ty.params) as u32,
            num_locals: local_slot_count + exn_slots,
            num_results: slot_count(&ty.results) as u32,
            func_idx,
            local_types,
            local_slots,
            interp_only,
            ..Default::default()
        },
        ctls: vec![Ctl::block(None)],
        body_start,
        cur_pc: 0,
        fuse: !instr.as_deref().is_some_and(|i| i.dynamic()) && !fusion_disabled_by_env(),
        barrier: 0,
        in_fusable: false,
        wide,
        mem64: (0..)
            .map_while(|i| v.resources().memory_at(i))
            .any(|m| m.memory64),
        next_exn_slot: local_slot_count,
        loop_count_start: 0u32.wrapping_sub(crate::exec::tiering::size_extra(body.range().len())),
    };
    // About one op per two bytes of body: reserved up front, a large body's
    // code is not copied over and over while it grows (uarm's 80 MB replay
    // spent a fifth of its load moving and faulting in growing vectors).
    let expected_ops = body.range().len() / 2;
    t.out.ops.reserve(expected_ops);
    t.out.pcs.reserve(expected_ops);
    if ty
        .params
        .iter()
        .chain(ty.results.iter())
        .chain(t.out.local_types.iter())
        .any(|t| *t == ValType::ExternRef)
        && (0..num_locals).any(|i| {
            v.get_local_type(i)
                .is_some_and(|t| holds_gc_ref(v, t, ctx.extern_objects))
        })
    {
        t.require_interpreter();
    }
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
        if ctx.after_load && matches!(op, Operator::Try { .. }) {
            // (Its catches would need a slot counted above.)
            return Err(LoadError {
                kind: crate::core::error::LoadErrorKind::Invalid,
                offset: Some(offset),
                message: "internal: a legacy `try` in a body translated after load".into(),
            });
        }
        t.cur_pc = (offset - t.body_start) as u32;
        let reachable = !v
            .get_control_frame(0)
            .map(|f| f.unreachable)
            .unwrap_or(true);
        let at_func_end = reader.eof();
        if let Some(ins) = instr.as_deref_mut() {
            if first {
                let site = Site {
                    func_idx,
                    pc: 0,
                    op: None,
                    validator: v,
                    at_func_end: false,
                    instr_index: 0,
                    reached: true,
                };
                let calls = t.site_calls(ins, When::Entry, &site)?;
                let pc = t.cur_pc;
                t.cur_pc = 0;
                t.emit_probes(calls, ins);
                t.cur_pc = pc;
            }
        }
        first = false;
        if !fusable(&op) {
            // Before `site_start` is taken: settling afterwards would move it.
            t.in_fusable = true;
            t.settle_get_pair();
            t.in_fusable = false;
        }
        // Branches to this instruction (a loop header, a block's end) land before its probes.
        let site_start = t.here();
        if ctx.loop_head_first {
            if let Operator::Loop { blockty } = op {
                t.loop_head(v, blockty, reachable);
                t.set_barrier();
            }
        }
        // An `end` is also reached by the branches to its block.
        let reached = reachable
            || (matches!(op, Operator::End)
                && t.ctls
                    .last()
                    .is_some_and(|c| !c.fixups.is_empty() || c.if_jump.is_some()));
        // Every instruction is a site, as in Wizard (static calls run at
        // unreachable ones too); only reached ones get probes.
        if let Some(ins) = instr.as_deref_mut() {
            let site = Site {
                func_idx,
                pc: t.cur_pc,
                op: Some(&op),
                validator: v,
                at_func_end,
                instr_index,
                reached,
            };
            let calls = t.site_calls(ins, When::Before, &site)?;
            if reached {
                t.emit_probes(calls, ins);
            }
        }
        if reachable
            || matches!(
                op,
                Operator::Block { .. }
                    | Operator::Loop { .. }
                    | Operator::If { .. }
                    | Operator::Else
                    | Operator::End
                    | Operator::TryTable { .. }
                    | Operator::Try { .. }
                    | Operator::Catch { .. }
                    | Operator::CatchAll
                    | Operator::Delegate { .. }
            )
        {
            let before = t.here();
            t.in_fusable = fusable(&op);
            let r = translate_op(&mut t, v, &op, reachable, site_start);
            t.in_fusable = false;
            if !fusable(&op) {
                t.set_barrier();
            }
            if r.is_ok()
                && t.here() == before
                && reachable
                && instr.as_deref().is_some_and(|i| i.dynamic())
            {
                t.emit(Op::Nop);
            }
            if let Err(e) = r {
                // An op we cannot translate is usually one the validator rejects
                // (e.g. SIMD): report the validator's error, which names the feature.
                v.op(offset, &op)?;
                return Err(e);
            }
        }
        if let Some(g) = gc_maps.as_mut() {
            if reached && (instr.is_some() || super::stackmap::is_safepoint(&op)) {
                g.record(v, site_start, t.here());
            }
        }
        if !t.out.interp_only && eh::names_exnref(&op, v) {
            t.require_interpreter();
        }
        v.op(offset, &op)?;
        if !t.out.interp_only
            && (matches!(v.get_operand_type(0), Some(Some(ty)) if holds_gc_ref(v, ty, ctx.extern_objects))
                || (eh::may_make_exnref(&op)
                    && Translator::operand_type(v, 0) == Some(ValType::ExnRef)))
        {
            t.require_interpreter();
        }
        max_height = max_height.max(v.operand_stack_height());
        let falls_through = !v
            .get_control_frame(0)
            .map(|f| f.unreachable)
            .unwrap_or(true);
        // `:after` sites too are matched in unreachable code (static calls
        // run); probes fire where control continues past the instruction,
        // also past an `end` that only branches reach.
        if !at_func_end {
            if let Some(ins) = instr.as_deref_mut().filter(|i| i.after_sites()) {
                let fires = reached && falls_through;
                let site = Site {
                    func_idx,
                    pc: t.cur_pc,
                    op: Some(&op),
                    validator: v,
                    at_func_end,
                    instr_index,
                    reached: fires,
                };
                let calls = t.site_calls(ins, When::After, &site)?;
                if fires {
                    let start = t.here();
                    t.emit_probes(calls, ins);
                    if let Some(g) = gc_maps.as_mut() {
                        g.record(v, start, t.here());
                    }
                }
            }
        }
        instr_index += 1;
    }
    v.finish(reader.original_position())?;
    // In slots: at most two per value.
    t.out.max_height = max_height * if t.wide { 2 } else { 1 } + 1;
    if t.out.interp_only {
        t.no_osr_entries();
    }
    t.out.gc_maps = gc_maps.map(|g| {
        let mut maps = g.finish();
        // The slots legacy catches keep exnrefs in hold heap references.
        let hidden = local_slot_count..local_slot_count + exn_slots;
        let mut locals = maps.ref_locals.to_vec();
        locals.extend(hidden);
        maps.ref_locals = locals.into();
        maps
    });
    dump_if_requested(&t.out);
    Ok(t.out)
}

/// `WIZENG_DUMP_OPS=N` (a function index) or `all` prints the translated ops
/// to stderr (development aid for fusion work).
fn dump_if_requested(c: &Compiled) {
    static DUMP: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let Some(v) = DUMP.get_or_init(|| {
        std::env::var_os("WIZENG_DUMP_OPS").map(|v| v.to_string_lossy().into_owned())
    }) else {
        return;
    };
    if v != "all" && v.parse::<u32>().ok() != Some(c.func_idx) {
        return;
    }
    eprintln!("func {} ({} ops)", c.func_idx, c.ops.len());
    for (i, (op, pc)) in c.ops.iter().zip(&c.pcs).enumerate() {
        eprintln!("  {i:5} @{pc:<6} {:?}", op.get());
    }
}

fn translate_op(
    t: &mut Translator<'_>,
    v: &BodyValidator,
    op: &Operator<'_>,
    reachable: bool,
    site_start: u32,
) -> Result<(), LoadError> {
    use Operator as W;
    let simple = |t: &mut Translator<'_>, o: Op| {
        t.emit(o);
    };
    if let Some(a) = t.mem64.then(|| mem64_access(v, op)).flatten() {
        let k = t.out.mem64.len() as u32;
        t.out.mem64.push(a);
        t.emit(Op::Mem64(k));
        return Ok(());
    }
    match *op {
        // Reinterpretations are no-ops on raw bits.
        W::Nop
        | W::I32ReinterpretF32
        | W::I64ReinterpretF64
        | W::F32ReinterpretI32
        | W::F64ReinterpretI64 => {}
        W::Unreachable => simple(t, Op::Unreachable),
        W::Block { .. } => {
            let inner = t.inner();
            t.ctls.push(Ctl::block(inner))
        }
        W::Loop { blockty } => {
            // Back edges re-enter at the loop instruction itself, so its probes
            // (block:start, opcode:loop) fire on every iteration, as in Wizard.
            t.ctls.push(Ctl {
                loop_start: Some(site_start),
                ..Ctl::block(t.inner())
            });
            if !t.ctx.loop_head_first {
                t.loop_head(v, blockty, reachable);
            }
        }
        W::If { .. } => {
            let j = if reachable {
                Some(t.emit_cond_jump(u32::MAX, false))
            } else {
                None
            };
            t.ctls.push(Ctl {
                if_jump: j,
                ..Ctl::block(t.inner())
            });
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
            t.close_region(ctl.region, here);
            if t.ctls.is_empty() {
                // End of the function body.
                t.emit(Op::Return);
            }
        }
        W::Br { relative_depth } => {
            let Some((b, mv)) = t.branch(v, relative_depth) else {
                return Ok(());
            };
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
            let Some((b, _)) = t.branch(v, relative_depth) else {
                return Ok(());
            };
            let Some(height) = v.operand_stack_height().checked_sub(1) else {
                return Ok(());
            };
            let height = t.slots_below(v, height);
            let frame_height = b.base - t.out.operand_base() as u32;
            let mv = height != frame_height + b.keep;
            if mv {
                let i = t.emit(Op::BrIf(b));
                t.add_fixup(relative_depth, Fixup::Op(i));
            } else {
                let i = t.emit_cond_jump(b.target, true);
                t.add_fixup(relative_depth, Fixup::Op(i));
            }
        }
        W::BrTable { ref targets } => {
            let start = t.out.br_tables.len();
            let mut depths: Vec<u32> = Vec::with_capacity(targets.len() as usize + 1);
            for d in targets.targets() {
                depths.push(d?);
            }
            depths.push(targets.default());
            if v.operand_stack_height() == 0 {
                return Ok(()); // invalid: the validator rejects it next
            }
            for (k, d) in depths.iter().enumerate() {
                let Some((b, _)) = t.branch(v, *d) else {
                    t.out.br_tables.truncate(start);
                    return Ok(());
                };
                t.out.br_tables.push(b);
                t.add_fixup(*d, Fixup::Table(start + k));
            }
            t.emit(Op::BrTable {
                start: start as u32,
                len: depths.len() as u32,
            });
        }
        W::Return => simple(t, Op::Return),
        W::Call { function_index } => simple(t, Op::Call(function_index)),
        W::CallIndirect {
            type_index,
            table_index,
            ..
        } => {
            t.subtyped_call(v, type_index);
            t.table_index64(v, table_index);
            simple(
                t,
                Op::CallIndirect {
                    ty: type_index,
                    table: table_index,
                },
            )
        }
        W::ReturnCall { function_index } => simple(t, Op::ReturnCall(function_index)),
        W::ReturnCallIndirect {
            type_index,
            table_index,
        } => {
            t.subtyped_call(v, type_index);
            t.table_index64(v, table_index);
            simple(
                t,
                Op::ReturnCallIndirect {
                    ty: type_index,
                    table: table_index,
                },
            )
        }
        W::CallRef { .. } => simple(t, Op::CallRef),
        W::ReturnCallRef { .. } => simple(t, Op::ReturnCallRef),
        W::RefAsNonNull => simple(t, Op::RefAsNonNull),
        // The branch target does not depend on the reference being popped
        // (`br_on_null`) or kept (`br_on_non_null`, as the label's last value).
        W::BrOnNull { relative_depth } | W::BrOnNonNull { relative_depth } => {
            let Some((b, _)) = t.branch(v, relative_depth) else {
                return Ok(()); // invalid: the validator rejects it next
            };
            let i = t.emit(match op {
                W::BrOnNull { .. } => Op::BrOnNull(b),
                _ => Op::BrOnNonNull(b),
            });
            t.add_fixup(relative_depth, Fixup::Op(i));
        }
        // One thread: nothing to order.
        W::AtomicFence => {}
        W::Drop => {
            simple(t, Op::Drop);
            if Translator::operand_type(v, 0) == Some(ValType::V128) {
                simple(t, Op::Drop);
            }
        }
        W::Select | W::TypedSelect { .. } => {
            if Translator::operand_type(v, 1) == Some(ValType::V128) {
                simple(t, Op::Select128)
            } else {
                t.emit_select()
            }
        }
        W::LocalGet { local_index: i }
        | W::LocalSet { local_index: i }
        | W::LocalTee { local_index: i } => {
            let Some(&ty) = t.out.local_types.get(i as usize) else {
                return Ok(()); // invalid: the validator rejects it next
            };
            let x = t.out.local_slot(i as usize) as u32;
            match (op, ty == ValType::V128) {
                (W::LocalGet { .. }, false) => simple(t, Op::LocalGet(x)),
                (W::LocalSet { .. }, false) => t.emit_local_set(x, false),
                (_, false) => t.emit_local_set(x, true),
                (W::LocalGet { .. }, true) => simple(t, Op::LocalGet128(x)),
                (W::LocalSet { .. }, true) => simple(t, Op::LocalSet128(x)),
                (_, true) => simple(t, Op::LocalTee128(x)),
            }
        }
        W::GlobalGet { global_index: g } | W::GlobalSet { global_index: g } => {
            let v128 = v
                .resources()
                .global_at(g)
                .is_some_and(|gt| gt.content_type == wasmparser::ValType::V128);
            simple(
                t,
                match (op, v128) {
                    (W::GlobalGet { .. }, false) => Op::GlobalGet(g),
                    (W::GlobalGet { .. }, true) => Op::GlobalGet128(g),
                    (_, false) => Op::GlobalSet(g),
                    (_, true) => Op::GlobalSet128(g),
                },
            )
        }
        W::V128Const { value } => {
            let k = t.out.v128_consts.len() as u32;
            t.out.v128_consts.push(value.i128() as u128);
            simple(t, Op::V128Const(k))
        }
        W::I8x16Shuffle { lanes } => {
            let k = t.out.v128_consts.len() as u32;
            let consts = crate::exec::interp::simd_fast::shuffle_consts(lanes);
            t.out.v128_consts.extend(consts);
            simple(t, Op::Shuffle(k))
        }

        W::I32Load { memarg } | W::F32Load { memarg } => {
            t.emit_load(memarg_of(&memarg), false, Op::I32Load(memarg_of(&memarg)))
        }
        W::I64Load { memarg } | W::F64Load { memarg } => {
            t.emit_load(memarg_of(&memarg), true, Op::I64Load(memarg_of(&memarg)))
        }
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
        W::I32Store { memarg } | W::F32Store { memarg } => t.emit_store32(memarg_of(&memarg)),
        W::I64Store { memarg } | W::F64Store { memarg } => t.emit_store64(memarg_of(&memarg)),
        W::I32Store8 { memarg } => simple(t, Op::I32Store8(memarg_of(&memarg))),
        W::I64Store8 { memarg } => simple(t, Op::I64Store8(memarg_of(&memarg))),
        W::I32Store16 { memarg } => simple(t, Op::I32Store16(memarg_of(&memarg))),
        W::I64Store16 { memarg } => simple(t, Op::I64Store16(memarg_of(&memarg))),
        W::I64Store32 { memarg } => simple(t, Op::I64Store32(memarg_of(&memarg))),
        W::MemorySize { mem, .. } => {
            let page64k = |m: wasmparser::MemoryType| m.page_size_log2.is_none_or(|l| l == 16);
            match v.resources().memory_at(mem) {
                Some(m) if mem == 0 && page64k(m) => simple(t, Op::MemorySize0),
                _ => simple(t, Op::MemorySize(mem)),
            }
        }
        W::MemoryGrow { mem, .. } => simple(t, Op::MemoryGrow(mem)),
        W::MemoryFill { mem } => simple(t, Op::MemoryFill(mem)),
        W::MemoryCopy { dst_mem, src_mem } => simple(
            t,
            Op::MemoryCopy {
                dst: dst_mem,
                src: src_mem,
            },
        ),
        W::MemoryInit { data_index, mem } => simple(
            t,
            Op::MemoryInit {
                data: data_index,
                mem,
            },
        ),
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
        W::TableCopy {
            dst_table,
            src_table,
        } => simple(
            t,
            Op::TableCopy {
                dst: dst_table,
                src: src_table,
            },
        ),
        W::TableInit { elem_index, table } => simple(
            t,
            Op::TableInit {
                elem: elem_index,
                table,
            },
        ),
        W::ElemDrop { elem_index } => simple(t, Op::ElemDrop(elem_index)),
        W::AnyConvertExtern | W::ExternConvertAny => t.require_interpreter(),
        W::BrOnCast {
            relative_depth,
            to_ref_type,
            ..
        }
        | W::BrOnCastFail {
            relative_depth,
            to_ref_type,
            ..
        } => {
            t.require_interpreter();
            // The reference stays on top for the branch: a test pushing the
            // condition, then a `br_if` (which pops it).
            let Some((b, _)) = t.branch(v, relative_depth) else {
                return Ok(()); // invalid: the validator rejects it next
            };
            let k = t.cast(to_ref_type, matches!(op, W::BrOnCastFail { .. }));
            simple(t, Op::CastTest(k));
            let i = t.emit(Op::BrIf(b));
            t.add_fixup(relative_depth, Fixup::Op(i));
        }
        W::RefTestNonNull { hty }
        | W::RefTestNullable { hty }
        | W::RefCastNonNull { hty }
        | W::RefCastNullable { hty } => {
            t.require_interpreter();
            let nullable = matches!(op, W::RefTestNullable { .. } | W::RefCastNullable { .. });
            let r = wasmparser::RefType::new(nullable, hty).unwrap_or(wasmparser::RefType::ANYREF);
            let k = t.cast(r, false);
            simple(
                t,
                match op {
                    W::RefTestNonNull { .. } | W::RefTestNullable { .. } => Op::RefTest(k),
                    _ => Op::RefCast(k),
                },
            )
        }

        W::TryTable { ref try_table } => t.try_table(v, try_table),
        W::Try { .. } => t.legacy_try(),
        W::Catch { tag_index } => t.legacy_catch(v, Some(tag_index), reachable),
        W::CatchAll => t.legacy_catch(v, None, reachable),
        W::Delegate { relative_depth } => t.delegate(relative_depth, site_start),
        W::Rethrow { relative_depth } => t.rethrow(relative_depth),
        W::Throw { tag_index } => {
            t.require_interpreter();
            simple(t, Op::Throw(tag_index))
        }
        W::ThrowRef => {
            t.require_interpreter();
            simple(t, Op::ThrowRef)
        }

        _ => {
            if let Some(o) = super::gc_ops::gc_op(op) {
                t.require_interpreter();
                simple(t, o);
                return Ok(());
            }
            if let Some(o) = simd_op(op) {
                t.emit_simd(o)
            } else if let Some((op, m)) = AtomicOp::from_operator(op) {
                simple(t, Op::Atomic { op, m })
            } else if let Some(o) = numeric(op) {
                if let Some(b) = I32Bin::of(&o) {
                    t.emit_i32bin(b)
                } else if let Some(b) = F64Bin::of(&o) {
                    t.emit_f64bin(b, o)
                } else if matches!(o, Op::F32Add | Op::F32Sub | Op::F32Mul | Op::F32Div) {
                    t.emit_f32bin(o)
                } else {
                    simple(t, o)
                }
            } else {
                return Err(LoadError {
                    kind: crate::core::error::LoadErrorKind::Unsupported,
                    offset: Some(t.body_start + t.cur_pc as usize),
                    message: format!("unsupported instruction {op:?}"),
                });
            }
        }
    }
    Ok(())
}

/// A load, store, SIMD or atomic access to a 64-bit memory, as an
/// `Op::Mem64` access (see [`Mem64Access`]); None for anything else.
fn mem64_access(v: &BodyValidator, op: &Operator<'_>) -> Option<Mem64Access> {
    use Operator as W;
    type Make = fn(MemArg) -> Op;
    let scalar: Option<(&wasmparser::MemArg, u32, Make)> = match op {
        W::I32Load { memarg } | W::F32Load { memarg } => Some((memarg, 0, Op::I32Load)),
        W::I64Load { memarg } | W::F64Load { memarg } => Some((memarg, 0, Op::I64Load)),
        W::I32Load8S { memarg } => Some((memarg, 0, Op::I32Load8S)),
        W::I32Load8U { memarg } => Some((memarg, 0, Op::I32Load8U)),
        W::I32Load16S { memarg } => Some((memarg, 0, Op::I32Load16S)),
        W::I32Load16U { memarg } => Some((memarg, 0, Op::I32Load16U)),
        W::I64Load8S { memarg } => Some((memarg, 0, Op::I64Load8S)),
        W::I64Load8U { memarg } => Some((memarg, 0, Op::I64Load8U)),
        W::I64Load16S { memarg } => Some((memarg, 0, Op::I64Load16S)),
        W::I64Load16U { memarg } => Some((memarg, 0, Op::I64Load16U)),
        W::I64Load32S { memarg } => Some((memarg, 0, Op::I64Load32S)),
        W::I64Load32U { memarg } => Some((memarg, 0, Op::I64Load32U)),
        W::I32Store { memarg } | W::F32Store { memarg } => Some((memarg, 1, Op::I32Store)),
        W::I64Store { memarg } | W::F64Store { memarg } => Some((memarg, 1, Op::I64Store)),
        W::I32Store8 { memarg } => Some((memarg, 1, Op::I32Store8)),
        W::I32Store16 { memarg } => Some((memarg, 1, Op::I32Store16)),
        W::I64Store8 { memarg } => Some((memarg, 1, Op::I64Store8)),
        W::I64Store16 { memarg } => Some((memarg, 1, Op::I64Store16)),
        W::I64Store32 { memarg } => Some((memarg, 1, Op::I64Store32)),
        _ => None,
    };
    // (memarg, slots above the address, the access at offset 0)
    let (m, depth, inner) = if let Some((m, depth, make)) = scalar {
        (*m, depth, make(at0(m)))
    } else if let Some((kind, m, lane)) = MemOp::from_operator(op) {
        let inner = match kind {
            MemOp::Load => Op::V128Load(at0(&m)),
            MemOp::Store => Op::V128Store(at0(&m)),
            _ => Op::SimdMem {
                kind,
                lane,
                m: at0(&m),
            },
        };
        // Stores and lane loads have a v128 (two slots) above the address.
        let wide = kind.is_store() || kind.is_lane();
        (m, if wide { 2 } else { 0 }, inner)
    } else {
        let m = super::atomics::atomic_memarg(op)?;
        let (aop, _) = AtomicOp::from_operator(op)?;
        let depth = match aop.kind {
            AtomicKind::Load => 0,
            AtomicKind::Cmpxchg | AtomicKind::Wait => 2,
            _ => 1,
        };
        let inner = Op::Atomic {
            op: aop,
            m: at0(&m),
        };
        (m, depth, inner)
    };
    if !v.resources().memory_at(m.memory)?.memory64 {
        return None;
    }
    Some(Mem64Access {
        inner,
        offset: m.offset,
        depth,
    })
}

/// The memarg `m` with offset 0 (the access of an `Op::Mem64`).
fn at0(m: &wasmparser::MemArg) -> MemArg {
    MemArg {
        offset: 0,
        mem: m.memory,
    }
}

fn memarg_of(m: &wasmparser::MemArg) -> MemArg {
    memarg(m)
}

/// The op of a SIMD instruction other than `v128.const` and `i8x16.shuffle`.
fn simd_op(op: &Operator<'_>) -> Option<Op> {
    use super::simd::Shape;
    if let Some(s) = SimdOp::from_operator(op) {
        return Some(match s.shape() {
            Shape::Unary => Op::SimdUnary(s),
            Shape::Binary => Op::SimdBinary(s),
            Shape::Ternary => Op::SimdTernary(s),
            Shape::Test => Op::SimdTest(s),
            Shape::Shift => Op::SimdShift(s),
            Shape::Splat => Op::SimdSplat(s),
        });
    }
    if let Some((kind, lane)) = LaneOp::from_operator(op) {
        return Some(Op::SimdLane { kind, lane });
    }
    let (kind, m, lane) = MemOp::from_operator(op)?;
    Some(match kind {
        MemOp::Load => Op::V128Load(memarg(&m)),
        MemOp::Store => Op::V128Store(memarg(&m)),
        _ => Op::SimdMem {
            kind,
            lane,
            m: memarg(&m),
        },
    })
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
