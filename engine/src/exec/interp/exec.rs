//! The interpreter loop: frames, calls, returns and the other ops that need
//! the store. Straight-line ops run in `hot/`; probes fire in `probes.rs`,
//! memory, table and bulk ops run in `cold_ops.rs`.
//!
//! Values live in one untyped `u64` stack per invocation: a frame's locals
//! (params first) start at `fp`, its operands follow. Wasm-to-Wasm calls do not
//! recurse on the host stack: activations are kept in an explicit frame list, so
//! deep recursion ends in a `call stack exhausted` trap, never a host overflow.

use std::rc::Rc;

use super::code::*;
use super::hot::{self, Exit, Regs, Slot};
use crate::core::error::{Trap, TrapKind, TrapSite};
use crate::core::types::{slot_count, FuncAddr, InstanceId, ValType, Value};
use crate::exec::tiering::OsrEntry;
use crate::runtime::store::{Caller, FuncKind, HostFn, Store};
use crate::runtime::value_stack::ValueStack;

/// Host stack kept free above the JIT's stack limit when a nested run
/// starts: what one run can use before it reaches the next check (the
/// interpreter loop, a host call's frames, the entry into compiled code).
const NATIVE_RESERVE: usize = 128 << 10;

/// Nesting limit where the host stack's bounds are unknown (no JIT).
const MAX_REENTRY: usize = 256;

/// Whether a nested run may start here: every entry into Wasm from the host
/// (an embedder's call, a host function calling back, a probe, a call
/// between interpreted and compiled code) runs on the host stack, so the
/// limit is the host stack left, not a count of levels. The same budget
/// bounds compiled frames (the JIT's `stack_limit`, checked in each
/// prologue), so recursion that alternates between interpreted and
/// compiled functions goes as deep as compiled recursion does.
fn reentry_allowed(store: &Store) -> bool {
    let limit = crate::exec::jit::signals::stack_limit();
    if limit == 0 {
        return store.depth < MAX_REENTRY;
    }
    let here = 0u8;
    let sp = std::ptr::addr_of!(here) as usize;
    sp >= limit.saturating_add(NATIVE_RESERVE)
}

/// A function's translated code, borrowed from its module for the whole
/// execution without reference counting (a call and its return used to pay
/// two atomic operations on the `Arc`).
///
/// Invariant: the pointer comes from an `Rc<Compiled>` in some
/// `Module::code`, which is never changed after loading; the module is kept
/// alive by its instance, and no instance is dropped while its store runs
/// code. So the pointee outlives every `CodeRef` made during an execution.
#[derive(Clone, Copy)]
pub(super) struct CodeRef(pub(super) *const Compiled);

impl CodeRef {
    fn of(code: &Rc<Compiled>) -> CodeRef {
        CodeRef(Rc::as_ptr(code))
    }

    /// An owning handle (for frame views that outlive this borrow's scope).
    pub(super) fn to_rc(self) -> Rc<Compiled> {
        // SAFETY: the pointer came from `Arc::as_ptr` of a live `Arc` (invariant
        // above), so adding a strong count and rebuilding an `Arc` is sound.
        unsafe {
            Rc::increment_strong_count(self.0);
            Rc::from_raw(self.0)
        }
    }
}

impl std::ops::Deref for CodeRef {
    type Target = Compiled;
    fn deref(&self) -> &Compiled {
        // SAFETY: the pointee outlives every `CodeRef` (invariant above).
        unsafe { &*self.0 }
    }
}

/// A suspended caller. `Copy`: `hot` pushes and pops frames in the
/// `Vec`'s buffer directly (`Regs::frames`).
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) code: CodeRef,
    /// Index of the op to resume at.
    pub(super) ip: usize,
    pub(super) fp: Slot,
    pub(super) inst: usize,
    /// Activation serial (frame accessor identity).
    pub(super) serial: u32,
}

pub(crate) fn invoke(store: &mut Store, f: FuncAddr, args: &[Value]) -> Result<Vec<Value>, Trap> {
    if !reentry_allowed(store) {
        return Err(Trap::new(TrapKind::CallStackExhausted));
    }
    let fi = &store.funcs[f.0 as usize];
    // (Copied out of the store, which the call borrows; without allocating.)
    let results_ty: smallvec::SmallVec<[ValType; 4]> = fi.ty.results.iter().copied().collect();
    if let FuncKind::Host(h) = &fi.kind {
        let h = h.clone();
        let mut res: Vec<Value> = results_ty.iter().map(|t| Value::default_of(*t)).collect();
        store.call_host(None, |c| h(c, args, &mut res))?;
        return Ok(res);
    }
    let res = on_stack(
        store,
        f,
        |stack| Value::write_all_slots(args, stack),
        |stack| Value::from_slots(&results_ty, stack),
    )?;
    Ok(res.into_iter().map(|v| store.seal(v)).collect())
}

