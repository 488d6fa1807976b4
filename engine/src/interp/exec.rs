//! The interpreter loop.
//!
//! Values live in one untyped `u64` stack per invocation: a frame's locals
//! (params first) start at `fp`, its operands follow. Wasm-to-Wasm calls do not
//! recurse on the host stack: activations are kept in an explicit frame list, so
//! deep recursion ends in a `call stack exhausted` trap, never a host overflow.

use std::sync::Arc;

use super::code::*;
use crate::error::{Trap, TrapKind, TrapSite};
use crate::frames::{FrameInfo, FrameView};
use crate::instrument::ArgSource;
use crate::store::{Caller, FuncKind, Store};
use crate::types::{FuncAddr, Value};

/// Maximum nesting of host -> Wasm re-entry (each level uses host stack).
const MAX_REENTRY: usize = 256;

/// A value stack slot address. Arithmetic is wrapping pointer arithmetic
/// (safe); only `rd!`/`wr!`/`copy_slots!` dereference, under the invariant
/// stated at `sb` in `execute`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Slot(*mut u64);

impl std::ops::Add<usize> for Slot {
    type Output = Slot;
    #[inline(always)]
    fn add(self, n: usize) -> Slot {
        Slot(self.0.wrapping_add(n))
    }
}
impl std::ops::Sub<usize> for Slot {
    type Output = Slot;
    #[inline(always)]
    fn sub(self, n: usize) -> Slot {
        Slot(self.0.wrapping_sub(n))
    }
}
/// Distance in slots (`self` must not be below `other`).
impl std::ops::Sub<Slot> for Slot {
    type Output = usize;
    #[inline(always)]
    fn sub(self, other: Slot) -> usize {
        (self.0 as usize - other.0 as usize) / 8
    }
}
impl std::ops::AddAssign<usize> for Slot {
    #[inline(always)]
    fn add_assign(&mut self, n: usize) {
        *self = *self + n;
    }
}
impl std::ops::SubAssign<usize> for Slot {
    #[inline(always)]
    fn sub_assign(&mut self, n: usize) {
        *self = *self - n;
    }
}

struct Frame {
    code: Arc<Compiled>,
    ip: usize,
    fp: Slot,
    inst: usize,
    /// Activation serial (frame accessor identity).
    serial: u32,
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
    let mut stack = store
        .stacks
        .pop()
        .unwrap_or_else(|| vec![0u64; store.config.value_stack_slots]);
    for (i, a) in args.iter().enumerate() {
        stack[i] = a.to_slot();
    }
    store.depth += 1;
    let r = execute(store, &mut stack, f);
    store.depth -= 1;
    let out = r.map(|()| {
        results_ty
            .iter()
            .enumerate()
            .map(|(i, t)| Value::from_slot(*t, stack[i]))
            .collect()
    });
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

#[inline(always)]
fn mem0_of(store: &Store, inst: usize) -> usize {
    store.instances[inst]
        .memories
        .first()
        .map_or(usize::MAX, |m| m.0 as usize)
}

fn f32_min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f32::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}
fn f32_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f32::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}
fn f64_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}
fn f64_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}

/// Checked float -> int truncation: Err(kind) on NaN or out of range.
/// `lo` and `hi` are exclusive bounds of the representable range (after trunc).
#[inline(always)]
fn trunc_check(x: f64, lo: f64, hi: f64) -> Result<f64, TrapKind> {
    if x.is_nan() {
        Err(TrapKind::InvalidConversionToInteger)
    } else if x <= lo || x >= hi {
        Err(TrapKind::IntegerOverflow)
    } else {
        Ok(x.trunc())
    }
}

