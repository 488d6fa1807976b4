//! The interpreter's hot loop: straight-line ops (numeric, locals, globals,
//! branches, loads and stores, superinstructions).
//!
//! [`run`] makes no calls into the store, so its loop-carried state (`ip`,
//! `sp`, `fp`, the memory 0 cache) stays in machine registers. Anything else
//! (calls, returns, probes, bulk memory, tables, traps) ends the loop with an
//! [`Exit`]; `exec.rs` handles it and re-enters.

use super::code::*;
use crate::error::TrapKind;
use crate::store::{GlobalInst, MemoryInst};
use crate::types::{GlobalAddr, MemAddr};

/// A value stack slot address. Arithmetic is wrapping pointer arithmetic
/// (safe); only `rd!`/`wr!`/`copy_slots!` dereference, under the invariant
/// stated at [`Regs`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) struct Slot(pub(super) *mut u64);

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

/// The interpreter's registers, handed to [`run`] and written back when it exits.
///
/// SAFETY invariants (established by `exec.rs` before every [`run`]):
/// * `ops` points to the current function's `Compiled::ops` (kept alive by the
///   caller's `Arc`) and `ip` into it; every body ends in `Return` and branch
///   targets are op indices, so every fetch is in bounds. `br_tables` is that
///   function's `Compiled::br_tables`; `BrTable` indices are in range by
///   translation.
/// * every slot `rd!`/`wr!`/`copy_slots!` touch is in `[base, base + slen)`:
///   frame entry checks `fp + num_locals + max_height <= slen`, and
///   validation bounds local indices by `num_locals` and operand heights (also
///   of fused ops, which never exceed those of the instructions they replace)
///   by `max_height`.
/// * `mem_base`/`mem_len` describe the current instance's memory 0 buffer
///   (null/0 without one); `globals`/`inst_globals` are `Store::globals` and the
///   instance's global addresses, `memories`/`inst_mems` `Store::memories` and the
///   instance's memory addresses. Nothing else accesses the store while `run`
///   executes, so these stay valid until it returns.
pub(super) struct Regs {
    pub(super) ip: *const std::cell::Cell<Op>,
    pub(super) ops: *const std::cell::Cell<Op>,
    pub(super) sp: Slot,
    pub(super) fp: Slot,
    pub(super) base: Slot,
    pub(super) slen: usize,
    pub(super) mem_base: *mut u8,
    pub(super) mem_len: u64,
    pub(super) br_tables: *const BrTarget,
    pub(super) globals: *mut Box<GlobalInst>,
    pub(super) inst_globals: *const GlobalAddr,
    pub(super) memories: *mut MemoryInst,
    pub(super) inst_mems: *const MemAddr,
}

