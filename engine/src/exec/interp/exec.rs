//! The interpreter loop: frames, calls, returns, probes and the other ops
//! that need the store. Straight-line ops run in `hot.rs`.
//!
//! Values live in one untyped `u64` stack per invocation: a frame's locals
//! (params first) start at `fp`, its operands follow. Wasm-to-Wasm calls do not
//! recurse on the host stack: activations are kept in an explicit frame list, so
//! deep recursion ends in a `call stack exhausted` trap, never a host overflow.

use std::rc::Rc;

use super::code::*;
use super::hot::{self, Exit, Regs, Slot};
use crate::core::error::{Trap, TrapKind, TrapSite};
use super::frames::{FrameInfo, FrameView};
use crate::core::probe::ArgSource;
use crate::runtime::store::{Caller, FuncKind, Store};
use crate::core::types::{FuncAddr, Value};

/// Maximum nesting of host -> Wasm re-entry (each level uses host stack).
const MAX_REENTRY: usize = 256;

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
    fn to_rc(self) -> Rc<Compiled> {
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

/// A suspended caller. `Copy`: `hot.rs` pushes and pops frames in the
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
    if store.depth >= MAX_REENTRY {
        return Err(Trap::new(TrapKind::CallStackExhausted));
    }
    let fi = &store.funcs[f.0 as usize];
    let results_ty = fi.ty.results.clone();
    if let FuncKind::Host(h) = &fi.kind {
        let h = h.clone();
        let mut res: Vec<Value> = results_ty.iter().map(|t| Value::default_of(*t)).collect();
        store.depth += 1;
        let r = h(
            &mut Caller {
                store,
                instance: None,
            },
            args,
            &mut res,
        );
        store.depth -= 1;
        r?;
        return Ok(res);
    }
    on_stack(
        store,
        f,
        |stack| {
            for (i, a) in args.iter().enumerate() {
                stack[i] = a.to_slot();
            }
        },
        |stack| {
            results_ty
                .iter()
                .enumerate()
                .map(|(i, t)| Value::from_slot(*t, stack[i]))
                .collect()
        },
    )
}