/// Slots a call between tiers passes on the native stack (more go through
/// `Value`s).
const CALL_SLOTS: usize = 16;

/// Call Wasm function `f` (interpreted) with its parameter slots in `slots`;
/// its result slots replace them. For a type without references
/// ([`crate::core::types::FuncType::is_numeric`]): slots pass as they are.
pub(crate) fn invoke_slots(store: &mut Store, f: FuncAddr, slots: &mut [u64]) -> Result<(), Trap> {
    if !reentry_allowed(store) {
        return Err(Trap::new(TrapKind::CallStackExhausted));
    }
    let ty = &store.funcs[f.0 as usize].ty;
    let (np, nr) = (slot_count(&ty.params), slot_count(&ty.results));
    if matches!(store.funcs[f.0 as usize].kind, FuncKind::Host(_)) || np.max(nr) > CALL_SLOTS {
        let ty = ty.clone();
        let r = invoke(store, f, &Value::from_slots(&ty.params, slots))?;
        Value::write_all_slots(&r, slots);
        return Ok(());
    }
    let mut args = [0u64; CALL_SLOTS];
    args[..np].copy_from_slice(&slots[..np]);
    on_stack(
        store,
        f,
        |stack| stack[..np].copy_from_slice(&args[..np]),
        |stack| slots[..nr].copy_from_slice(&stack[..nr]),
    )
}

/// Call Wasm function `f` (interpreted) from a probe site: `args` are its
/// parameter slots, its results are dropped. As [`invoke`] without the
/// conversions to and from `Value`s.
pub(super) fn invoke_probe(store: &mut Store, f: FuncAddr, args: &[u64]) -> Result<(), Trap> {
    if !reentry_allowed(store) {
        return Err(Trap::new(TrapKind::CallStackExhausted));
    }
    on_stack(
        store,
        f,
        |stack| stack[..args.len()].copy_from_slice(args),
        |_| (),
    )
}

/// Run Wasm function `f` on a pooled value stack: `init` writes its
/// arguments to the first slots, `done` reads its results from there.
fn on_stack<R>(
    store: &mut Store,
    f: FuncAddr,
    init: impl FnOnce(&mut [u64]),
    done: impl FnOnce(&[u64]) -> R,
) -> Result<R, Trap> {
    let mut stack = store
        .stacks
        .pop()
        .unwrap_or_else(|| ValueStack::new(store.config.value_stack_slots));
    init(&mut stack);
    store.depth += 1;
    let r = execute(store, &mut stack, f);
    store.depth -= 1;
    let out = r.map(|()| done(&stack));
    store.stacks.push(stack);
    out
}

#[cold]
#[inline(never)]
fn trap_at(store: &Store, code: &Compiled, op_index: usize, inst: usize, kind: TrapKind) -> Trap {
    let module = &store.instances[inst].module;
    // (A plain body's pcs are the original function's; so is its index here.)
    let func = match &module.origin {
        Some(o) if code.plain => o.func(code.func_idx),
        _ => code.func_idx,
    };
    let func_name = match module.func_names.get(&code.func_idx) {
        Some(n) => n.clone(),
        None => format!("func[{func}]"),
    };
    Trap {
        kind,
        site: Some(TrapSite {
            func,
            func_name,
            pc: code.pcs.get(op_index).copied().unwrap_or(0),
        }),
    }
}

/// What a probe (`what`) that failed with `t` at op `op_index` ends the run
/// with: `t` itself if it is the program's exit, else a trap naming the probe.
#[cold]
#[inline(never)]
fn probe_trapped(
    store: &Store,
    code: &Compiled,
    op_index: usize,
    inst: usize,
    what: &str,
    t: Trap,
) -> Trap {
    if t.exit_code().is_some() {
        return t;
    }
    let at = trap_at(store, code, op_index, inst, TrapKind::Unreachable)
        .site
        .expect("site");
    Trap::host(format!(
        "{what} trapped: {t} (probe at {} (func {}) pc 0x{:x})",
        at.func_name, at.func, at.pc
    ))
}

#[inline(always)]
fn mem0_of(store: &Store, inst: usize) -> usize {
    store.instances[inst]
        .memories
        .first()
        .map_or(usize::MAX, |m| m.0 as usize)
}

