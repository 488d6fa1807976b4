//! Handlers: SIMD. A `v128` takes two slots, its low half deeper, so the
//! top operand register holds the high half of a `v128` on top. The lane
//! semantics are in `interp::simd`; these handlers move values and do the
//! bounds-checked memory accesses.

use super::*;
use crate::exec::interp::simd::{self, LaneOp, MemOp, SimdOp};
use crate::exec::interp::simd_fast;

impl Zero for u8 {
    const ZERO: u8 = 0;
}
impl Zero for SimdOp {
    const ZERO: SimdOp = SimdOp::V128Not;
}
impl Zero for LaneOp {
    const ZERO: LaneOp = LaneOp::I8x16ExtractS;
}
impl Zero for MemOp {
    const ZERO: MemOp = MemOp::Load;
}

#[inline(always)]
fn join(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}

#[inline(always)]
fn halves(v: u128) -> (u64, u64) {
    (v as u64, (v >> 64) as u64)
}

handlers! {
    group: simd_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_LocalGet128: Op::LocalGet128(i) => {
                push!(loc!(i));
                push!(loc!(i + 1));
            },
    h_LocalSet128: Op::LocalSet128(i) => {
                let hi = pop!();
                let lo = pop!();
                wr!(fp + i as usize, lo);
                wr!(fp + i as usize + 1, hi);
            },
    h_LocalTee128: Op::LocalTee128(i) => {
                wr!(fp + i as usize, rd!(sp - 2));
                wr!(fp + i as usize + 1, top!());
            },
    // SAFETY (globals): `g` is validated against the instance's globals and
    // `inst_globals`/`globals` are live (invariant at `Regs`).
    h_GlobalGet128: Op::GlobalGet128(g) => {
                let (lo, hi) = unsafe {
                    let gi = &**r.globals.add((*r.inst_globals.add(g as usize)).0 as usize);
                    (gi.value, gi.hi)
                };
                push!(lo);
                push!(hi);
            },
    h_GlobalSet128: Op::GlobalSet128(g) => {
                let hi = pop!();
                let lo = pop!();
                unsafe {
                    let gi = &mut **r.globals.add((*r.inst_globals.add(g as usize)).0 as usize);
                    (gi.value, gi.hi) = (lo, hi);
                }
            },
    h_Select128: Op::Select128 => {
                let c = pop!() as u32;
                let (b_lo, b_hi) = (rd!(sp - 2), top!());
                shrink!(2);
                if c == 0 {
                    wr!(sp - 2, b_lo);
                    set_top!(b_hi);
                }
            },
    // SAFETY (constants): `k` indexes the running function's `v128_consts`
    // (by translation) and `code` is that function (invariant at `Regs`).
    h_V128Const: Op::V128Const(k) => {
                let (lo, hi) = halves(unsafe { (&(*r.code).v128_consts)[k as usize] });
                push!(lo);
                push!(hi);
            },
    // SAFETY (constants): as for `V128Const`; the lanes and masks follow
    // each other from `k`.
    h_Shuffle: Op::Shuffle(k) => {
                let k = unsafe { &(&(*r.code).v128_consts)[k as usize..] };
                let b = join(rd!(sp - 2), top!());
                let a = join(rd!(sp - 4), rd!(sp - 3));
                sp -= 2;
                let (lo, hi) = halves(simd_fast::shuffle_by(a, b, k));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    h_SimdUnary: Op::SimdUnary(o) => {
                let (lo, hi) = halves(simd::unary(o, join(rd!(sp - 2), top!())));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    h_SimdBinary: Op::SimdBinary(o) => {
                let b = join(rd!(sp - 2), top!());
                let a = join(rd!(sp - 4), rd!(sp - 3));
                sp -= 2;
                let (lo, hi) = halves(binary(o, a, b));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    // SAFETY (constants): as for `V128Const`.
    h_SimdBinaryK: Op::SimdBinaryK { o, k } => {
                let b = unsafe { (&(*r.code).v128_consts)[k as usize] };
                let a = join(rd!(sp - 2), top!());
                let (lo, hi) = halves(binary(o, a, b));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    h_SimdBinary2: Op::SimdBinary2 { o1, o2 } => {
                let c = join(rd!(sp - 2), top!());
                let b = join(rd!(sp - 4), rd!(sp - 3));
                let a = join(rd!(sp - 6), rd!(sp - 5));
                sp -= 4;
                let (lo, hi) = halves(binary(o2, a, binary(o1, b, c)));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    // SAFETY (constants): as for `V128Const`.
    h_SimdBinaryK2: Op::SimdBinaryK2 { o1, o2, k } => {
                let c = unsafe { (&(*r.code).v128_consts)[k as usize] };
                let b = join(rd!(sp - 2), top!());
                let a = join(rd!(sp - 4), rd!(sp - 3));
                sp -= 2;
                let (lo, hi) = halves(binary(o2, a, binary(o1, b, c)));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    h_V128Load32Splat: Op::V128Load32Splat(m) => {
                let (base, len) = mem_of!(m);
                let a = top!() as u32 as u64 + m.offset as u64;
                let x = u32::from_le_bytes(load_at!(base, len, a, 4)) as u64;
                set_top!(x | x << 32);
                push!(x | x << 32);
            },
    h_V128Load32SplatLC: Op::V128Load32SplatLC { a: l, c, off } => {
                let a = (loc!(l) as u32).wrapping_add(c) as u64 + off as u64;
                let x = u32::from_le_bytes(load0!(a, 4)) as u64;
                push!(x | x << 32);
                push!(x | x << 32);
            },
    h_SimdTernary: Op::SimdTernary(o) => {
                let c = join(rd!(sp - 2), top!());
                let b = join(rd!(sp - 4), rd!(sp - 3));
                let a = join(rd!(sp - 6), rd!(sp - 5));
                sp -= 4;
                let r = if o == SimdOp::V128Bitselect {
                    (a & c) | (b & !c)
                } else {
                    simd::ternary(o, a, b, c)
                };
                let (lo, hi) = halves(r);
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    h_SimdTest: Op::SimdTest(o) => {
                let v = join(rd!(sp - 2), top!());
                sp -= 1;
                set_top!(simd::test(o, v) as u64);
            },
    h_SimdShift: Op::SimdShift(o) => {
                let n = pop!() as u32;
                let (lo, hi) = halves(simd::shift(o, join(rd!(sp - 2), top!()), n));
                wr!(sp - 2, lo);
                set_top!(hi);
            },
    h_SimdSplat: Op::SimdSplat(o) => {
                let x = top!();
                let (lo, hi) = halves(simd_fast::splat(o, x).unwrap_or_else(|| simd::splat(o, x)));
                set_top!(lo);
                push!(hi);
            },
    h_SimdLane: Op::SimdLane { kind, lane } => {
                if kind.is_replace() {
                    let x = pop!();
                    let v = join(rd!(sp - 2), top!());
                    let (lo, hi) = halves(simd::replace_lane(kind, v, lane, x));
                    wr!(sp - 2, lo);
                    set_top!(hi);
                } else {
                    let v = join(rd!(sp - 2), top!());
                    sp -= 1;
                    set_top!(simd::extract_lane(kind, v, lane));
                }
            },
    h_V128Load: Op::V128Load(m) => {
                let (base, len) = mem_of!(m);
                let a = top!() as u32 as u64 + m.offset as u64;
                let (lo, hi) = halves(u128::from_le_bytes(load_at!(base, len, a, 16)));
                set_top!(lo);
                push!(hi);
            },
    h_V128Store: Op::V128Store(m) => {
                let (base, len) = mem_of!(m);
                let v = join(rd!(sp - 2), top!());
                let a = rd!(sp - 3) as u32 as u64 + m.offset as u64;
                if a + 16 > len {
                    trap!(TrapKind::MemoryOutOfBounds);
                }
                // SAFETY: a + 16 <= len, and (base, len) describe a memory's
                // current buffer (invariant at `Regs`).
                unsafe { std::ptr::write_unaligned(base.add(a as usize) as *mut [u8; 16], v.to_le_bytes()) };
                shrink!(3);
            },
    // Loads and stores of at most 8 bytes (v128.load/store have their own ops).
    h_SimdMem: Op::SimdMem { kind, lane, m } => {
                let (base, len) = mem_of!(m);
                // Lane forms and stores have a v128 above the address.
                let lane_form = kind.is_store() || is_lane_load(kind);
                let addr = if lane_form { rd!(sp - 3) } else { top!() };
                let a = addr as u32 as u64 + m.offset as u64;
                if kind.is_store() {
                    let x = simd::store_lane(kind, join(rd!(sp - 2), top!()), lane);
                    let w = kind.width() as u64;
                    if a + w > len {
                        trap!(TrapKind::MemoryOutOfBounds);
                    }
                    // SAFETY: a + w <= len, and (base, len) describe a memory's
                    // current buffer (invariant at `Regs`); w <= 8.
                    unsafe { std::ptr::copy_nonoverlapping(x.to_le_bytes().as_ptr(), base.add(a as usize), w as usize) };
                    shrink!(3);
                } else {
                    let bytes = match kind.width() {
                        1 => load_at!(base, len, a, 1)[0] as u64,
                        2 => u16::from_le_bytes(load_at!(base, len, a, 2)) as u64,
                        4 => u32::from_le_bytes(load_at!(base, len, a, 4)) as u64,
                        _ => u64::from_le_bytes(load_at!(base, len, a, 8)),
                    };
                    if lane_form {
                        let v = join(rd!(sp - 2), top!());
                        let (lo, hi) = halves(simd::load_lane(kind, v, lane, bytes));
                        sp -= 1;
                        wr!(sp - 2, lo);
                        set_top!(hi);
                    } else {
                        let (lo, hi) = halves(simd_fast::load(kind, bytes));
                        set_top!(lo);
                        push!(hi);
                    }
                }
            },
}

/// A binary op: the host's vector form, the fast lane-array path or the
/// reference (`simd_fast::binary_any`).
#[inline(always)]
fn binary(o: SimdOp, a: u128, b: u128) -> u128 {
    simd_fast::binary_any(o, a, b)
}

/// The lane loads (a v128 operand besides the address).
#[inline(always)]
fn is_lane_load(kind: MemOp) -> bool {
    matches!(
        kind,
        MemOp::Load8Lane | MemOp::Load16Lane | MemOp::Load32Lane | MemOp::Load64Lane
    )
}