/// Call Wasm function `f` (interpreted) from a probe site: `args` are its
/// parameter slots, its results are dropped. As [`invoke`] without the
/// conversions to and from `Value`s.
fn invoke_probe(store: &mut Store, f: FuncAddr, args: &[u64]) -> Result<(), Trap> {
    if store.depth >= MAX_REENTRY {
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
        .unwrap_or_else(|| vec![0u64; store.config.value_stack_slots]);
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
    Trap {
        kind,
        site: Some(TrapSite {
            func: code.func_idx,
            func_name: module.func_name(code.func_idx),
            pc: code.pcs.get(op_index).copied().unwrap_or(0),
        }),
    }
}

/// What a probe (`what`) that failed with `t` at op `op_index` ends the run
/// with: `t` itself if it is the program's exit, else a trap naming the probe.
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

fn execute(store: &mut Store, stack: &mut [u64], entry: FuncAddr) -> Result<(), Trap> {
    let max_depth = store.config.max_call_depth;
    let (mut inst, entry_idx) = match &store.funcs[entry.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => (instance.0 as usize, *func_idx),
        FuncKind::Host(_) => unreachable!("host entry handled by invoke"),
    };
    let mut code: CodeRef = {
        let m = &store.instances[inst].module;
        CodeRef::of(super::load::func_code(m, entry_idx))
    };
    let mut frames: Vec<Frame> = Vec::new();
    let operand_base = code.operand_base();
    if operand_base + code.max_height as usize > stack.len() {
        return Err(Trap::new(TrapKind::CallStackExhausted));
    }
    stack[code.num_params as usize..operand_base].fill(0);
    // The value stack is only accessed through `sb` from here on (frame
    // accessors get the same pointer while a probe runs).
    //
    // SAFETY invariant of `rd!`/`wr!`/`copy_slots!`: every slot index they are
    // given is < `fp + code.operand_base() + code.max_height <= slen`. Frame entry
    // (here and in `do_call!`) checks the inequality; validation bounds local
    // indices by `num_locals`, and operand heights (so every `sp - k` an op
    // reads or writes, including fused ops, which never exceed the heights of
    // the instructions they replace) by `max_height`, and never lets an op pop
    // below the frame's operand base.
    let sb: *mut u64 = stack.as_mut_ptr();
    let slen = stack.len();
    let base = Slot(sb);
    let mut fp: Slot = base;
    let mut sp: Slot = fp + operand_base;
    // The current function's ops (`code.ops`), refreshed with `code`.
    // Invariant: `ip` is always < `code.ops.len()` when an op is fetched: every
    // body ends in `Return` and branch targets are patched to op indices.
    let mut ops: *const std::cell::Cell<Op> = code.ops.as_ptr();
    // The next op to execute: a pointer into `code.ops` (wrapping arithmetic;
    // dereferenced only at the fetch).
    let mut ip: *const std::cell::Cell<Op> = ops;
    // Index of `ip` in `code.ops`.
    macro_rules! ip_index {
        () => {
            (ip as usize - ops as usize) / std::mem::size_of::<std::cell::Cell<Op>>()
        };
    }
    let mut mem0: usize;
    // Cache of memory 0 of the current instance: base pointer and length of
    // `store.memories[mem0].data` (null/0 without a memory). Refreshed
    // (`refresh_mem!`) whenever the instance changes or anything may have
    // resized the memory: memory.grow, host calls, probes.
    let mut mem_base: *mut u8;
    let mut mem_len: u64;
    macro_rules! refresh_mem {
        () => {{
            mem0 = mem0_of(store, inst);
            match store.memories.get_mut(mem0) {
                Some(m) => {
                    mem_base = m.data.as_mut_ptr();
                    mem_len = m.data.len() as u64;
                }
                None => {
                    mem_base = std::ptr::null_mut();
                    mem_len = 0;
                }
            }
        }};
    }
    refresh_mem!();
    store.last_serial = store.last_serial.wrapping_add(1);
    let mut serial = store.last_serial;
    macro_rules! rd {
        ($i:expr) => {{
            let p: Slot = $i;
            debug_assert!(p.0 >= sb && p - base < slen);
            // SAFETY: see the invariant at `sb`.
            unsafe { *p.0 }
        }};
    }
    macro_rules! wr {
        ($i:expr, $v:expr) => {{
            let v: u64 = $v;
            let p: Slot = $i;
            debug_assert!(p.0 >= sb && p - base < slen);
            // SAFETY: see the invariant at `sb`.
            unsafe { *p.0 = v }
        }};
    }
    macro_rules! copy_slots {
        ($from:expr, $to:expr, $n:expr) => {{
            let (from, to, n): (Slot, Slot, usize) = ($from, $to, $n);
            debug_assert!(
                from.0 >= sb && to.0 >= sb && (from - base) + n <= slen && (to - base) + n <= slen
            );
            // SAFETY: both ranges are within the frame (invariant at `sb`); `copy` allows overlap.
            unsafe { std::ptr::copy(from.0, to.0, n) }
        }};
    }

    let result: Result<(), Trap> = 'exec: loop {
        macro_rules! trap {
            ($kind:expr) => {
                break 'exec Err(trap_at(store, &*code, ip_index!() - 1, inst, $kind))
            };
        }
        macro_rules! pop {
            () => {{
                sp -= 1;
                rd!(sp)
            }};
        }
        macro_rules! push {
            ($v:expr) => {{
                let v: u64 = $v;
                wr!(sp, v);
                sp += 1;
            }};
        }
        macro_rules! do_return {
            () => {{
                let n = code.num_results as usize;
                if fp != sp - n {
                    copy_slots!(sp - n, fp, n);
                }
                sp = fp + n;
                match frames.pop() {
                    None => break 'exec Ok(()),
                    Some(fr) => {
                        code = fr.code;
                        ops = code.ops.as_ptr();
                        ip = ops.wrapping_add(fr.ip);
                        fp = fr.fp;
                        serial = fr.serial;
                        if fr.inst != inst {
                            inst = fr.inst;
                            refresh_mem!();
                        }
                    }
                }
            }};
        }
        // Call the function at store address `$faddr`; `$tail` for return_call.
        macro_rules! do_call {
            ($faddr:expr, $tail:expr) => {{
                let faddr: usize = $faddr;
                // Wasm functions run here unless they have compiled code (mixed tiers);
                // host functions and compiled code are called through the store.
                let jit_callee = store.config.tier != crate::runtime::store::Tier::Int
                    && matches!(store.funcs[faddr].kind, FuncKind::Wasm { .. })
                    && crate::exec::tiering::use_compiled(store, crate::core::types::FuncAddr(faddr as u32));
                let callee_info = match &store.funcs[faddr].kind {
                    FuncKind::Wasm { .. } if jit_callee => Err(None),
                    FuncKind::Wasm { instance, func_idx } => {
                        let ci = instance.0 as usize;
                        let m = &store.instances[ci].module;
                        Ok((
                            ci,
                            CodeRef::of(super::load::func_code(m, *func_idx)),
                        ))
                    }
                    FuncKind::Host(h) => Err(Some(h.clone())),
                };
                match callee_info {
                    Ok((ci, callee)) => {
                        let np = callee.num_params as usize;
                        let new_fp = if $tail {
                            if fp != sp - np {
                                copy_slots!(sp - np, fp, np);
                            }
                            fp
                        } else {
                            if frames.len() >= max_depth {
                                trap!(TrapKind::CallStackExhausted);
                            }
                            sp - np
                        };
                        let new_sp = new_fp + callee.operand_base();
                        if (new_sp - base) + callee.max_height as usize > slen {
                            trap!(TrapKind::CallStackExhausted);
                        }
                        // SAFETY: new_sp + max_height is within the stack (checked just above).
                        unsafe {
                            std::ptr::write_bytes((new_fp + np).0, 0, new_sp - (new_fp + np))
                        };
                        let ret_ip = ip_index!();
                        let old = std::mem::replace(&mut code, callee);
                        ops = code.ops.as_ptr();
                        if !$tail {
                            frames.push(Frame {
                                code: old,
                                ip: ret_ip,
                                fp,
                                inst,
                                serial,
                            });
                        }
                        store.last_serial = store.last_serial.wrapping_add(1);
                        serial = store.last_serial;
                        fp = new_fp;
                        sp = new_sp;
                        ip = ops;
                        if ci != inst {
                            inst = ci;
                            refresh_mem!();
                        }
                    }
                    Err(h) => {
                        let ty = &store.funcs[faddr].ty;
                        let np = ty.params.len();
                        let args: Vec<Value> = ty
                            .params
                            .iter()
                            .enumerate()
                            .map(|(i, t)| Value::from_slot(*t, rd!(sp - np + i)))
                            .collect();
                        let mut res: Vec<Value> =
                            ty.results.iter().map(|t| Value::default_of(*t)).collect();
                        sp -= np;
                        store.depth += 1;
                        let r = match h {
                            Some(h) => h(
                                &mut Caller {
                                    store,
                                    instance: Some(crate::core::types::InstanceId(inst as u32)),
                                },
                                &args,
                                &mut res,
                            ),
                            None => crate::exec::jit::invoke(
                                store,
                                crate::core::types::FuncAddr(faddr as u32),
                                &args,
                            )
                            .map(|r| res = r),
                        };
                        store.depth -= 1;
                        if let Err(mut e) = r {
                            if e.site.is_none() && e.exit_code().is_none() {
                                e.site = trap_at(
                                    store,
                                    &code,
                                    ip_index!() - 1,
                                    inst,
                                    TrapKind::Unreachable,
                                )
                                .site;
                            }
                            break 'exec Err(e);
                        }
                        for v in res {
                            push!(v.to_slot());
                        }
                        refresh_mem!();
                        if $tail {
                            do_return!();
                        }
                    }
                }
            }};
        }
        // A bulk memory/table op: pops `(d, x, n)` (`x` a source offset or a
        // fill value, as u64) and traps with the op's error.
        macro_rules! bulk {
            (|$d:ident, $x:ident, $n:ident| $call:expr) => {{
                let $n = pop!() as u32;
                let $x = pop!();
                let $d = pop!() as u32;
                if let Err(k) = $call {
                    trap!(k);
                }
            }};
        }
        macro_rules! call_indirect {
            ($ty:expr, $table:expr, $tail:expr) => {{
                let i = pop!() as u32 as usize;
                let ta = store.instances[inst].tables[$table as usize].0 as usize;
                let elems = &store.tables[ta].elems;
                if i >= elems.len() {
                    trap!(TrapKind::UndefinedElement);
                }
                let r = elems[i];
                if r == 0 {
                    trap!(TrapKind::UninitializedElement);
                }
                let faddr = (r - 1) as usize;
                if store.funcs[faddr].type_id != store.instances[inst].type_ids[$ty as usize] {
                    trap!(TrapKind::IndirectCallTypeMismatch);
                }
                do_call!(faddr, $tail);
            }};
        }

        // SAFETY: `ops` points to `code.ops` (refreshed whenever `code` changes;
        // `code` keeps the Arc alive) and ip is in bounds (invariant at `ops`).
        // Cells may be patched by dynamic probes, but only between op fetches.
        let mut op = unsafe { (*ip).get() };
        ip = ip.wrapping_add(1);
        // Re-dispatch happens only for a dynamic probe site (its original op).
        'redo: loop {
            let mut regs = Regs {
                ip,
                ops,
                sp,
                fp,
                base,
                slen,
                mem_base,
                mem_len,
                br_tables: code.br_tables.as_ptr(),
                globals: store.globals.as_mut_ptr(),
                inst_globals: store.instances[inst].globals.as_ptr(),
                memories: store.memories.as_mut_ptr(),
                inst_mems: store.instances[inst].memories.as_ptr(),
                next: std::ptr::null(),
                trap: 0,
                tos: 0,
                dyn_threshold: store.config.dyn_threshold,
                code: code.0,
                frames: frames.as_mut_ptr(),
                nframes: frames.len(),
                max_frames: frames.capacity().min(max_depth),
                serial,
                last_serial: store.last_serial,
                inst,
                hot_calls: store.config.tier == crate::runtime::store::Tier::Int,
                mod_code: super::load::module_code(&store.instances[inst].module).as_ptr(),
                tables: store.tables.as_ptr(),
                inst_tables: store.instances[inst].tables.as_ptr(),
                funcs: store.funcs.as_ptr(),
                type_ids: store.instances[inst].type_ids.as_ptr(),
                num_imported: store.instances[inst].module.num_imported_funcs,
            };
            // SAFETY: `regs` satisfies the invariants at `Regs`: ip/ops/br_tables are
            // `code`'s, the value stack bounds are `execute`'s (invariant at `sb`), the
            // memory cache is current, and the store is untouched until `run` returns.
            let exit = unsafe { hot::run(&mut regs, std::ptr::addr_of_mut!(op).cast_const()) };
            ip = regs.ip;
            sp = regs.sp;
            // Calls and returns within the instance may have run in `hot.rs`.
            fp = regs.fp;
            code = CodeRef(regs.code);
            ops = regs.ops;
            serial = regs.serial;
            store.last_serial = regs.last_serial;
            // SAFETY: `hot.rs` wrote frames `..nframes` in the buffer (within its
            // capacity, `max_frames`); `Frame` is `Copy`.
            unsafe { frames.set_len(regs.nframes) };
            op = match exit {
                // SAFETY: `p` is `&op` or points into `code.ops` (see `Exit::Cold`).
                Exit::Cold(p) => unsafe { *p },
                Exit::Trap(kind) => trap!(kind),
            };
            match op {
                Op::Return => do_return!(),
                Op::Call(f) => {
                    let faddr = store.instances[inst].funcs[f as usize].0 as usize;
                    do_call!(faddr, false);
                }
                Op::ReturnCall(f) => {
                    let faddr = store.instances[inst].funcs[f as usize].0 as usize;
                    do_call!(faddr, true);
                }
                Op::CallIndirect { ty, table } => call_indirect!(ty, table, false),
                Op::ReturnCallIndirect { ty, table } => call_indirect!(ty, table, true),
                Op::MemorySize(mi) => {
                    let ma = store.instances[inst].memories[mi as usize].0 as usize;
                    push!(store.memories[ma].pages())
                }
                Op::MemoryGrow(mi) => {
                    let ma = store.instances[inst].memories[mi as usize].0 as usize;
                    let d = rd!(sp - 1) as u32 as u64;
                    wr!(sp - 1, store.memories[ma].grow(d) as i32 as u32 as u64);
                    refresh_mem!();
                }
                Op::MemoryFill(mi) => bulk!(|d, v, n| store.memory_fill(inst, mi, d, v as u8, n)),
                Op::MemoryCopy { dst, src } => {
                    bulk!(|d, s, n| store.memory_copy(inst, dst, src, d, s as u32, n))
                }
                Op::MemoryInit { data, mem } => {
                    bulk!(|d, s, n| store.memory_init(inst, mem, data, d, s as u32, n))
                }
                Op::DataDrop(i) => store.data_drop(inst, i),
                Op::RefFunc(f) => push!(store.instances[inst].funcs[f as usize].0 as u64 + 1),
                Op::TableGet(t) => {
                    let ta = store.instances[inst].tables[t as usize].0 as usize;
                    let i = rd!(sp - 1) as u32 as usize;
                    match store.tables[ta].elems.get(i) {
                        Some(v) => wr!(sp - 1, *v),
                        None => trap!(TrapKind::TableOutOfBounds),
                    }
                }
                Op::TableSet(t) => {
                    let v = pop!();
                    let i = pop!() as u32 as usize;
                    let ta = store.instances[inst].tables[t as usize].0 as usize;
                    match store.tables[ta].elems.get_mut(i) {
                        Some(e) => *e = v,
                        None => trap!(TrapKind::TableOutOfBounds),
                    }
                }
                Op::TableSize(t) => {
                    let ta = store.instances[inst].tables[t as usize].0 as usize;
                    push!(store.tables[ta].elems.len() as u64)
                }
                Op::TableGrow(t) => {
                    let n = pop!() as u32 as u64;
                    let init = pop!();
                    let ta = store.instances[inst].tables[t as usize].0 as usize;
                    push!(store.tables[ta].grow(n, init) as i32 as u32 as u64)
                }
                Op::TableFill(t) => bulk!(|i, v, n| store.table_fill(inst, t, i, v, n)),
                Op::TableCopy { dst, src } => {
                    bulk!(|d, s, n| store.table_copy(inst, dst, src, d, s as u32, n))
                }
                Op::TableInit { elem, table } => {
                    bulk!(|d, s, n| store.table_init(inst, table, elem, d, s as u32, n))
                }
                Op::ElemDrop(e) => store.elem_drop(inst, e),
                Op::LoopHead(n) => {
                    let n = n.wrapping_add(1);
                    // SAFETY: ip - 1 is the op being executed (in bounds).
                    unsafe { (*ip.wrapping_sub(1)).set(Op::LoopHead(n)) };
                    if crate::exec::tiering::loop_is_hot(store, n) {
                        let nl = code.num_locals as usize;
                        // SAFETY: the frame's locals are fp..fp+num_locals, in the stack.
                        let locals = unsafe { std::slice::from_raw_parts(fp.0, nl) };
                        let at = ip_index!() - 1;
                        match crate::exec::jit::osr_enter(store, inst, &*code, at, locals) {
                            Ok(None) => {}
                            Ok(Some(res)) => {
                                // The activation finished in compiled code.
                                sp = fp + code.operand_base();
                                for v in res {
                                    push!(v.to_slot());
                                }
                                refresh_mem!();
                                do_return!();
                            }
                            Err(e) => break 'exec Err(e),
                        }
                    }
                }
                Op::DynProbe(k) => {
                    let (list, original) = {
                        let site = &crate::exec::state(store).dyn_sites.sites[k as usize];
                        (site.probes.clone(), site.original)
                    };
                    // B3: the list is a snapshot; probes inserted now fire next time,
                    // removed ones still fire this time.
                    for p in list.iter() {
                        if let Err(t) = store.invoke(p.func, &[]) {
                            let what = format!("dynamic probe {}", p.id);
                            let at = ip_index!() - 1;
                            break 'exec Err(probe_trapped(store, &code, at, inst, &what, t));
                        }
                    }
                    refresh_mem!();
                    op = original;
                    continue 'redo;
                }
                Op::Probe(k) => {
                    let c = code;
                    for call in &c.probes[k as usize] {
                        // An argument's slot (a frame handle as its `externref` slot).
                        let slot = |a: &ArgSource| match a {
                            ArgSource::Const(v) => *v,
                            ArgSource::Operand(n) => rd!(sp - 1 - *n as usize),
                            ArgSource::Local(n) => rd!(fp + *n as usize),
                            ArgSource::Frame => Value::ExternRef(Some(serial)).to_slot(),
                        };
                        // An interpreted Wasm function without a frame handle:
                        // its argument slots as they are.
                        let r = if call.args.len() <= 8
                            && call.operand_types.is_none()
                            && matches!(
                                store.funcs[call.func.0 as usize].kind,
                                FuncKind::Wasm { .. }
                            )
                            && !crate::exec::tiering::is_compiled(store, call.func)
                        {
                            let mut slots = [0u64; 8];
                            for (s, (t, a)) in
                                slots.iter_mut().zip(call.types.iter().zip(&call.args))
                            {
                                *s = Value::from_slot(*t, slot(a)).to_slot();
                            }
                            invoke_probe(store, call.func, &slots[..call.args.len()])
                        } else {
                            let args: Vec<Value> = call
                                .types
                                .iter()
                                .zip(&call.args)
                                .map(|(t, a)| Value::from_slot(*t, slot(a)))
                                .collect();
                            let prev_view = if call.operand_types.is_some() {
                                let mut chain = Vec::with_capacity(frames.len() + 1);
                                for (i, fr) in frames.iter().enumerate() {
                                    let top = frames.get(i + 1).map_or(fp, |n| n.fp) - base;
                                    let pc = fr
                                        .code
                                        .pcs
                                        .get(fr.ip.wrapping_sub(1))
                                        .copied()
                                        .unwrap_or(0);
                                    chain.push(FrameInfo {
                                        serial: fr.serial,
                                        fp: fr.fp - base,
                                        top,
                                        code: fr.code.to_rc(),
                                        pc,
                                        operand_types: None,
                                    });
                                }
                                let pc = code.pcs[ip_index!() - 1];
                                chain.push(FrameInfo {
                                    serial,
                                    fp: fp - base,
                                    top: sp - base,
                                    code: code.to_rc(),
                                    pc,
                                    operand_types: call.operand_types.clone(),
                                });
                                let view = FrameView {
                                    stack: sb,
                                    len: slen,
                                    frames: chain,
                                };
                                Some(crate::exec::state_mut(store).frame_view.replace(view))
                            } else {
                                None
                            };
                            let r = store.invoke(call.func, &args).map(drop);
                            if let Some(prev) = prev_view {
                                crate::exec::state_mut(store).frame_view = prev;
                            }
                            r
                        };
                        if let Err(t) = r {
                            let at = ip_index!() - 1;
                            break 'exec Err(probe_trapped(
                                store,
                                &code,
                                at,
                                inst,
                                &call.origin,
                                t,
                            ));
                        }
                    }
                    // A probe call may have grown memories.
                    refresh_mem!();
                }
                _ => unreachable!("hot op {op:?} returned as cold"),
            }
            break 'redo;
        }
    };
    result
}
