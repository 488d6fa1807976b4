//! Per-site emission: the code woven at one site of a function (its top
//! operands saved in scratch locals, then each probe's arguments and a call
//! or the inlined probe function, see [`super::inlined`]), into a [`Body`].

use rustc_hash::FxHashMap as HashMap;

use wasm_encoder::{Encode, Instruction};

use super::collect::Added;
use super::plan::SiteStack;
use super::{enc_val, err, InlinedFrom};
use crate::core::error::LoadError;
use crate::core::probe::{ArgSource, ProbeCall};
use crate::core::types::{FuncAddr, ValType};
use crate::monitor::blockcount::Inc;
use crate::monitor::inline::FrameUses;

/// Emits one function's body.
pub(super) struct Body<'p> {
    pub(super) code: Vec<u8>,
    /// Declared locals (original first, then scratch).
    pub(super) locals: Vec<ValType>,
    pub(super) num_params: u32,
    /// Scratch locals by (type, depth, declared type if a typed reference).
    pub(super) scratch: HashMap<(ValType, u32, Option<wasmparser::ValType>), u32>,
    /// Added locals (by position in `locals`) that hold a typed reference,
    /// with its declared type.
    pub(super) typed: HashMap<usize, wasmparser::ValType>,
    pub(super) pcs: Vec<(u32, u32)>,
    pub(super) probe_calls: Vec<(u32, std::sync::Arc<str>)>,
    pub(super) added: &'p Added,
    pub(super) header_len: u32,
    pub(super) mons: &'p super::monitors::MonView,
    pub(super) cfg: &'p crate::monitor::inline::InlineConfig,
    /// App locals used for each (inlined function, depth)'s locals.
    pub(super) inline_locals: HashMap<(FuncAddr, u32), Vec<u32>>,
    /// (woven pc, where the inlined instruction came from).
    pub(super) inlined: Vec<(u32, InlinedFrom)>,
    /// The original pc of the site being woven.
    pub(super) site_pc: u32,
    /// The original index of the function being woven.
    pub(super) site_fid: u32,
    /// Params and locals of the function being woven (before any added).
    pub(super) num_locals: u32,
    /// The operand height at the site being woven (`SiteStack::height`).
    pub(super) site_height: u32,
    /// The scratch locals the site's top operands are saved in while its
    /// probes run (top first).
    pub(super) saved: Vec<u32>,
    /// How the probe function being inlined (depth 0) uses its frame handle.
    pub(super) frame_uses: Option<&'p FrameUses>,
    /// Which probe functions only test an operand against zero (shared by
    /// the module's functions).
    pub(super) zero_tested: &'p mut crate::monitor::inline::ZeroTested,
    /// Inlined calls as first emitted in this function, replayed at later
    /// sites ([`super::inlined::Memo`]).
    pub(super) inline_memo: super::inlined::Memo,
}

impl<'p> Body<'p> {
    pub(super) fn ins(&mut self, i: &Instruction<'_>) {
        i.encode(&mut self.code);
    }

    /// A scratch local for the operand `k` from the top, of type `t`
    /// (`declared`: as validation has it).
    fn scratch(&mut self, t: ValType, k: u32, declared: Option<wasmparser::ValType>) -> u32 {
        // Only a typed function reference needs more than `t`.
        let typed = declared.filter(|d| {
            matches!(d, wasmparser::ValType::Ref(r) if !r.is_nullable() || r.is_concrete_type_ref())
        });
        if let Some(l) = self.scratch.get(&(t, k, typed)) {
            return *l;
        }
        self.locals.push(t);
        if let Some(d) = typed {
            self.typed.insert(self.locals.len() - 1, d);
        }
        let l = self.num_params + self.locals.len() as u32 - 1;
        self.scratch.insert((t, k, typed), l);
        l
    }