fn execute(store: &mut Store, stack: &mut [u64], entry: FuncAddr) -> Result<(), Trap> {
    let max_depth = store.config.max_call_depth;
    let (mut inst, entry_idx) = match &store.funcs[entry.0 as usize].kind {
        FuncKind::Wasm { instance, func_idx } => (instance.0 as usize, *func_idx),
        FuncKind::Host(_) => unreachable!("host entry handled by invoke"),
    };
    let mut code: Arc<Compiled> = {
        let m = &store.instances[inst].module;
        m.code[(entry_idx - m.num_imported_funcs) as usize].clone()
    };
    let mut frames: Vec<Frame> = Vec::new();
    let num_locals = code.num_locals as usize;
    if num_locals + code.max_height as usize > stack.len() {
        return Err(Trap::new(TrapKind::CallStackExhausted));
    }
    stack[code.num_params as usize..num_locals].fill(0);
    // The value stack is only accessed through `sb` from here on (frame
    // accessors get the same pointer while a probe runs).
    //
    // SAFETY invariant of `rd!`/`wr!`/`copy_slots!`: every slot index they are
    // given is < `fp + code.num_locals + code.max_height <= slen`. Frame entry
    // (here and in `do_call!`) checks the inequality; validation bounds local
    // indices by `num_locals`, and operand heights (so every `sp - k` an op
    // reads or writes, including fused ops, which never exceed the heights of
    // the instructions they replace) by `max_height`, and never lets an op pop
    // below the frame's operand base.
    let sb: *mut u64 = stack.as_mut_ptr();
    let slen = stack.len();
    let base = Slot(sb);
    let mut fp: Slot = base;
    let mut sp: Slot = fp + num_locals;
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
                break 'exec Err(trap_at(store, &code, ip_index!() - 1, inst, $kind))
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
        macro_rules! un {
            ($t:ty, $r:ty, |$a:ident| $e:expr) => {{
                let $a = rd!(sp - 1) as $t;
                wr!(sp - 1, ($e) as $r as u64);
            }};
        }
        macro_rules! bin {
            ($t:ty, $r:ty, |$a:ident, $b:ident| $e:expr) => {{
                let $b = rd!(sp - 1) as $t;
                let $a = rd!(sp - 2) as $t;
                sp -= 1;
                wr!(sp - 1, ($e) as $r as u64);
            }};
        }
        // Unary float ops quiet a NaN input (libm passes signalling NaNs through).
        macro_rules! f32un {
            (|$a:ident| $e:expr) => {{
                let $a = f32::from_bits(rd!(sp - 1) as u32);
                let r: f32 = if $a.is_nan() { $a + $a } else { $e };
                wr!(sp - 1, r.to_bits() as u64);
            }};
        }
        macro_rules! f64un {
            (|$a:ident| $e:expr) => {{
                let $a = f64::from_bits(rd!(sp - 1));
                let r: f64 = if $a.is_nan() { $a + $a } else { $e };
                wr!(sp - 1, r.to_bits());
            }};
        }
        macro_rules! f32bin {
            (|$a:ident, $b:ident| $e:expr) => {{
                let $b = f32::from_bits(rd!(sp - 1) as u32);
                let $a = f32::from_bits(rd!(sp - 2) as u32);
                sp -= 1;
                wr!(sp - 1, (($e) as f32).to_bits() as u64);
            }};
        }
        macro_rules! f64bin {
            (|$a:ident, $b:ident| $e:expr) => {{
                let $b = f64::from_bits(rd!(sp - 1));
                let $a = f64::from_bits(rd!(sp - 2));
                sp -= 1;
                wr!(sp - 1, (($e) as f64).to_bits());
            }};
        }
        macro_rules! f32cmp {
            (|$a:ident, $b:ident| $e:expr) => {{
                let $b = f32::from_bits(rd!(sp - 1) as u32);
                let $a = f32::from_bits(rd!(sp - 2) as u32);
                sp -= 1;
                wr!(sp - 1, ($e) as u64);
            }};
        }
        macro_rules! f64cmp {
            (|$a:ident, $b:ident| $e:expr) => {{
                let $b = f64::from_bits(rd!(sp - 1));
                let $a = f64::from_bits(rd!(sp - 2));
                sp -= 1;
                wr!(sp - 1, ($e) as u64);
            }};
        }
        macro_rules! mem_addr {
            ($m:expr) => {
                if $m.mem == 0 {
                    mem0
                } else {
                    store.instances[inst].memories[$m.mem as usize].0 as usize
                }
            };
        }
        // `$n` bytes of memory 0 at effective address `$a` (u64), or a trap.
        macro_rules! load0 {
            ($a:expr, $n:literal) => {{
                let a: u64 = $a;
                if a + $n > mem_len {
                    trap!(TrapKind::MemoryOutOfBounds);
                }
                // SAFETY: a + n <= mem_len, and (mem_base, mem_len) describe memory 0's
                // current buffer (cache invariant at `mem_base`).
                unsafe { std::ptr::read_unaligned(mem_base.add(a as usize) as *const [u8; $n]) }
            }};
        }
        macro_rules! load {
            ($m:expr, $n:literal, |$b:ident| $conv:expr) => {{
                let a = rd!(sp - 1) as u32 as u64 + $m.offset as u64;
                let $b: [u8; $n] = if $m.mem == 0 {
                    load0!(a, $n)
                } else {
                    let data = &store.memories[mem_addr!($m)].data;
                    if a + $n > data.len() as u64 {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    let a = a as usize;
                    data[a..a + $n].try_into().unwrap()
                };
                wr!(sp - 1, $conv);
            }};
        }
        macro_rules! store_ {
            ($m:expr, $n:literal, |$v:ident| $conv:expr) => {{
                let $v = rd!(sp - 1);
                let a = rd!(sp - 2) as u32 as u64 + $m.offset as u64;
                sp -= 2;
                let bytes: [u8; $n] = $conv;
                if $m.mem == 0 {
                    if a + $n > mem_len {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    // SAFETY: as in `load0!`.
                    unsafe {
                        std::ptr::write_unaligned(mem_base.add(a as usize) as *mut [u8; $n], bytes)
                    }
                } else {
                    let ma = mem_addr!($m);
                    let data = &mut store.memories[ma].data;
                    if a + $n > data.len() as u64 {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    let a = a as usize;
                    data[a..a + $n].copy_from_slice(&bytes);
                    // Memory 0 may be the same memory (imported twice): re-derive the cache.
                    refresh_mem!();
                }
            }};
        }
        // Fused binop result: push, write a local, or both (see `DST_PUSH`/`DST_TEE`).
        macro_rules! put {
            ($dst:expr, $v:expr) => {{
                let v: u64 = $v;
                let dst: u32 = $dst;
                if dst < DST_TEE {
                    wr!(fp + dst as usize, v);
                } else {
                    if dst != DST_PUSH {
                        wr!(fp + (dst & !DST_TEE) as usize, v);
                    }
                    push!(v);
                }
            }};
        }
        macro_rules! loc {
            ($i:expr) => {
                rd!(fp + $i as usize)
            };
        }
        macro_rules! top {
            () => {
                rd!(sp - 1)
            };
        }
        macro_rules! set_top {
            ($v:expr) => {
                wr!(sp - 1, $v)
            };
        }
        macro_rules! jump {
            ($t:expr) => {
                ip = ops.wrapping_add($t as usize)
            };
        }
        macro_rules! do_br {
            ($b:expr) => {{
                let b: BrTarget = $b;
                let keep = b.keep as usize;
                let dst = fp + b.base as usize;
                if keep > 0 && dst != sp - keep {
                    copy_slots!(sp - keep, dst, keep);
                }
                sp = dst + keep;
                ip = ops.wrapping_add(b.target as usize);
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
                let jit_callee = store.config.tier != crate::store::Tier::Int
                    && matches!(store.funcs[faddr].kind, FuncKind::Wasm { .. })
                    && crate::jit::use_compiled(store, crate::types::FuncAddr(faddr as u32));
                let callee_info = match &store.funcs[faddr].kind {
                    FuncKind::Wasm { .. } if jit_callee => Err(None),
                    FuncKind::Wasm { instance, func_idx } => {
                        let ci = instance.0 as usize;
                        let m = &store.instances[ci].module;
                        Ok((
                            ci,
                            m.code[(*func_idx - m.num_imported_funcs) as usize].clone(),
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
                        let new_sp = new_fp + callee.num_locals as usize;
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
                                    instance: Some(crate::types::InstanceId(inst as u32)),
                                },
                                &args,
                                &mut res,
                            ),
                            None => crate::jit::invoke(
                                store,
                                crate::types::FuncAddr(faddr as u32),
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

        debug_assert!(ip_index!() < code.ops.len());
        // SAFETY: `ops` points to `code.ops` (refreshed whenever `code` changes;
        // `code` keeps the Arc alive) and ip is in bounds (invariant at `ops`).
        // Cells may be patched by dynamic probes, but only between op fetches.
        let mut op = unsafe { (*ip).get() };
        ip = ip.wrapping_add(1);
        // Re-dispatch happens only for a dynamic probe site (its original op).
        'redo: loop {
            match op {
                Op::Unreachable => trap!(TrapKind::Unreachable),
                Op::Jump(t) => jump!(t),
                Op::JumpIfZero(t) => {
                    if pop!() as u32 == 0 {
                        jump!(t);
                    }
                }
                Op::JumpIfNonZero(t) => {
                    if pop!() as u32 != 0 {
                        jump!(t);
                    }
                }
                Op::Br(b) => do_br!(b),
                Op::BrIf(b) => {
                    if pop!() as u32 != 0 {
                        do_br!(b);
                    }
                }
                Op::BrTable { start, len } => {
                    let i = (pop!() as u32).min(len - 1);
                    let b = code.br_tables[(start + i) as usize];
                    do_br!(b);
                }
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
                Op::Drop => sp -= 1,
                Op::Select => {
                    let c = pop!() as u32;
                    let b = pop!();
                    if c == 0 {
                        wr!(sp - 1, b);
                    }
                }
                Op::LocalGet(i) => push!(rd!(fp + i as usize)),
                Op::LocalSet(i) => {
                    let v = pop!();
                    wr!(fp + i as usize, v);
                }
                Op::LocalTee(i) => wr!(fp + i as usize, rd!(sp - 1)),
                Op::GlobalGet(g) => {
                    let ga = store.instances[inst].globals[g as usize].0 as usize;
                    push!(store.globals[ga].value)
                }
                Op::GlobalSet(g) => {
                    let ga = store.instances[inst].globals[g as usize].0 as usize;
                    store.globals[ga].value = pop!();
                }
                Op::I32Load(m) => load!(m, 4, |b| u32::from_le_bytes(b) as u64),
                Op::I64Load(m) => load!(m, 8, |b| u64::from_le_bytes(b)),
                Op::I32Load8S(m) => load!(m, 1, |b| b[0] as i8 as i32 as u32 as u64),
                Op::I32Load8U(m) => load!(m, 1, |b| b[0] as u64),
                Op::I32Load16S(m) => load!(m, 2, |b| i16::from_le_bytes(b) as i32 as u32 as u64),
                Op::I32Load16U(m) => load!(m, 2, |b| u16::from_le_bytes(b) as u64),
                Op::I64Load8S(m) => load!(m, 1, |b| b[0] as i8 as i64 as u64),
                Op::I64Load8U(m) => load!(m, 1, |b| b[0] as u64),
                Op::I64Load16S(m) => load!(m, 2, |b| i16::from_le_bytes(b) as i64 as u64),
                Op::I64Load16U(m) => load!(m, 2, |b| u16::from_le_bytes(b) as u64),
                Op::I64Load32S(m) => load!(m, 4, |b| i32::from_le_bytes(b) as i64 as u64),
                Op::I64Load32U(m) => load!(m, 4, |b| u32::from_le_bytes(b) as u64),
                Op::I32Store(m) => store_!(m, 4, |v| (v as u32).to_le_bytes()),
                Op::I64Store(m) => store_!(m, 8, |v| v.to_le_bytes()),
                Op::I32Store8(m) | Op::I64Store8(m) => store_!(m, 1, |v| [v as u8]),
                Op::I32Store16(m) | Op::I64Store16(m) => {
                    store_!(m, 2, |v| (v as u16).to_le_bytes())
                }
                Op::I64Store32(m) => store_!(m, 4, |v| (v as u32).to_le_bytes()),
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
                Op::MemoryFill(mi) => {
                    let n = pop!() as u32 as u64;
                    let val = pop!() as u8;
                    let d = pop!() as u32 as u64;
                    let ma = store.instances[inst].memories[mi as usize].0 as usize;
                    let data = &mut store.memories[ma].data;
                    if d + n > data.len() as u64 {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    data[d as usize..(d + n) as usize].fill(val);
                }
                Op::MemoryCopy { dst, src } => {
                    let n = pop!() as u32 as u64;
                    let s = pop!() as u32 as u64;
                    let d = pop!() as u32 as u64;
                    let da = store.instances[inst].memories[dst as usize].0 as usize;
                    let sa = store.instances[inst].memories[src as usize].0 as usize;
                    if s + n > store.memories[sa].data.len() as u64
                        || d + n > store.memories[da].data.len() as u64
                    {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    let (s, d, n) = (s as usize, d as usize, n as usize);
                    if da == sa {
                        store.memories[da].data.copy_within(s..s + n, d);
                    } else {
                        let tmp = store.memories[sa].data[s..s + n].to_vec();
                        store.memories[da].data[d..d + n].copy_from_slice(&tmp);
                    }
                }
                Op::MemoryInit { data, mem } => {
                    let n = pop!() as u32 as u64;
                    let s = pop!() as u32 as u64;
                    let d = pop!() as u32 as u64;
                    let instd = &store.instances[inst];
                    let ma = instd.memories[mem as usize].0 as usize;
                    let module = instd.module.clone();
                    let seg = if instd.data_dropped[data as usize] {
                        0..0
                    } else {
                        module.datas[data as usize].range.clone()
                    };
                    let mlen = store.memories[ma].data.len() as u64;
                    if s + n > seg.len() as u64 || d + n > mlen {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    let src = &module.bytes[seg.start + s as usize..seg.start + (s + n) as usize];
                    store.memories[ma].data[d as usize..(d + n) as usize].copy_from_slice(src);
                }
                Op::DataDrop(i) => store.instances[inst].data_dropped[i as usize] = true,
                Op::Const(c) => push!(c),

                Op::I32Eqz => un!(u32, u32, |a| (a == 0) as u32),
                Op::I32Eq => bin!(u32, u32, |a, b| (a == b) as u32),
                Op::I32Ne => bin!(u32, u32, |a, b| (a != b) as u32),
                Op::I32LtS => bin!(u32, u32, |a, b| ((a as i32) < (b as i32)) as u32),
                Op::I32LtU => bin!(u32, u32, |a, b| (a < b) as u32),
                Op::I32GtS => bin!(u32, u32, |a, b| ((a as i32) > (b as i32)) as u32),
                Op::I32GtU => bin!(u32, u32, |a, b| (a > b) as u32),
                Op::I32LeS => bin!(u32, u32, |a, b| ((a as i32) <= (b as i32)) as u32),
                Op::I32LeU => bin!(u32, u32, |a, b| (a <= b) as u32),
                Op::I32GeS => bin!(u32, u32, |a, b| ((a as i32) >= (b as i32)) as u32),
                Op::I32GeU => bin!(u32, u32, |a, b| (a >= b) as u32),
                Op::I64Eqz => un!(u64, u64, |a| (a == 0) as u64),
                Op::I64Eq => bin!(u64, u64, |a, b| (a == b) as u64),
                Op::I64Ne => bin!(u64, u64, |a, b| (a != b) as u64),
                Op::I64LtS => bin!(u64, u64, |a, b| ((a as i64) < (b as i64)) as u64),
                Op::I64LtU => bin!(u64, u64, |a, b| (a < b) as u64),
                Op::I64GtS => bin!(u64, u64, |a, b| ((a as i64) > (b as i64)) as u64),
                Op::I64GtU => bin!(u64, u64, |a, b| (a > b) as u64),
                Op::I64LeS => bin!(u64, u64, |a, b| ((a as i64) <= (b as i64)) as u64),
                Op::I64LeU => bin!(u64, u64, |a, b| (a <= b) as u64),
                Op::I64GeS => bin!(u64, u64, |a, b| ((a as i64) >= (b as i64)) as u64),
                Op::I64GeU => bin!(u64, u64, |a, b| (a >= b) as u64),
                Op::F32Eq => f32cmp!(|a, b| a == b),
                Op::F32Ne => f32cmp!(|a, b| a != b),
                Op::F32Lt => f32cmp!(|a, b| a < b),
                Op::F32Gt => f32cmp!(|a, b| a > b),
                Op::F32Le => f32cmp!(|a, b| a <= b),
                Op::F32Ge => f32cmp!(|a, b| a >= b),
                Op::F64Eq => f64cmp!(|a, b| a == b),
                Op::F64Ne => f64cmp!(|a, b| a != b),
                Op::F64Lt => f64cmp!(|a, b| a < b),
                Op::F64Gt => f64cmp!(|a, b| a > b),
                Op::F64Le => f64cmp!(|a, b| a <= b),
                Op::F64Ge => f64cmp!(|a, b| a >= b),

                Op::I32Clz => un!(u32, u32, |a| a.leading_zeros()),
                Op::I32Ctz => un!(u32, u32, |a| a.trailing_zeros()),
                Op::I32Popcnt => un!(u32, u32, |a| a.count_ones()),
                Op::I32Add => bin!(u32, u32, |a, b| a.wrapping_add(b)),
                Op::I32Sub => bin!(u32, u32, |a, b| a.wrapping_sub(b)),
                Op::I32Mul => bin!(u32, u32, |a, b| a.wrapping_mul(b)),
                Op::I32DivS => {
                    let b = rd!(sp - 1) as u32 as i32;
                    let a = rd!(sp - 2) as u32 as i32;
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    if a == i32::MIN && b == -1 {
                        trap!(TrapKind::IntegerOverflow);
                    }
                    sp -= 1;
                    wr!(sp - 1, (a / b) as u32 as u64);
                }
                Op::I32DivU => {
                    let b = rd!(sp - 1) as u32;
                    let a = rd!(sp - 2) as u32;
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    sp -= 1;
                    wr!(sp - 1, (a / b) as u64);
                }
                Op::I32RemS => {
                    let b = rd!(sp - 1) as u32 as i32;
                    let a = rd!(sp - 2) as u32 as i32;
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    sp -= 1;
                    wr!(sp - 1, a.wrapping_rem(b) as u32 as u64);
                }
                Op::I32RemU => {
                    let b = rd!(sp - 1) as u32;
                    let a = rd!(sp - 2) as u32;
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    sp -= 1;
                    wr!(sp - 1, (a % b) as u64);
                }
                Op::I32And => bin!(u32, u32, |a, b| a & b),
                Op::I32Or => bin!(u32, u32, |a, b| a | b),
                Op::I32Xor => bin!(u32, u32, |a, b| a ^ b),
                Op::I32Shl => bin!(u32, u32, |a, b| a.wrapping_shl(b)),
                Op::I32ShrS => bin!(u32, u32, |a, b| (a as i32).wrapping_shr(b) as u32),
                Op::I32ShrU => bin!(u32, u32, |a, b| a.wrapping_shr(b)),
                Op::I32Rotl => bin!(u32, u32, |a, b| a.rotate_left(b & 31)),
                Op::I32Rotr => bin!(u32, u32, |a, b| a.rotate_right(b & 31)),
                Op::I64Clz => un!(u64, u64, |a| a.leading_zeros()),
                Op::I64Ctz => un!(u64, u64, |a| a.trailing_zeros()),
                Op::I64Popcnt => un!(u64, u64, |a| a.count_ones()),
                Op::I64Add => bin!(u64, u64, |a, b| a.wrapping_add(b)),
                Op::I64Sub => bin!(u64, u64, |a, b| a.wrapping_sub(b)),
                Op::I64Mul => bin!(u64, u64, |a, b| a.wrapping_mul(b)),
                Op::I64DivS => {
                    let b = rd!(sp - 1) as i64;
                    let a = rd!(sp - 2) as i64;
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    if a == i64::MIN && b == -1 {
                        trap!(TrapKind::IntegerOverflow);
                    }
                    sp -= 1;
                    wr!(sp - 1, (a / b) as u64);
                }
                Op::I64DivU => {
                    let b = rd!(sp - 1);
                    let a = rd!(sp - 2);
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    sp -= 1;
                    wr!(sp - 1, a / b);
                }
                Op::I64RemS => {
                    let b = rd!(sp - 1) as i64;
                    let a = rd!(sp - 2) as i64;
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    sp -= 1;
                    wr!(sp - 1, a.wrapping_rem(b) as u64);
                }
                Op::I64RemU => {
                    let b = rd!(sp - 1);
                    let a = rd!(sp - 2);
                    if b == 0 {
                        trap!(TrapKind::IntegerDivideByZero);
                    }
                    sp -= 1;
                    wr!(sp - 1, a % b);
                }
                Op::I64And => bin!(u64, u64, |a, b| a & b),
                Op::I64Or => bin!(u64, u64, |a, b| a | b),
                Op::I64Xor => bin!(u64, u64, |a, b| a ^ b),
                Op::I64Shl => bin!(u64, u64, |a, b| a.wrapping_shl(b as u32)),
                Op::I64ShrS => bin!(u64, u64, |a, b| (a as i64).wrapping_shr(b as u32) as u64),
                Op::I64ShrU => bin!(u64, u64, |a, b| a.wrapping_shr(b as u32)),
                Op::I64Rotl => bin!(u64, u64, |a, b| a.rotate_left((b & 63) as u32)),
                Op::I64Rotr => bin!(u64, u64, |a, b| a.rotate_right((b & 63) as u32)),

                Op::F32Abs => un!(u32, u32, |a| a & 0x7fff_ffff),
                Op::F32Neg => un!(u32, u32, |a| a ^ 0x8000_0000),
                Op::F32Copysign => bin!(u32, u32, |a, b| (a & 0x7fff_ffff) | (b & 0x8000_0000)),
                Op::F32Ceil => f32un!(|a| a.ceil()),
                Op::F32Floor => f32un!(|a| a.floor()),
                Op::F32Trunc => f32un!(|a| a.trunc()),
                Op::F32Nearest => f32un!(|a| a.round_ties_even()),
                Op::F32Sqrt => f32un!(|a| a.sqrt()),
                Op::F32Add => f32bin!(|a, b| a + b),
                Op::F32Sub => f32bin!(|a, b| a - b),
                Op::F32Mul => f32bin!(|a, b| a * b),
                Op::F32Div => f32bin!(|a, b| a / b),
                Op::F32Min => f32bin!(|a, b| f32_min(a, b)),
                Op::F32Max => f32bin!(|a, b| f32_max(a, b)),
                Op::F64Abs => un!(u64, u64, |a| a & 0x7fff_ffff_ffff_ffff),
                Op::F64Neg => un!(u64, u64, |a| a ^ 0x8000_0000_0000_0000),
                Op::F64Copysign => bin!(u64, u64, |a, b| (a & 0x7fff_ffff_ffff_ffff)
                    | (b & 0x8000_0000_0000_0000)),
                Op::F64Ceil => f64un!(|a| a.ceil()),
                Op::F64Floor => f64un!(|a| a.floor()),
                Op::F64Trunc => f64un!(|a| a.trunc()),
                Op::F64Nearest => f64un!(|a| a.round_ties_even()),
                Op::F64Sqrt => f64un!(|a| a.sqrt()),
                Op::F64Add => f64bin!(|a, b| a + b),
                Op::F64Sub => f64bin!(|a, b| a - b),
                Op::F64Mul => f64bin!(|a, b| a * b),
                Op::F64Div => f64bin!(|a, b| a / b),
                Op::F64Min => f64bin!(|a, b| f64_min(a, b)),
                Op::F64Max => f64bin!(|a, b| f64_max(a, b)),

                Op::I32WrapI64 => un!(u64, u32, |a| a as u32),
                Op::I32TruncF32S
                | Op::I32TruncF32U
                | Op::I32TruncF64S
                | Op::I32TruncF64U
                | Op::I64TruncF32S
                | Op::I64TruncF32U
                | Op::I64TruncF64S
                | Op::I64TruncF64U => {
                    let s = rd!(sp - 1);
                    let x = match op {
                        Op::I32TruncF32S
                        | Op::I32TruncF32U
                        | Op::I64TruncF32S
                        | Op::I64TruncF32U => f32::from_bits(s as u32) as f64,
                        _ => f64::from_bits(s),
                    };
                    let r = match op {
                        Op::I32TruncF32S | Op::I32TruncF64S => {
                            trunc_check(x, -2147483649.0, 2147483648.0)
                                .map(|v| v as i32 as u32 as u64)
                        }
                        Op::I32TruncF32U | Op::I32TruncF64U => {
                            trunc_check(x, -1.0, 4294967296.0).map(|v| v as u32 as u64)
                        }
                        Op::I64TruncF32S | Op::I64TruncF64S => {
                            // -2^63 is representable; anything below it is not.
                            if x.is_nan() {
                                Err(TrapKind::InvalidConversionToInteger)
                            } else if x < -9223372036854775808.0 || x >= 9223372036854775808.0 {
                                Err(TrapKind::IntegerOverflow)
                            } else {
                                Ok(x as i64 as u64)
                            }
                        }
                        _ => trunc_check(x, -1.0, 18446744073709551616.0).map(|v| v as u64),
                    };
                    match r {
                        Ok(v) => wr!(sp - 1, v),
                        Err(k) => trap!(k),
                    }
                }
                Op::I64ExtendI32S => un!(u64, u64, |a| a as u32 as i32 as i64),
                Op::I64ExtendI32U => un!(u64, u64, |a| a as u32),
                Op::F32ConvertI32S => un!(u64, u32, |a| (a as u32 as i32 as f32).to_bits()),
                Op::F32ConvertI32U => un!(u64, u32, |a| (a as u32 as f32).to_bits()),
                Op::F32ConvertI64S => un!(u64, u32, |a| (a as i64 as f32).to_bits()),
                Op::F32ConvertI64U => un!(u64, u32, |a| (a as f32).to_bits()),
                Op::F32DemoteF64 => un!(u64, u32, |a| (f64::from_bits(a) as f32).to_bits()),
                Op::F64ConvertI32S => un!(u64, u64, |a| (a as u32 as i32 as f64).to_bits()),
                Op::F64ConvertI32U => un!(u64, u64, |a| (a as u32 as f64).to_bits()),
                Op::F64ConvertI64S => un!(u64, u64, |a| (a as i64 as f64).to_bits()),
                Op::F64ConvertI64U => un!(u64, u64, |a| (a as f64).to_bits()),
                Op::F64PromoteF32 => un!(u64, u64, |a| (f32::from_bits(a as u32) as f64).to_bits()),
                Op::I32Extend8S => un!(u64, u32, |a| a as u8 as i8 as i32 as u32),
                Op::I32Extend16S => un!(u64, u32, |a| a as u16 as i16 as i32 as u32),
                Op::I64Extend8S => un!(u64, u64, |a| a as u8 as i8 as i64),
                Op::I64Extend16S => un!(u64, u64, |a| a as u16 as i16 as i64),
                Op::I64Extend32S => un!(u64, u64, |a| a as u32 as i32 as i64),
                Op::I32TruncSatF32S => un!(u64, u32, |a| f32::from_bits(a as u32) as i32 as u32),
                Op::I32TruncSatF32U => un!(u64, u32, |a| f32::from_bits(a as u32) as u32),
                Op::I32TruncSatF64S => un!(u64, u32, |a| f64::from_bits(a) as i32 as u32),
                Op::I32TruncSatF64U => un!(u64, u32, |a| f64::from_bits(a) as u32),
                Op::I64TruncSatF32S => un!(u64, u64, |a| f32::from_bits(a as u32) as i64),
                Op::I64TruncSatF32U => un!(u64, u64, |a| f32::from_bits(a as u32) as u64),
                Op::I64TruncSatF64S => un!(u64, u64, |a| f64::from_bits(a) as i64),
                Op::I64TruncSatF64U => un!(u64, u64, |a| f64::from_bits(a) as u64),

                Op::RefIsNull => un!(u64, u64, |a| (a == 0) as u64),
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
                Op::TableFill(t) => {
                    let n = pop!() as u32 as u64;
                    let v = pop!();
                    let i = pop!() as u32 as u64;
                    let ta = store.instances[inst].tables[t as usize].0 as usize;
                    let el = &mut store.tables[ta].elems;
                    if i + n > el.len() as u64 {
                        trap!(TrapKind::TableOutOfBounds);
                    }
                    el[i as usize..(i + n) as usize].fill(v);
                }
                Op::TableCopy { dst, src } => {
                    let n = pop!() as u32 as u64;
                    let s = pop!() as u32 as u64;
                    let d = pop!() as u32 as u64;
                    let da = store.instances[inst].tables[dst as usize].0 as usize;
                    let sa = store.instances[inst].tables[src as usize].0 as usize;
                    if s + n > store.tables[sa].elems.len() as u64
                        || d + n > store.tables[da].elems.len() as u64
                    {
                        trap!(TrapKind::TableOutOfBounds);
                    }
                    let (s, d, n) = (s as usize, d as usize, n as usize);
                    if da == sa {
                        store.tables[da].elems.copy_within(s..s + n, d);
                    } else {
                        let tmp = store.tables[sa].elems[s..s + n].to_vec();
                        store.tables[da].elems[d..d + n].copy_from_slice(&tmp);
                    }
                }
                Op::TableInit { elem, table } => {
                    let n = pop!() as u32 as u64;
                    let s = pop!() as u32 as u64;
                    let d = pop!() as u32 as u64;
                    let ta = store.instances[inst].tables[table as usize].0 as usize;
                    let seg = store.instances[inst].elems[elem as usize].clone();
                    if s + n > seg.len() as u64 || d + n > store.tables[ta].elems.len() as u64 {
                        trap!(TrapKind::TableOutOfBounds);
                    }
                    store.tables[ta].elems[d as usize..(d + n) as usize]
                        .copy_from_slice(&seg[s as usize..(s + n) as usize]);
                }
                Op::ElemDrop(e) => store.instances[inst].elems[e as usize] = std::rc::Rc::from([]),
                Op::I32AddLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a.wrapping_add(b)) as u64);
                }
                Op::I32AddLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a.wrapping_add(b)) as u64);
                }
                Op::I32AddC(b) => {
                    let a = top!() as u32;
                    set_top!((a.wrapping_add(b)) as u64);
                }
                Op::I32AddL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a.wrapping_add(b)) as u64);
                }
                Op::I32SubLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a.wrapping_sub(b)) as u64);
                }
                Op::I32SubLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a.wrapping_sub(b)) as u64);
                }
                Op::I32SubC(b) => {
                    let a = top!() as u32;
                    set_top!((a.wrapping_sub(b)) as u64);
                }
                Op::I32SubL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a.wrapping_sub(b)) as u64);
                }
                Op::I32MulLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a.wrapping_mul(b)) as u64);
                }
                Op::I32MulLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a.wrapping_mul(b)) as u64);
                }
                Op::I32MulC(b) => {
                    let a = top!() as u32;
                    set_top!((a.wrapping_mul(b)) as u64);
                }
                Op::I32MulL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a.wrapping_mul(b)) as u64);
                }
                Op::I32AndLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a & b) as u64);
                }
                Op::I32AndLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a & b) as u64);
                }
                Op::I32AndC(b) => {
                    let a = top!() as u32;
                    set_top!((a & b) as u64);
                }
                Op::I32AndL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a & b) as u64);
                }
                Op::I32OrLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a | b) as u64);
                }
                Op::I32OrLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a | b) as u64);
                }
                Op::I32OrC(b) => {
                    let a = top!() as u32;
                    set_top!((a | b) as u64);
                }
                Op::I32OrL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a | b) as u64);
                }
                Op::I32XorLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a ^ b) as u64);
                }
                Op::I32XorLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a ^ b) as u64);
                }
                Op::I32XorC(b) => {
                    let a = top!() as u32;
                    set_top!((a ^ b) as u64);
                }
                Op::I32XorL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a ^ b) as u64);
                }
                Op::I32ShlLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a.wrapping_shl(b)) as u64);
                }
                Op::I32ShlLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a.wrapping_shl(b)) as u64);
                }
                Op::I32ShlC(b) => {
                    let a = top!() as u32;
                    set_top!((a.wrapping_shl(b)) as u64);
                }
                Op::I32ShlL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a.wrapping_shl(b)) as u64);
                }
                Op::I32ShrSLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a as i32).wrapping_shr(b) as u32) as u64);
                }
                Op::I32ShrSLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a as i32).wrapping_shr(b) as u32) as u64);
                }
                Op::I32ShrSC(b) => {
                    let a = top!() as u32;
                    set_top!(((a as i32).wrapping_shr(b) as u32) as u64);
                }
                Op::I32ShrSL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a as i32).wrapping_shr(b) as u32) as u64);
                }
                Op::I32ShrULL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (a.wrapping_shr(b)) as u64);
                }
                Op::I32ShrULC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (a.wrapping_shr(b)) as u64);
                }
                Op::I32ShrUC(b) => {
                    let a = top!() as u32;
                    set_top!((a.wrapping_shr(b)) as u64);
                }
                Op::I32ShrUL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((a.wrapping_shr(b)) as u64);
                }
                Op::I32EqLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a == b) as u32) as u64);
                }
                Op::I32EqLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a == b) as u32) as u64);
                }
                Op::I32EqC(b) => {
                    let a = top!() as u32;
                    set_top!(((a == b) as u32) as u64);
                }
                Op::I32EqL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a == b) as u32) as u64);
                }
                Op::I32NeLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a != b) as u32) as u64);
                }
                Op::I32NeLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a != b) as u32) as u64);
                }
                Op::I32NeC(b) => {
                    let a = top!() as u32;
                    set_top!(((a != b) as u32) as u64);
                }
                Op::I32NeL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a != b) as u32) as u64);
                }
                Op::I32LtSLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (((a as i32) < (b as i32)) as u32) as u64);
                }
                Op::I32LtSLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (((a as i32) < (b as i32)) as u32) as u64);
                }
                Op::I32LtSC(b) => {
                    let a = top!() as u32;
                    set_top!((((a as i32) < (b as i32)) as u32) as u64);
                }
                Op::I32LtSL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((((a as i32) < (b as i32)) as u32) as u64);
                }
                Op::I32LtULL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a < b) as u32) as u64);
                }
                Op::I32LtULC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a < b) as u32) as u64);
                }
                Op::I32LtUC(b) => {
                    let a = top!() as u32;
                    set_top!(((a < b) as u32) as u64);
                }
                Op::I32LtUL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a < b) as u32) as u64);
                }
                Op::I32GtSLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (((a as i32) > (b as i32)) as u32) as u64);
                }
                Op::I32GtSLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (((a as i32) > (b as i32)) as u32) as u64);
                }
                Op::I32GtSC(b) => {
                    let a = top!() as u32;
                    set_top!((((a as i32) > (b as i32)) as u32) as u64);
                }
                Op::I32GtSL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((((a as i32) > (b as i32)) as u32) as u64);
                }
                Op::I32GtULL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a > b) as u32) as u64);
                }
                Op::I32GtULC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a > b) as u32) as u64);
                }
                Op::I32GtUC(b) => {
                    let a = top!() as u32;
                    set_top!(((a > b) as u32) as u64);
                }
                Op::I32GtUL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a > b) as u32) as u64);
                }
                Op::I32LeSLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (((a as i32) <= (b as i32)) as u32) as u64);
                }
                Op::I32LeSLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (((a as i32) <= (b as i32)) as u32) as u64);
                }
                Op::I32LeSC(b) => {
                    let a = top!() as u32;
                    set_top!((((a as i32) <= (b as i32)) as u32) as u64);
                }
                Op::I32LeSL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((((a as i32) <= (b as i32)) as u32) as u64);
                }
                Op::I32LeULL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a <= b) as u32) as u64);
                }
                Op::I32LeULC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a <= b) as u32) as u64);
                }
                Op::I32LeUC(b) => {
                    let a = top!() as u32;
                    set_top!(((a <= b) as u32) as u64);
                }
                Op::I32LeUL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a <= b) as u32) as u64);
                }
                Op::I32GeSLL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, (((a as i32) >= (b as i32)) as u32) as u64);
                }
                Op::I32GeSLC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, (((a as i32) >= (b as i32)) as u32) as u64);
                }
                Op::I32GeSC(b) => {
                    let a = top!() as u32;
                    set_top!((((a as i32) >= (b as i32)) as u32) as u64);
                }
                Op::I32GeSL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!((((a as i32) >= (b as i32)) as u32) as u64);
                }
                Op::I32GeULL { a: x, b: y, dst } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    put!(dst, ((a >= b) as u32) as u64);
                }
                Op::I32GeULC { a: x, c: b, dst } => {
                    let a = loc!(x) as u32;
                    put!(dst, ((a >= b) as u32) as u64);
                }
                Op::I32GeUC(b) => {
                    let a = top!() as u32;
                    set_top!(((a >= b) as u32) as u64);
                }
                Op::I32GeUL(y) => {
                    let b = loc!(y) as u32;
                    let a = top!() as u32;
                    set_top!(((a >= b) as u32) as u64);
                }
                Op::JmpI32Eq(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if a == b {
                        jump!(t);
                    }
                }
                Op::JmpI32EqC { c: b, t } => {
                    let a = pop!() as u32;
                    if a == b {
                        jump!(t);
                    }
                }
                Op::JmpI32EqLC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if a == b {
                        jump!(t);
                    }
                }
                Op::JmpI32EqLL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if a == b {
                        jump!(t);
                    }
                }
                Op::JmpI32Ne(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if a != b {
                        jump!(t);
                    }
                }
                Op::JmpI32NeC { c: b, t } => {
                    let a = pop!() as u32;
                    if a != b {
                        jump!(t);
                    }
                }
                Op::JmpI32NeLC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if a != b {
                        jump!(t);
                    }
                }
                Op::JmpI32NeLL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if a != b {
                        jump!(t);
                    }
                }
                Op::JmpI32LtS(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if (a as i32) < (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LtSC { c: b, t } => {
                    let a = pop!() as u32;
                    if (a as i32) < (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LtSLC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if (a as i32) < (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LtSLL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if (a as i32) < (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LtU(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if a < b {
                        jump!(t);
                    }
                }
                Op::JmpI32LtUC { c: b, t } => {
                    let a = pop!() as u32;
                    if a < b {
                        jump!(t);
                    }
                }
                Op::JmpI32LtULC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if a < b {
                        jump!(t);
                    }
                }
                Op::JmpI32LtULL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if a < b {
                        jump!(t);
                    }
                }
                Op::JmpI32GtS(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if (a as i32) > (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GtSC { c: b, t } => {
                    let a = pop!() as u32;
                    if (a as i32) > (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GtSLC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if (a as i32) > (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GtSLL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if (a as i32) > (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GtU(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if a > b {
                        jump!(t);
                    }
                }
                Op::JmpI32GtUC { c: b, t } => {
                    let a = pop!() as u32;
                    if a > b {
                        jump!(t);
                    }
                }
                Op::JmpI32GtULC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if a > b {
                        jump!(t);
                    }
                }
                Op::JmpI32GtULL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if a > b {
                        jump!(t);
                    }
                }
                Op::JmpI32LeS(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if (a as i32) <= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LeSC { c: b, t } => {
                    let a = pop!() as u32;
                    if (a as i32) <= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LeSLC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if (a as i32) <= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LeSLL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if (a as i32) <= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32LeU(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if a <= b {
                        jump!(t);
                    }
                }
                Op::JmpI32LeUC { c: b, t } => {
                    let a = pop!() as u32;
                    if a <= b {
                        jump!(t);
                    }
                }
                Op::JmpI32LeULC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if a <= b {
                        jump!(t);
                    }
                }
                Op::JmpI32LeULL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if a <= b {
                        jump!(t);
                    }
                }
                Op::JmpI32GeS(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if (a as i32) >= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GeSC { c: b, t } => {
                    let a = pop!() as u32;
                    if (a as i32) >= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GeSLC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if (a as i32) >= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GeSLL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if (a as i32) >= (b as i32) {
                        jump!(t);
                    }
                }
                Op::JmpI32GeU(t) => {
                    let b = pop!() as u32;
                    let a = pop!() as u32;
                    if a >= b {
                        jump!(t);
                    }
                }
                Op::JmpI32GeUC { c: b, t } => {
                    let a = pop!() as u32;
                    if a >= b {
                        jump!(t);
                    }
                }
                Op::JmpI32GeULC { a: x, c: b, t } => {
                    let a = loc!(x) as u32;
                    if a >= b {
                        jump!(t);
                    }
                }
                Op::JmpI32GeULL { a: x, b: y, t } => {
                    let a = loc!(x) as u32;
                    let b = loc!(y) as u32;
                    if a >= b {
                        jump!(t);
                    }
                }
                Op::F64AddL(y) => {
                    let b = f64::from_bits(loc!(y));
                    let a = f64::from_bits(top!());
                    set_top!((a + b).to_bits());
                }
                Op::F64AddLL(x, y) => {
                    let a = f64::from_bits(loc!(x));
                    let b = f64::from_bits(loc!(y));
                    push!((a + b).to_bits());
                }
                Op::F64AddC(c) => {
                    let b = f64::from_bits(c);
                    let a = f64::from_bits(top!());
                    set_top!((a + b).to_bits());
                }
                Op::F64SubL(y) => {
                    let b = f64::from_bits(loc!(y));
                    let a = f64::from_bits(top!());
                    set_top!((a - b).to_bits());
                }
                Op::F64SubLL(x, y) => {
                    let a = f64::from_bits(loc!(x));
                    let b = f64::from_bits(loc!(y));
                    push!((a - b).to_bits());
                }
                Op::F64SubC(c) => {
                    let b = f64::from_bits(c);
                    let a = f64::from_bits(top!());
                    set_top!((a - b).to_bits());
                }
                Op::F64MulL(y) => {
                    let b = f64::from_bits(loc!(y));
                    let a = f64::from_bits(top!());
                    set_top!((a * b).to_bits());
                }
                Op::F64MulLL(x, y) => {
                    let a = f64::from_bits(loc!(x));
                    let b = f64::from_bits(loc!(y));
                    push!((a * b).to_bits());
                }
                Op::F64MulC(c) => {
                    let b = f64::from_bits(c);
                    let a = f64::from_bits(top!());
                    set_top!((a * b).to_bits());
                }
                Op::F64DivL(y) => {
                    let b = f64::from_bits(loc!(y));
                    let a = f64::from_bits(top!());
                    set_top!((a / b).to_bits());
                }
                Op::F64DivLL(x, y) => {
                    let a = f64::from_bits(loc!(x));
                    let b = f64::from_bits(loc!(y));
                    push!((a / b).to_bits());
                }
                Op::F64DivC(c) => {
                    let b = f64::from_bits(c);
                    let a = f64::from_bits(top!());
                    set_top!((a / b).to_bits());
                }
                Op::I32LoadL { a, off } => {
                    let b = load0!(loc!(a) as u32 as u64 + off as u64, 4);
                    push!(u32::from_le_bytes(b) as u64)
                }
                Op::I64LoadL { a, off } => {
                    let b = load0!(loc!(a) as u32 as u64 + off as u64, 8);
                    push!(u64::from_le_bytes(b))
                }
                Op::I32LoadLL { a, b, off } => {
                    let b = load0!(
                        (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                        4
                    );
                    push!(u32::from_le_bytes(b) as u64)
                }
                Op::I64LoadLL { a, b, off } => {
                    let b = load0!(
                        (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                        8
                    );
                    push!(u64::from_le_bytes(b))
                }
                Op::I32LoadSL { b, off } => {
                    let b = load0!(
                        (top!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                        4
                    );
                    set_top!(u32::from_le_bytes(b) as u64)
                }
                Op::I64LoadSL { b, off } => {
                    let b = load0!(
                        (top!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                        8
                    );
                    set_top!(u64::from_le_bytes(b))
                }
                Op::LocalCopy { src, dst } => wr!(fp + dst as usize, loc!(src)),
                Op::LocalSetConst { dst, c } => wr!(fp + dst as usize, c),
                Op::Nop => {}
                Op::LoopHead(n) => {
                    let n = n.wrapping_add(1);
                    // SAFETY: ip - 1 is the op being executed (in bounds).
                    unsafe { (*ip.wrapping_sub(1)).set(Op::LoopHead(n)) };
                    if n == store.config.dyn_threshold {
                        let nl = code.num_locals as usize;
                        // SAFETY: the frame's locals are fp..fp+num_locals, in the stack.
                        let locals = unsafe { std::slice::from_raw_parts(fp.0, nl) };
                        let at = ip_index!() - 1;
                        match crate::jit::osr_enter(store, inst, &code, at, locals) {
                            Ok(None) => {}
                            Ok(Some(res)) => {
                                // The activation finished in compiled code.
                                sp = fp + nl;
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
                        let site = &store.dyn_probes.sites[k as usize];
                        (site.probes.clone(), site.original)
                    };
                    // B3: the list is a snapshot; probes inserted now fire next time,
                    // removed ones still fire this time.
                    for p in list.iter() {
                        if let Err(t) = store.invoke(p.func, &[]) {
                            if t.exit_code().is_some() {
                                break 'exec Err(t);
                            }
                            let at =
                                trap_at(store, &code, ip_index!() - 1, inst, TrapKind::Unreachable)
                                    .site
                                    .expect("site");
                            let msg = format!(
                                "dynamic probe {} trapped: {t} (probe at {} (func {}) pc 0x{:x})",
                                p.id, at.func_name, at.func, at.pc
                            );
                            break 'exec Err(Trap::host(msg));
                        }
                    }
                    refresh_mem!();
                    op = original;
                    continue 'redo;
                }
                Op::Probe(k) => {
                    let c = code.clone();
                    for call in &c.probes[k as usize] {
                        let args: Vec<Value> = call
                            .types
                            .iter()
                            .zip(&call.args)
                            .map(|(t, a)| match a {
                                ArgSource::Const(v) => Value::from_slot(*t, *v),
                                ArgSource::Operand(n) => {
                                    Value::from_slot(*t, rd!(sp - 1 - *n as usize))
                                }
                                ArgSource::Local(n) => Value::from_slot(*t, rd!(fp + *n as usize)),
                                ArgSource::Frame => Value::ExternRef(Some(serial)),
                            })
                            .collect();
                        let prev_view = if call.operand_types.is_some() {
                            let mut chain = Vec::with_capacity(frames.len() + 1);
                            for (i, fr) in frames.iter().enumerate() {
                                let top = frames.get(i + 1).map_or(fp, |n| n.fp) - base;
                                let pc =
                                    fr.code.pcs.get(fr.ip.wrapping_sub(1)).copied().unwrap_or(0);
                                chain.push(FrameInfo {
                                    serial: fr.serial,
                                    fp: fr.fp - base,
                                    top,
                                    code: fr.code.clone(),
                                    pc,
                                    operand_types: None,
                                });
                            }
                            let pc = code.pcs[ip_index!() - 1];
                            chain.push(FrameInfo {
                                serial,
                                fp: fp - base,
                                top: sp - base,
                                code: code.clone(),
                                pc,
                                operand_types: call.operand_types.clone(),
                            });
                            let view = FrameView {
                                stack: sb,
                                len: slen,
                                frames: chain,
                            };
                            Some(store.frame_view.replace(view))
                        } else {
                            None
                        };
                        let r = store.invoke(call.func, &args);
                        if let Some(prev) = prev_view {
                            store.frame_view = prev;
                        }
                        if let Err(t) = r {
                            if t.exit_code().is_some() {
                                break 'exec Err(t);
                            }
                            let at =
                                trap_at(store, &code, ip_index!() - 1, inst, TrapKind::Unreachable)
                                    .site
                                    .expect("site");
                            let msg = format!(
                                "{} trapped: {t} (probe at {} (func {}) pc 0x{:x})",
                                call.origin, at.func_name, at.func, at.pc
                            );
                            break 'exec Err(Trap::host(msg));
                        }
                    }
                    // A probe call may have grown memories.
                    refresh_mem!();
                }
            }
            break 'redo;
        }
    };
    result
}