/// Runs `entry` (a Wasm function) on `stack`, whose first slots hold its
/// arguments; its results are left there.
fn execute(store: &mut Store, stack: &mut [u64], entry: FuncAddr) -> Result<(), Trap> {
    let mut ex = Interp::enter(store, stack, entry)?;
    loop {
        // SAFETY: `ops` points to `code.ops` (refreshed whenever `code` changes;
        // `code` keeps the Arc alive) and ip is in bounds (invariant at `ops`).
        // Cells may be patched by dynamic probes, but only between op fetches.
        let mut op = unsafe { (*ex.ip).get() };
        ex.ip = ex.ip.wrapping_add(1);
        // Re-dispatch happens only for a dynamic probe site (its original op).
        loop {
            match ex.run_hot(&mut op).and_then(|o| ex.cold_op(o)) {
                Ok(Flow::Next) => break,
                Ok(Flow::Redo(original)) => op = original,
                Ok(Flow::Done) => return Ok(()),
                // An exception lands in a handler of this execution, or
                // leaves it (as any trap does).
                Err(t) => {
                    ex.unwind(t)?;
                    break;
                }
            }
        }
    }
}

/// What to do after an op `Interp::cold_op` ran.
pub(super) enum Flow {
    /// Fetch the next op.
    Next,
    /// Execute this op (a dynamic probe site's original op) without fetching.
    Redo(Op),
    /// The entry function returned.
    Done,
}

/// The state of one [`execute`]: the store, the frame stack, and the
/// registers of the running activation (which `hot::run` takes over in
/// [`Regs`] and hands back).
///
/// The value stack is only accessed through `base` (frame accessors get the
/// same pointer while a probe runs).
///
/// SAFETY invariant of `rd`/`wr`/`copy_slots`: every slot they are given is
/// below `fp + code.operand_base() + code.max_height <= base + slen`. Frame
/// entry ([`Interp::enter`], [`Interp::enter_callee`]) checks the inequality;
/// validation bounds local indices by `num_locals`, and operand heights (so
/// every `sp - k` an op reads or writes, including fused ops, which never
/// exceed the heights of the instructions they replace) by `max_height`, and
/// never lets an op pop below the frame's operand base.
pub(super) struct Interp<'s> {
    pub(super) store: &'s mut Store,
    /// Suspended callers (`hot` pushes and pops here too, see `Regs::frames`).
    pub(super) frames: Vec<Frame>,
    max_depth: usize,
    /// The running activation's instance.
    pub(super) inst: usize,
    pub(super) code: CodeRef,
    /// The current function's ops (`code.ops`), refreshed with `code`.
    /// Invariant: `ip` is always < `code.ops.len()` when an op is fetched: every
    /// body ends in `Return` and branch targets are patched to op indices.
    ops: *const std::cell::Cell<Op>,
    /// The next op to execute: a pointer into `code.ops` (wrapping arithmetic;
    /// dereferenced only at the fetch).
    ip: *const std::cell::Cell<Op>,
    /// The value stack: `slen` slots from `base`.
    pub(super) base: Slot,
    pub(super) slen: usize,
    pub(super) fp: Slot,
    pub(super) sp: Slot,
    /// Cache of memory 0 of the current instance: base pointer and length of
    /// its data (null/0 without a memory). Refreshed (`refresh_mem`) whenever
    /// the instance changes or anything may have resized the memory:
    /// memory.grow, host calls, probes.
    mem_base: *mut u8,
    mem_len: u64,
    /// The running activation's serial (frame accessor identity).
    pub(super) serial: u32,
    /// The code array of instance `mod_code_inst`'s module (for `Regs`),
    /// looked up again only when the running instance changes. Valid while
    /// the module is, as `CodeRef` (invariant there).
    mod_code: *const std::cell::OnceCell<Rc<Compiled>>,
    mod_code_inst: usize,
    /// Set when an exception came out of a tail call to a callee outside the
    /// interpreter made by the bottom activation: nothing of this execution
    /// is left to catch it (`unwind`).
    pub(super) ended: bool,
}