    pub(super) fn block_type(&self, results: &[ValType]) -> wasm_encoder::BlockType {
        match results.len() {
            0 => wasm_encoder::BlockType::Empty,
            1 => wasm_encoder::BlockType::Result(enc_val(results[0])),
            _ => wasm_encoder::BlockType::FunctionType(self.added.result_types[results]),
        }
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
    pub(super) fn probes(
        &mut self,
        calls: &[ProbeCall],
        stack: Option<&SiteStack>,
    ) -> Result<(), LoadError> {
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
        // A first call that tallies the one operand saved tests it as it is
        // saved (`local.tee`), not read back.
        let first = (depth == 1)
            .then(|| self.branch_tally(&calls[0]))
            .flatten()
            .filter(|t| t.0 == 0);
        if depth > 0 {
            let stack = stack.ok_or_else(|| err("operand types unknown at a probe site"))?;
            for k in 0..depth {
                let t = *stack
                    .types
                    .get(k as usize)
                    .ok_or_else(|| err("operand below the frame's stack"))?;
                let declared = stack.declared.get(k as usize).copied();
                let l = self.scratch(t, k, declared);
                self.saved.push(l);
                self.ins(&match first {
                    Some(_) => Instruction::LocalTee(l),
                    None => Instruction::LocalSet(l),
                });
            }
        }
        if let Some((_, nz, z)) = first {
            self.tally(None, &nz, &z);
        }
        for c in &calls[first.is_some() as usize..] {
            if let Some((n, nz, z)) = self.branch_tally(c) {
                self.tally(Some(self.saved[n as usize]), &nz, &z);
                continue;
            }
            match self.zero_tested_operand(c) {
                // The probe only tests this operand against zero: inline it
                // twice, with 1 and with 0, under a test of the operand; each
                // copy folds to constants (e.g. a fixed counter address).
                Some((i, n)) => {
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
        for (k, (a, t)) in c.args.iter().zip(c.types().iter()).enumerate() {
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
                ArgSource::OpaqueOperand(_) | ArgSource::OpaqueLocal(_) => {
                    return Err(err(
                        "a probe that takes an opaque app reference needs the interpreter",
                    ))
                }
            }
        }
        if self.added.inline.contains(&c.func) {
            self.frame_uses = self.frame_uses_of(c);
            let r = self.inline(c.func, 0, c.origin(), true);
            self.frame_uses = None;
            r?;
        } else {
            let idx = self.added.func_idx[&c.func];
            self.probe_calls
                .push((self.code.len() as u32, c.origin().clone()));
            self.ins(&Instruction::Call(idx));
            let nres = self.mons.func_type(c.func).results.len();
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
        let mons = self.mons;
        let code = |f| mons.code(f).map(|(i, func_idx)| (&*i.module, func_idx));
        let (i, n, data) = self.zero_tested.of_code(code, c)?;
        data.then_some((i, n))
    }

    /// For an inlined probe call without frame intrinsics that is a branch
    /// tally on an operand ([`crate::monitor::blockcount::TwoSided`]): the
    /// operand and the increments when it is not zero and when it is.
    fn branch_tally(&mut self, c: &ProbeCall) -> Option<(u32, Inc, Inc)> {
        if !self.cfg.specialize || self.added.two_sided.is_empty() {
            return None;
        }
        if !self.added.inline.contains(&c.func) || self.frame_uses_of(c).is_some() {
            return None;
        }
        let mons = self.mons;
        let code = |f| mons.code(f).map(|(i, func_idx)| (&*i.module, func_idx));
        let (p, n, _) = self.zero_tested.of_code(code, c)?;
        let t = self.added.two_sided.get(&(c.func, p as u32))?;
        let (nz, z) = t.at(&c.args)?;
        let mems = &self.added.mem_idx;
        (mems.contains_key(&nz.mem) && mems.contains_key(&z.mem)).then_some((n, nz, z))
    }

    /// A branch tally: the counter the operand in local `tested` (or on
    /// the stack: `None`) selects (`nz` if it is not zero, else `z`) is
    /// incremented, each side with its counter's address as a constant
    /// (what inlining the probe function and folding its constants would
    /// leave, without its locals, its block and its test of the argument).
    /// The branch stays: both increments scaled by the outcome, or one at
    /// an address chosen by `select`, ran slower on floyd-warshall (155 and
    /// 138 against 122 ms).
    fn tally(&mut self, tested: Option<u32>, nz: &Inc, z: &Inc) {
        use Instruction as I;
        if let Some(l) = tested {
            self.ins(&I::LocalGet(l));
        }
        self.ins(&I::If(wasm_encoder::BlockType::Empty));
        self.counter_add(nz);
        self.ins(&I::Else);
        self.counter_add(z);
        self.ins(&I::End);
    }

    /// Add `i`'s delta to its counter (an add, `TwoSided`'s; in bounds: it
    /// cannot trap).
    fn counter_add(&mut self, i: &Inc) {
        use Instruction as I;
        let ma = wasm_encoder::MemArg {
            offset: 0,
            align: i.width.trailing_zeros(),
            memory_index: self.added.mem_idx[&i.mem],
        };
        self.ins(&I::I32Const(i.ea as i32));
        self.ins(&I::I32Const(i.ea as i32));
        let wide = i.width == 8;
        self.ins(&match i.width {
            8 => I::I64Load(ma),
            4 => I::I32Load(ma),
            2 => I::I32Load16U(ma),
            _ => I::I32Load8U(ma),
        });
        if wide {
            self.ins(&I::I64Const(i.delta as i64));
            self.ins(&I::I64Add);
        } else {
            self.ins(&I::I32Const(i.delta as u32 as i32));
            self.ins(&I::I32Add);
        }
        if (i.width, i.zext) == (4, true) {
            self.ins(&I::I64ExtendI32U);
        }
        self.ins(&match (i.width, i.zext) {
            (8, _) | (4, true) => I::I64Store(ma),
            (4, false) => I::I32Store(ma),
            (2, _) => I::I32Store16(ma),
            _ => I::I32Store8(ma),
        });
    }
}