/// Why [`run`] returned.
pub(super) enum Exit {
    /// An op the hot loop does not execute (already fetched: `ip` is past it;
    /// the pointer is `first` or into `code.ops`).
    Cold(*const Op),
    /// The op before `ip` trapped.
    Trap(TrapKind),
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

/// Base and length of the current instance's memory `mem` (memory 0 is cached
/// in [`Regs`]).
///
/// # Safety
/// The [`Regs`] invariants hold and `mem` is a validated memory index.
#[cold]
#[inline(never)]
unsafe fn other_memory(r: &Regs, mem: u32) -> (*mut u8, u64) {
    // SAFETY: `inst_mems`/`memories` are live and `mem` is in range (see above).
    unsafe {
        let m = &mut *r.memories.add((*r.inst_mems.add(mem as usize)).0 as usize);
        (m.data.as_mut_ptr(), m.data.len() as u64)
    }
}

/// Executes ops starting with `*first` (already fetched: an op of `code.ops`
/// or a dynamic probe's original op) until one needs the store; see [`Regs`]
/// for the invariants the caller guarantees.
///
/// Ops are matched in place through a pointer (copying the enum out makes
/// the compiler keep it in a stack slot, on the dispatch path).
#[inline(never)]
pub(super) unsafe fn run(r: &mut Regs, first: *const Op) -> Exit {
    // Pin this function's code to a fixed offset from a 4 KiB boundary (the
    // padding is jumped over). Its speed depends on that placement: builds of
    // identical code ran up to 1.9x apart depending on where the linker put it
    // (AMD Zen; the dispatch's indirect jump stalls). With the pin, the layout
    // only changes when this function's code does; the offset puts the dispatch
    // at 0xee0 mod 4096, the fastest of the placements measured. Re-measure
    // (and re-tune the `.nops`) after changing this function.
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a jump over alignment padding; touches no state.
    unsafe {
        std::arch::asm!(
            "jmp 2f",
            ".p2align 12",
            ".nops 0xe60",
            "2:",
            options(nomem, nostack, preserves_flags)
        )
    };
    let mut opp = first;
    let mut ip = r.ip;
    let ops = r.ops;
    let mut sp = r.sp;
    let fp = r.fp;
    let base = r.base;
    let slen = r.slen;
    let mem_base = r.mem_base;
    let mem_len = r.mem_len;
    macro_rules! exit {
        ($e:expr) => {{
            r.ip = ip;
            r.sp = sp;
            return $e;
        }};
    }
    macro_rules! trap {
        ($kind:expr) => {
            exit!(Exit::Trap($kind))
        };
    }
    macro_rules! rd {
        ($i:expr) => {{
            let p: Slot = $i;
            debug_assert!(p.0 >= base.0 && p - base < slen);
            // SAFETY: see the invariant at `Regs`.
            unsafe { *p.0 }
        }};
    }
    macro_rules! wr {
        ($i:expr, $v:expr) => {{
            let v: u64 = $v;
            let p: Slot = $i;
            debug_assert!(p.0 >= base.0 && p - base < slen);
            // SAFETY: see the invariant at `Regs`.
            unsafe { *p.0 = v }
        }};
    }
    macro_rules! copy_slots {
        ($from:expr, $to:expr, $n:expr) => {{
            let (from, to, n): (Slot, Slot, usize) = ($from, $to, $n);
            debug_assert!(
                from.0 >= base.0
                    && to.0 >= base.0
                    && (from - base) + n <= slen
                    && (to - base) + n <= slen
            );
            // SAFETY: both ranges are within the frame (invariant at `Regs`); `copy` allows overlap.
            unsafe { std::ptr::copy(from.0, to.0, n) }
        }};
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
    // `$n` bytes of memory 0 at effective address `$a` (u64), or a trap.
    // `$n` bytes at effective address `$a` (u64) of the memory whose buffer is
    // `$base`/`$len`, or a trap.
    macro_rules! load_at {
        ($base:expr, $len:expr, $a:expr, $n:literal) => {{
            let (base, len, a): (*mut u8, u64, u64) = ($base, $len, $a);
            if a + $n > len {
                trap!(TrapKind::MemoryOutOfBounds);
            }
            // SAFETY: a + n <= len, and (base, len) describe a memory's current
            // buffer (invariant at `Regs`).
            unsafe { std::ptr::read_unaligned(base.add(a as usize) as *const [u8; $n]) }
        }};
    }
    macro_rules! load0 {
        ($a:expr, $n:literal) => {
            load_at!(mem_base, mem_len, $a, $n)
        };
    }
    // Buffer of memory `$m.mem`: memory 0 is cached.
    macro_rules! mem_of {
        ($m:expr) => {
            if $m.mem == 0 {
                (mem_base, mem_len)
            } else {
                // SAFETY: `Regs` invariant; the index is validated.
                unsafe { other_memory(r, $m.mem) }
            }
        };
    }
    macro_rules! load {
        ($m:expr, $n:literal, |$b:ident| $conv:expr) => {{
            let (base, len) = mem_of!($m);
            let a = rd!(sp - 1) as u32 as u64 + $m.offset as u64;
            let $b: [u8; $n] = load_at!(base, len, a, $n);
            wr!(sp - 1, $conv);
        }};
    }
    macro_rules! store_ {
        ($m:expr, $n:literal, |$v:ident| $conv:expr) => {{
            let (base, len) = mem_of!($m);
            let $v = rd!(sp - 1);
            let a = rd!(sp - 2) as u32 as u64 + $m.offset as u64;
            if a + $n > len {
                trap!(TrapKind::MemoryOutOfBounds);
            }
            sp -= 2;
            let bytes: [u8; $n] = $conv;
            // SAFETY: as in `load_at!`.
            unsafe { std::ptr::write_unaligned(base.add(a as usize) as *mut [u8; $n], bytes) }
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
    loop {
        // The dispatch sequence (fetch, bounds check, table jump) must not
        // straddle a 32-byte fetch window (see the pin above).
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an assembler alignment directive (NOP padding); touches no state.
        unsafe {
            std::arch::asm!(".p2align 5", options(nomem, nostack, preserves_flags))
        };
        // SAFETY: `opp` is `first` (valid for this call) or was fetched from
        // `code.ops` (invariant at `Regs`); nothing patches ops while `run` executes.
        let op: &Op = unsafe { &*opp };
        match *op {
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
                // SAFETY: `start + len` is within `br_tables` (invariant at `Regs`).
                let b = unsafe { *r.br_tables.add((start + i) as usize) };
                do_br!(b);
            }
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
            // SAFETY (globals): `g` is validated against the instance's globals and
            // `inst_globals`/`globals` are live (invariant at `Regs`).
            Op::GlobalGet(g) => push!(unsafe {
                let ga = (*r.inst_globals.add(g as usize)).0 as usize;
                (**r.globals.add(ga)).value
            }),
            Op::GlobalSet(g) => {
                let v = pop!();
                unsafe {
                    let ga = (*r.inst_globals.add(g as usize)).0 as usize;
                    (**r.globals.add(ga)).value = v;
                }
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
                let x = match *op {
                    Op::I32TruncF32S | Op::I32TruncF32U | Op::I64TruncF32S | Op::I64TruncF32U => {
                        f32::from_bits(s as u32) as f64
                    }
                    _ => f64::from_bits(s),
                };
                let r = match *op {
                    Op::I32TruncF32S | Op::I32TruncF64S => {
                        trunc_check(x, -2147483649.0, 2147483648.0).map(|v| v as i32 as u32 as u64)
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
            Op::I32AddMulLC { a, c } => {
                let v = (loc!(a) as u32).wrapping_mul(c);
                set_top!((top!() as u32).wrapping_add(v) as u64);
            }
            Op::I32AddShlLC { a, c } => {
                let v = (loc!(a) as u32).wrapping_shl(c);
                set_top!((top!() as u32).wrapping_add(v) as u64);
            }
            Op::I32Add3 => {
                let z = rd!(sp - 1) as u32;
                let y = rd!(sp - 2) as u32;
                let x = rd!(sp - 3) as u32;
                sp -= 2;
                set_top!(x.wrapping_add(y).wrapping_add(z) as u64);
            }
            Op::I32AddS(dst) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                put!(dst, a.wrapping_add(b) as u64);
            }
            Op::F64Add3 => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!((x + (y + z)).to_bits());
            }
            Op::F64MulAdd => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!((x + y * z).to_bits());
            }
            Op::LocalGet2(a, b) => {
                push!(loc!(a));
                push!(loc!(b));
            }
            Op::TeeGet(a, b) => {
                wr!(fp + a as usize, top!());
                push!(loc!(b));
            }
            Op::I32LoadSS { off } => {
                let b = pop!() as u32;
                let a = (top!() as u32).wrapping_add(b) as u64 + off as u64;
                set_top!(u32::from_le_bytes(load0!(a, 4)) as u64);
            }
            Op::I64LoadSS { off } => {
                let b = pop!() as u32;
                let a = (top!() as u32).wrapping_add(b) as u64 + off as u64;
                set_top!(u64::from_le_bytes(load0!(a, 8)));
            }
            Op::I32LoadLS { a, off, dst } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 4);
                put!(dst, u32::from_le_bytes(b) as u64);
            }
            Op::I64LoadLS { a, off, dst } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 8);
                put!(dst, u64::from_le_bytes(b));
            }
            Op::I32LoadSLS { b, off, dst } => {
                let a = (pop!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                put!(dst, u32::from_le_bytes(load0!(a, 4)) as u64);
            }
            Op::I64LoadSLS { b, off, dst } => {
                let a = (pop!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                put!(dst, u64::from_le_bytes(load0!(a, 8)));
            }
            Op::F64AddLoadSS { off } => {
                let q = rd!(sp - 1) as u32;
                let p = rd!(sp - 2) as u32;
                let y = f64::from_bits(u64::from_le_bytes(load0!(
                    p.wrapping_add(q) as u64 + off as u64,
                    8
                )));
                sp -= 2;
                let x = f64::from_bits(top!());
                set_top!((x + y).to_bits());
            }
            Op::LocalCopy { src, dst } => wr!(fp + dst as usize, loc!(src)),
            Op::LocalSetConst { dst, c } => wr!(fp + dst as usize, c),
            Op::Nop => {}
            _ => exit!(Exit::Cold(opp)),
        }
        // SAFETY: `ip` is in bounds (invariant at `Regs`). Cells may be patched by
        // dynamic probes, but only while `run` is not executing.
        opp = unsafe { (*ip).as_ptr() };
        ip = ip.wrapping_add(1);
    }
}