impl<'s> Interp<'s> {
    /// Sets up the activation of `entry` on `stack` (its arguments are in the
    /// first slots).
    fn enter(store: &'s mut Store, stack: &mut [u64], entry: FuncAddr) -> Result<Self, Trap> {
        let max_depth = store.config.max_call_depth;
        let (inst, entry_idx) = match &store.funcs[entry.0 as usize].kind {
            FuncKind::Wasm { instance, func_idx } => (instance.0 as usize, *func_idx),
            FuncKind::Host(_) => unreachable!("host entry handled by invoke"),
        };
        let code: CodeRef = CodeRef::of(super::plain::code_for_call(store, inst, entry_idx)?);
        let operand_base = code.operand_base();
        if operand_base + code.max_height as usize > stack.len() {
            return Err(Trap::new(TrapKind::CallStackExhausted));
        }
        stack[code.num_params as usize..operand_base].fill(0);
        // The value stack is only accessed through `base` from here on.
        let base = Slot(stack.as_mut_ptr());
        let ops = code.ops.as_ptr();
        store.last_serial = store.last_serial.wrapping_add(1);
        let serial = store.last_serial;
        let mut ex = Interp {
            store,
            frames: Vec::new(),
            max_depth,
            inst,
            code,
            ops,
            ip: ops,
            base,
            slen: stack.len(),
            fp: base,
            sp: base + operand_base,
            mem_base: std::ptr::null_mut(),
            mem_len: 0,
            serial,
            mod_code: std::ptr::null(),
            mod_code_inst: usize::MAX,
            ended: false,
        };
        ex.refresh_mem();
        Ok(ex)
    }

    /// Index of `ip` in `code.ops`; the op being executed is the one before.
    #[inline(always)]
    pub(super) fn ip_index(&self) -> usize {
        (self.ip as usize - self.ops as usize) / std::mem::size_of::<std::cell::Cell<Op>>()
    }

    #[inline(always)]
    pub(super) fn rd(&self, p: Slot) -> u64 {
        debug_assert!(p.0 >= self.base.0 && p - self.base < self.slen);
        // SAFETY: see the invariant at `Interp`.
        unsafe { *p.0 }
    }

    #[inline(always)]
    pub(super) fn wr(&mut self, p: Slot, v: u64) {
        debug_assert!(p.0 >= self.base.0 && p - self.base < self.slen);
        // SAFETY: see the invariant at `Interp`.
        unsafe { *p.0 = v }
    }

    #[inline(always)]
    fn copy_slots(&mut self, from: Slot, to: Slot, n: usize) {
        let (base, slen) = (self.base, self.slen);
        debug_assert!(
            from.0 >= base.0
                && to.0 >= base.0
                && (from - base) + n <= slen
                && (to - base) + n <= slen
        );
        // SAFETY: both ranges are within the frame (invariant at `Interp`); `copy` allows overlap.
        unsafe { std::ptr::copy(from.0, to.0, n) }
    }

    /// `n` slots from `from` (all within the stack).
    pub(super) fn slots(&self, from: Slot, n: usize) -> &[u64] {
        assert!(from.0 >= self.base.0 && (from - self.base) + n <= self.slen);
        // SAFETY: the range is within the stack (checked), which outlives `self`'s borrow.
        unsafe { std::slice::from_raw_parts(from.0, n) }
    }

    /// Pushes values, each in its slots.
    pub(super) fn push_values(&mut self, vals: &[Value]) {
        let mut s = [0u64; 2];
        for v in vals {
            v.write_slots(&mut s);
            for x in &s[..v.ty().slots()] {
                self.push(*x);
            }
        }
    }

    #[inline(always)]
    pub(super) fn pop(&mut self) -> u64 {
        self.sp -= 1;
        self.rd(self.sp)
    }

    #[inline(always)]
    pub(super) fn push(&mut self, v: u64) {
        self.wr(self.sp, v);
        self.sp += 1;
    }

    /// Reloads the memory 0 cache (see `mem_base`).
    #[inline]
    pub(super) fn refresh_mem(&mut self) {
        let mem0 = mem0_of(self.store, self.inst);
        match self.store.memories.get_mut(mem0) {
            Some(m) => {
                self.mem_base = m.data.as_mut_ptr();
                self.mem_len = m.data.len() as u64;
            }
            None => {
                self.mem_base = std::ptr::null_mut();
                self.mem_len = 0;
            }
        }
    }

    /// A trap of kind `kind` at the op being executed.
    #[cold]
    #[inline(never)]
    pub(super) fn trap(&self, kind: TrapKind) -> Trap {
        trap_at(self.store, &self.code, self.ip_index() - 1, self.inst, kind)
    }

    /// What a probe (`what`) at the op being executed that failed with `t`
    /// ends the run with (see [`probe_trapped`]).
    #[cold]
    #[inline(never)]
    pub(super) fn probe_trapped(&self, what: &str, t: Trap) -> Trap {
        probe_trapped(
            self.store,
            &self.code,
            self.ip_index() - 1,
            self.inst,
            what,
            t,
        )
    }

    /// Runs ops from `*op` (already fetched) in `hot::run` until one needs
    /// the store, and returns that op.
    #[inline]
    fn run_hot(&mut self, op: &mut Op) -> Result<Op, Trap> {
        let store = &mut *self.store;
        // (Dyn, a module that is not woven: calls are counted in place.)
        let call_counts = match store.instances[self.inst].module.origin {
            None => crate::exec::tiering::hot_call_counts(store),
            Some(_) => std::ptr::null_mut(),
        };
        let inst = &store.instances[self.inst];
        let mut regs = Regs {
            ip: self.ip,
            ops: self.ops,
            sp: self.sp,
            fp: self.fp,
            base: self.base,
            slen: self.slen,
            mem_base: self.mem_base,
            mem_len: self.mem_len,
            br_tables: self.code.br_tables.as_ptr(),
            globals: store.globals.as_mut_ptr(),
            inst_globals: inst.globals.as_ptr(),
            memories: store.memories.as_mut_ptr(),
            inst_mems: inst.memories.as_ptr(),
            next: std::ptr::null(),
            trap: 0,
            tos: 0,
            dyn_threshold: store.config.dyn_threshold,
            code: self.code.0,
            frames: self.frames.as_mut_ptr(),
            nframes: self.frames.len(),
            max_frames: self.frames.capacity().min(self.max_depth),
            serial: self.serial,
            last_serial: store.last_serial,
            inst: self.inst,
            hot_calls: store.config.tier == crate::runtime::store::Tier::Int,
            call_counts,
            inst_funcs: inst.funcs.as_ptr(),
            mod_code: {
                if self.mod_code_inst != self.inst {
                    self.mod_code = super::load::module_code(&inst.module).slots();
                    self.mod_code_inst = self.inst;
                }
                self.mod_code
            },
            tables: store.tables.as_ptr(),
            inst_tables: inst.tables.as_ptr(),
            funcs: store.funcs.as_ptr(),
            type_ids: inst.type_ids.as_ptr(),
            num_imported: inst.module.num_imported_funcs,
        };
        // SAFETY: `regs` satisfies the invariants at `Regs`: ip/ops/br_tables are
        // `code`'s, the value stack bounds are `execute`'s (invariant at `Interp`), the
        // memory cache is current, and the store is untouched until `run` returns.
        let exit = unsafe { hot::run(&mut regs, std::ptr::addr_of_mut!(*op).cast_const()) };
        self.ip = regs.ip;
        self.sp = regs.sp;
        // Calls and returns within the instance may have run in `hot`.
        self.fp = regs.fp;
        self.code = CodeRef(regs.code);
        self.ops = regs.ops;
        self.serial = regs.serial;
        self.store.last_serial = regs.last_serial;
        // SAFETY: `hot` wrote frames `..nframes` in the buffer (within its
        // capacity, `max_frames`); `Frame` is `Copy`.
        unsafe { self.frames.set_len(regs.nframes) };
        match exit {
            // SAFETY: `p` is `op` or points into `code.ops` or `code.mem64` (the
            // access of an `Op::Mem64`), see `Exit::Cold`.
            Exit::Cold(p) => Ok(unsafe { *p }),
            Exit::Trap(kind) => Err(self.trap(kind)),
        }
    }

    /// Executes an op `hot::run` handed back.
    #[inline]
    fn cold_op(&mut self, op: Op) -> Result<Flow, Trap> {
        match op {
            Op::Return => Ok(self.do_return()),
            Op::Call(f) => {
                let faddr = self.store.instances[self.inst].funcs[f as usize].0 as usize;
                self.call(faddr, false)
            }
            Op::ReturnCall(f) => {
                let faddr = self.store.instances[self.inst].funcs[f as usize].0 as usize;
                self.call(faddr, true)
            }
            Op::CallIndirect { ty, table } => self.call_indirect(ty, table, false),
            Op::ReturnCallIndirect { ty, table } => self.call_indirect(ty, table, true),
            Op::CallRef => self.call_ref(false),
            Op::ReturnCallRef => self.call_ref(true),
            Op::Atomic { op, m } => self.atomic(op, m).map(|()| Flow::Next),
            Op::LoopHead(n) => self.loop_head(n),
            Op::DynProbe(k) => self.dyn_probe(k).map(Flow::Redo),
            Op::Probe(k) => self.fire_probes(k).map(|()| Flow::Next),
            Op::StructNew(_)
            | Op::StructNewDefault(_)
            | Op::StructGet { .. }
            | Op::StructSet { .. }
            | Op::ArrayNew(_)
            | Op::ArrayNewDefault(_)
            | Op::ArrayNewFixed { .. }
            | Op::ArrayNewData { .. }
            | Op::ArrayNewElem { .. }
            | Op::ArrayGet { .. }
            | Op::ArraySet(_)
            | Op::ArrayLen
            | Op::ArrayFill(_)
            | Op::ArrayCopy { .. }
            | Op::ArrayInitData { .. }
            | Op::ArrayInitElem { .. }
            | Op::RefI31
            | Op::I31GetS
            | Op::I31GetU
            | Op::RefEq
            | Op::RefTest(_)
            | Op::RefCast(_)
            | Op::CastTest(_) => self.gc_op(op).map(|()| Flow::Next),
            Op::Throw(_) | Op::ThrowRef | Op::Rethrow(_) => Err(self.throw(op)),
            _ => self.store_op(op).map(|()| Flow::Next),
        }
    }

    /// Continues at op `target` of the running activation.
    pub(super) fn jump_to(&mut self, target: u32) {
        self.ip = self.ops.wrapping_add(target as usize);
    }

    /// Makes suspended frame `fr` the running activation again (its callee
    /// is abandoned: no results move).
    #[inline]
    pub(super) fn resume(&mut self, fr: Frame) {
        self.code = fr.code;
        self.ops = self.code.ops.as_ptr();
        self.ip = self.ops.wrapping_add(fr.ip);
        self.fp = fr.fp;
        self.serial = fr.serial;
        if fr.inst != self.inst {
            self.inst = fr.inst;
            self.refresh_mem();
        }
    }

    /// Returns from the running activation: its results move to `fp`, and
    /// the caller's frame (if any) resumes.
    #[inline]
    fn do_return(&mut self) -> Flow {
        let n = self.code.num_results as usize;
        if self.fp != self.sp - n {
            self.copy_slots(self.sp - n, self.fp, n);
        }
        self.sp = self.fp + n;
        match self.frames.pop() {
            None => Flow::Done,
            Some(fr) => {
                self.resume(fr);
                Flow::Next
            }
        }
    }

    /// Calls the function at store address `faddr`; `tail` for return_call.
    #[inline]
    fn call(&mut self, faddr: usize, tail: bool) -> Result<Flow, Trap> {
        // Wasm functions run here unless they have compiled code (mixed tiers);
        // host functions and compiled code are called through the store.
        let jit_callee = self.store.config.tier != crate::runtime::store::Tier::Int
            && matches!(self.store.funcs[faddr].kind, FuncKind::Wasm { .. })
            && crate::exec::tiering::use_compiled(self.store, FuncAddr(faddr as u32));
        if let FuncKind::Wasm { instance, func_idx } = self.store.funcs[faddr].kind {
            if !jit_callee {
                let ci = instance.0 as usize;
                let callee = CodeRef::of(super::plain::code_for_call(self.store, ci, func_idx)?);
                self.enter_callee(ci, callee, tail)?;
                return Ok(Flow::Next);
            }
        }
        let store = &*self.store;
        match &store.funcs[faddr].kind {
            FuncKind::Wasm { .. } => self.call_outside(faddr, None, tail),
            FuncKind::Host(_) if store.funcs[faddr].raw.is_some() => self.call_raw(faddr, tail),
            FuncKind::Host(h) => {
                let h = h.clone();
                self.call_outside(faddr, Some(h), tail)
            }
        }
    }

    /// Calls a host function on raw slots ([`crate::runtime::store::RawHostFn`]):
    /// its arguments are popped into a buffer on the native stack, its
    /// results pushed from there.
    #[inline(never)]
    fn call_raw(&mut self, faddr: usize, tail: bool) -> Result<Flow, Trap> {
        let fi = &self.store.funcs[faddr];
        let raw = fi
            .raw
            .clone()
            .expect("call_raw of a function with a raw form");
        let (np, nr) = (fi.ty.params.len(), fi.ty.results.len());
        let mut buf = [0u64; 8];
        buf[..np].copy_from_slice(self.slots(self.sp - np, np));
        self.sp -= np;
        let published = self.publish_for_gc_call(tail);
        let inst = Some(InstanceId(self.inst as u32));
        let r = self
            .store
            .call_host(inst, |c| raw(c, &mut buf[..np.max(nr)]));
        self.unpublish_for_gc(published);
        if let Err(e) = r {
            let e = self.at_call_site(e);
            return Err(if tail { self.after_tail_call(e) } else { e });
        }
        crate::runtime::store::zero_extend_results(&self.store.funcs[faddr].ty.results, &mut buf);
        for x in &buf[..nr] {
            self.push(*x);
        }
        self.refresh_mem();
        Ok(if tail { self.do_return() } else { Flow::Next })
    }

    /// Pushes a frame for `callee` (of instance `ci`), whose arguments are
    /// the top operands (for a tail call, replaces the running frame).
    #[inline]
    fn enter_callee(&mut self, ci: usize, callee: CodeRef, tail: bool) -> Result<(), Trap> {
        let np = callee.num_params as usize;
        let new_fp = if tail {
            if self.fp != self.sp - np {
                self.copy_slots(self.sp - np, self.fp, np);
            }
            self.fp
        } else {
            if self.frames.len() >= self.max_depth {
                return Err(self.trap(TrapKind::CallStackExhausted));
            }
            self.sp - np
        };
        let new_sp = new_fp + callee.operand_base();
        if (new_sp - self.base) + callee.max_height as usize > self.slen {
            return Err(self.trap(TrapKind::CallStackExhausted));
        }
        // SAFETY: new_sp + max_height is within the stack (checked just above).
        unsafe { std::ptr::write_bytes((new_fp + np).0, 0, new_sp - (new_fp + np)) };
        let ret_ip = self.ip_index();
        let old = std::mem::replace(&mut self.code, callee);
        self.ops = self.code.ops.as_ptr();
        if !tail {
            self.frames.push(Frame {
                code: old,
                ip: ret_ip,
                fp: self.fp,
                inst: self.inst,
                serial: self.serial,
            });
        }
        self.store.last_serial = self.store.last_serial.wrapping_add(1);
        self.serial = self.store.last_serial;
        self.fp = new_fp;
        self.sp = new_sp;
        self.ip = self.ops;
        if ci != self.inst {
            self.inst = ci;
            self.refresh_mem();
        }
        Ok(())
    }

    /// Calls a host function (`host`), or a Wasm function with compiled
    /// code (`None`), at store address `faddr` through the store: its
    /// arguments are popped, its results pushed.
    #[inline(never)]
    fn call_outside(
        &mut self,
        faddr: usize,
        host: Option<HostFn>,
        tail: bool,
    ) -> Result<Flow, Trap> {
        if host.is_none() {
            let caller = self.store.instances[self.inst].funcs[self.code.func_idx as usize];
            crate::exec::tiering::count_crossing(self.store, caller);
            if let Some(flow) = self.call_compiled_numeric(faddr, tail)? {
                return Ok(flow);
            }
        }
        let ty = &self.store.funcs[faddr].ty;
        let np = slot_count(&ty.params);
        let args: Vec<Value> = Value::iter_slots(&ty.params, self.slots(self.sp - np, np))
            .map(|v| self.store.seal(v))
            .collect();
        let mut res: Vec<Value> = ty.results.iter().map(|t| Value::default_of(*t)).collect();
        self.sp -= np;
        let published = self.publish_for_gc_call(tail);
        if host.is_some() {
            self.store.count_host_call();
        }
        self.store.depth += 1;
        let r = match host {
            Some(h) => h(
                &mut Caller {
                    store: &mut *self.store,
                    instance: Some(InstanceId(self.inst as u32)),
                },
                &args,
                &mut res,
            ),
            None => {
                crate::exec::jit::invoke(self.store, FuncAddr(faddr as u32), &args).map(|r| res = r)
            }
        };
        self.store.depth -= 1;
        self.unpublish_for_gc(published);
        if let Err(e) = r {
            let e = self.at_call_site(e);
            return Err(if tail { self.after_tail_call(e) } else { e });
        }
        self.push_values(&res);
        self.refresh_mem();
        Ok(if tail { self.do_return() } else { Flow::Next })
    }

    /// A trap from a call outside the interpreter, named after this call
    /// site unless it names its own (or is an exit).
    fn at_call_site(&self, mut e: Trap) -> Trap {
        if e.site.is_none() && e.exit_code().is_none() {
            e.site = self.trap(TrapKind::Unreachable).site;
        }
        e
    }

    /// `call_outside` of compiled code whose type has no references: the
    /// slots pass as they are, through a buffer on the native stack.
    /// `None` if the type does not allow it (the caller converts).
    fn call_compiled_numeric(&mut self, faddr: usize, tail: bool) -> Result<Option<Flow>, Trap> {
        let ty = &self.store.funcs[faddr].ty;
        let (np, nr) = (slot_count(&ty.params), slot_count(&ty.results));
        if !ty.is_numeric() || np.max(nr) > CALL_SLOTS {
            return Ok(None);
        }
        let mut buf = [0u64; CALL_SLOTS];
        buf[..np].copy_from_slice(self.slots(self.sp - np, np));
        self.sp -= np;
        let published = self.publish_for_gc_call(tail);
        self.store.depth += 1;
        let n = np.max(nr).max(1);
        let r = crate::exec::jit::invoke_slots(self.store, FuncAddr(faddr as u32), &mut buf[..n]);
        self.store.depth -= 1;
        self.unpublish_for_gc(published);
        if let Err(e) = r {
            let e = self.at_call_site(e);
            return Err(if tail { self.after_tail_call(e) } else { e });
        }
        for x in &buf[..nr] {
            self.push(*x);
        }
        self.refresh_mem();
        Ok(Some(if tail { self.do_return() } else { Flow::Next }))
    }

    /// `call_indirect` (`tail`: `return_call_indirect`) through table
    /// `table` with type `ty`; the element index is the top operand.
    fn call_indirect(&mut self, ty: u32, table: u32, tail: bool) -> Result<Flow, Trap> {
        let i = self.pop() as u32 as usize;
        let inst = &self.store.instances[self.inst];
        let ta = inst.tables[table as usize].0 as usize;
        let elems = &self.store.tables[ta].elems;
        if i >= elems.len() {
            return Err(self.trap(TrapKind::UndefinedElement));
        }
        let r = elems[i];
        if r == 0 {
            return Err(self.trap(TrapKind::UninitializedElement));
        }
        let faddr = (r - 1) as usize;
        let (have, want) = (self.store.funcs[faddr].type_id, inst.type_ids[ty as usize]);
        if have != want && !self.store.types.is_subtype(have, want) {
            return Err(self.trap(TrapKind::IndirectCallTypeMismatch));
        }
        self.call(faddr, tail)
    }

    /// `call_ref` (`tail`: `return_call_ref`): the callee is the top operand.
    fn call_ref(&mut self, tail: bool) -> Result<Flow, Trap> {
        let r = self.pop();
        if r == 0 {
            return Err(self.trap(TrapKind::NullFunctionReference));
        }
        self.call((r - 1) as usize, tail)
    }

    /// A dyn-tier loop header reached the threshold count: count the
    /// iteration and, if the loop is hot, continue the activation in compiled
    /// code (OSR).
    #[inline(never)]
    fn loop_head(&mut self, n: u32) -> Result<Flow, Trap> {
        let n = n.wrapping_add(1);
        // SAFETY: ip - 1 is the op being executed (in bounds).
        unsafe { (*self.ip.wrapping_sub(1)).set(Op::LoopHead(n)) };
        if crate::exec::tiering::loop_is_hot(self.store, n) {
            let code = self.code;
            let nl = code.num_locals as usize;
            assert!((self.fp - self.base) + nl <= self.slen);
            // SAFETY: the frame's locals are fp..fp+num_locals, in the stack
            // (checked), which `osr_enter` does not otherwise reach.
            let locals = unsafe { std::slice::from_raw_parts(self.fp.0, nl) };
            let at = self.ip_index() - 1;
            let pc = if code.plain {
                let m = self.store.instances[self.inst].module.clone();
                super::plain::osr_pc(&m, &code, at)
            } else {
                code.pcs.get(at).copied()
            };
            let Some(pc) = pc else {
                // No entry into this loop's compiled code: stop counting.
                // SAFETY: as above.
                unsafe { (*self.ip.wrapping_sub(1)).set(Op::Nop) };
                return Ok(Flow::Next);
            };
            let published = self.publish_for_gc();
            let r = crate::exec::jit::osr_enter(self.store, self.inst, &code, pc, locals);
            self.unpublish_for_gc(published);
            match r? {
                OsrEntry::Finished(res) => {
                    // The activation finished in compiled code.
                    self.sp = self.fp + code.operand_base();
                    self.push_values(&res);
                    self.refresh_mem();
                    return Ok(self.do_return());
                }
                OsrEntry::Later => {
                    // Being compiled: this header asks again a little later.
                    let again = crate::exec::tiering::loop_recheck(self.store);
                    // SAFETY: as above.
                    unsafe { (*self.ip.wrapping_sub(1)).set(Op::LoopHead(again)) };
                }
                OsrEntry::Deferred => {
                    // Not worth compiling yet: ask again a threshold later.
                    let again = crate::exec::tiering::loop_defer(self.store);
                    // SAFETY: as above.
                    unsafe { (*self.ip.wrapping_sub(1)).set(Op::LoopHead(again)) };
                }
                OsrEntry::Never => {}
            }
        }
        Ok(Flow::Next)
    }
}
