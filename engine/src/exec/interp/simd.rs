//! Pure semantics of the Wasm fixed-width SIMD instructions (Wasm 2.0) and of
//! relaxed SIMD, on `u128` values with little-endian lanes (lane 0 holds the
//! lowest bits). The interpreter does the stack and memory plumbing and calls
//! these functions; nothing here traps.
//!
//! Float NaN results: arithmetic uses the host's IEEE operations. `min` and
//! `max` (and relaxed min/max) produce the NaN bits of Cranelift's x86-64
//! lowering, so that the tiers agree bit for bit even where a program looks
//! at a NaN's bits (the spec allows any NaN there; dyn runs a function
//! interpreted and compiled in turn): `min` gives the negative canonical NaN
//! (`0xffc0_0000`, `0xfff8_0000_0000_0000`), `max` the canonical NaN with the
//! sign bit of `a | b` (differential seed 40757 saw `f32x4.min`'s NaN through
//! `i16x8.extend_low_i8x16_s`).
//!
//! Relaxed SIMD uses the deterministic lowering of cranelift-wasm 0.112
//! (`relaxed_simd_deterministic() == true`), so the interpreter and the JIT
//! agree:
//! - `i8x16.relaxed_swizzle` = `i8x16.swizzle` (indices >= 16 give 0).
//! - `i32x4.relaxed_trunc_f32x4_{s,u}` = `i32x4.trunc_sat_f32x4_{s,u}` (saturate, NaN -> 0).
//! - `i32x4.relaxed_trunc_f64x2_{s,u}_zero` = `i32x4.trunc_sat_f64x2_{s,u}_zero`.
//! - `f32x4/f64x2.relaxed_madd(a, b, c)` = fused `fma(a, b, c)`, one rounding.
//! - `f32x4/f64x2.relaxed_nmadd(a, b, c)` = fused `fma(-a, b, c)`, one rounding;
//!   a NaN `a` is not negated (Cranelift emits `vfnmadd`, which negates the
//!   product, not the NaN operand).
//! - `i{8x16,16x8,32x4,64x2}.relaxed_laneselect(a, b, m)` = `v128.bitselect(a, b, m)` (bitwise).
//! - `f32x4/f64x2.relaxed_min/max` = `f32x4/f64x2.min/max` (NaN-propagating, -0 < +0).
//! - `i16x8.relaxed_q15mulr_s` = `i16x8.q15mulr_sat_s` (rounds, saturates).
//! - `i16x8.relaxed_dot_i8x16_i7x16_s`: both operands signed, lane i =
//!   `a[2i]*b[2i] + a[2i+1]*b[2i+1]` with the sum wrapping in i16 (no saturation).
//! - `i32x4.relaxed_dot_i8x16_i7x16_add_s`: that wrapped i16x8 dot, then lane j =
//!   `dot[2j] + dot[2j+1]` (sign-extended to i32) `+ c[j]`, wrapping in i32.

use std::cmp::Ordering;
use std::ops::Add;

use wasmparser::{MemArg, Operator};

use crate::core::types::ValType;

/// How an op uses the operand stack.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// v128 -> v128
    Unary,
    /// v128 v128 -> v128
    Binary,
    /// v128 v128 v128 -> v128 (bitselect, relaxed madd/nmadd/laneselect/dot-add)
    Ternary,
    /// v128 -> i32 (any_true, all_true, bitmask)
    Test,
    /// v128 i32 -> v128
    Shift,
    /// scalar (i32, i64, f32 or f64 as raw bits) -> v128
    Splat,
}

/// Declares [`SimdOp`] (variant names are wasmparser's operator names), its
/// operator mapping and its shape from one list grouped by shape.
macro_rules! simd_ops {
    ($($shape:ident { $($op:ident)* })*) => {
        /// Every SIMD instruction without a memory or lane immediate, and
        /// without v128.const / i8x16.shuffle.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum SimdOp {
            $($($op,)*)*
        }

        impl SimdOp {
            /// All the ops, in declaration order.
            pub const ALL: &'static [SimdOp] = &[$($(SimdOp::$op,)*)*];

            /// The SimdOp of a wasmparser operator, None for anything else
            /// (including loads/stores, lane ops, v128.const, i8x16.shuffle).
            pub fn from_operator(op: &Operator<'_>) -> Option<SimdOp> {
                Some(match op {
                    $($(Operator::$op => SimdOp::$op,)*)*
                    _ => return None,
                })
            }

            /// How the op uses the operand stack.
            pub fn shape(self) -> Shape {
                match self {
                    $($(SimdOp::$op)|* => Shape::$shape,)*
                }
            }
        }
    };
}

simd_ops! {
    Splat {
        I8x16Splat I16x8Splat I32x4Splat I64x2Splat F32x4Splat F64x2Splat
    }
    Test {
        V128AnyTrue
        I8x16AllTrue I8x16Bitmask I16x8AllTrue I16x8Bitmask
        I32x4AllTrue I32x4Bitmask I64x2AllTrue I64x2Bitmask
    }
    Shift {
        I8x16Shl I8x16ShrS I8x16ShrU I16x8Shl I16x8ShrS I16x8ShrU
        I32x4Shl I32x4ShrS I32x4ShrU I64x2Shl I64x2ShrS I64x2ShrU
    }
    Ternary {
        V128Bitselect
        F32x4RelaxedMadd F32x4RelaxedNmadd F64x2RelaxedMadd F64x2RelaxedNmadd
        I8x16RelaxedLaneselect I16x8RelaxedLaneselect
        I32x4RelaxedLaneselect I64x2RelaxedLaneselect
        I32x4RelaxedDotI8x16I7x16AddS
    }
    Unary {
        V128Not
        I8x16Abs I8x16Neg I8x16Popcnt
        I16x8ExtAddPairwiseI8x16S I16x8ExtAddPairwiseI8x16U I16x8Abs I16x8Neg
        I16x8ExtendLowI8x16S I16x8ExtendHighI8x16S I16x8ExtendLowI8x16U I16x8ExtendHighI8x16U
        I32x4ExtAddPairwiseI16x8S I32x4ExtAddPairwiseI16x8U I32x4Abs I32x4Neg
        I32x4ExtendLowI16x8S I32x4ExtendHighI16x8S I32x4ExtendLowI16x8U I32x4ExtendHighI16x8U
        I64x2Abs I64x2Neg
        I64x2ExtendLowI32x4S I64x2ExtendHighI32x4S I64x2ExtendLowI32x4U I64x2ExtendHighI32x4U
        F32x4Ceil F32x4Floor F32x4Trunc F32x4Nearest F32x4Abs F32x4Neg F32x4Sqrt
        F64x2Ceil F64x2Floor F64x2Trunc F64x2Nearest F64x2Abs F64x2Neg F64x2Sqrt
        I32x4TruncSatF32x4S I32x4TruncSatF32x4U F32x4ConvertI32x4S F32x4ConvertI32x4U
        I32x4TruncSatF64x2SZero I32x4TruncSatF64x2UZero
        F64x2ConvertLowI32x4S F64x2ConvertLowI32x4U
        F32x4DemoteF64x2Zero F64x2PromoteLowF32x4
        I32x4RelaxedTruncF32x4S I32x4RelaxedTruncF32x4U
        I32x4RelaxedTruncF64x2SZero I32x4RelaxedTruncF64x2UZero
    }
    Binary {
        I8x16Swizzle I8x16RelaxedSwizzle
        V128And V128AndNot V128Or V128Xor
        I8x16Eq I8x16Ne I8x16LtS I8x16LtU I8x16GtS I8x16GtU
        I8x16LeS I8x16LeU I8x16GeS I8x16GeU
        I16x8Eq I16x8Ne I16x8LtS I16x8LtU I16x8GtS I16x8GtU
        I16x8LeS I16x8LeU I16x8GeS I16x8GeU
        I32x4Eq I32x4Ne I32x4LtS I32x4LtU I32x4GtS I32x4GtU
        I32x4LeS I32x4LeU I32x4GeS I32x4GeU
        I64x2Eq I64x2Ne I64x2LtS I64x2GtS I64x2LeS I64x2GeS
        F32x4Eq F32x4Ne F32x4Lt F32x4Gt F32x4Le F32x4Ge
        F64x2Eq F64x2Ne F64x2Lt F64x2Gt F64x2Le F64x2Ge
        I8x16NarrowI16x8S I8x16NarrowI16x8U
        I8x16Add I8x16AddSatS I8x16AddSatU I8x16Sub I8x16SubSatS I8x16SubSatU
        I8x16MinS I8x16MinU I8x16MaxS I8x16MaxU I8x16AvgrU
        I16x8Q15MulrSatS I16x8NarrowI32x4S I16x8NarrowI32x4U
        I16x8Add I16x8AddSatS I16x8AddSatU I16x8Sub I16x8SubSatS I16x8SubSatU I16x8Mul
        I16x8MinS I16x8MinU I16x8MaxS I16x8MaxU I16x8AvgrU
        I16x8ExtMulLowI8x16S I16x8ExtMulHighI8x16S I16x8ExtMulLowI8x16U I16x8ExtMulHighI8x16U
        I16x8RelaxedQ15mulrS I16x8RelaxedDotI8x16I7x16S
        I32x4Add I32x4Sub I32x4Mul I32x4MinS I32x4MinU I32x4MaxS I32x4MaxU I32x4DotI16x8S
        I32x4ExtMulLowI16x8S I32x4ExtMulHighI16x8S I32x4ExtMulLowI16x8U I32x4ExtMulHighI16x8U
        I64x2Add I64x2Sub I64x2Mul
        I64x2ExtMulLowI32x4S I64x2ExtMulHighI32x4S I64x2ExtMulLowI32x4U I64x2ExtMulHighI32x4U
        F32x4Add F32x4Sub F32x4Mul F32x4Div F32x4Min F32x4Max F32x4PMin F32x4PMax
        F64x2Add F64x2Sub F64x2Mul F64x2Div F64x2Min F64x2Max F64x2PMin F64x2PMax
        F32x4RelaxedMin F32x4RelaxedMax F64x2RelaxedMin F64x2RelaxedMax
    }
}

impl SimdOp {
    /// For Splat: the scalar type popped.
    pub fn splat_type(self) -> Option<ValType> {
        match self {
            SimdOp::I8x16Splat | SimdOp::I16x8Splat | SimdOp::I32x4Splat => Some(ValType::I32),
            SimdOp::I64x2Splat => Some(ValType::I64),
            SimdOp::F32x4Splat => Some(ValType::F32),
            SimdOp::F64x2Splat => Some(ValType::F64),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------
// Lane access
// ---------------------------------------------------------------------------

/// A lane type: its width and a raw-bits round trip (`raw` zero-extends).
trait Lane: Copy {
    const BITS: u32;
    fn from_raw(bits: u64) -> Self;
    fn raw(self) -> u64;
}

macro_rules! int_lane {
    ($($t:ty => $u:ty),*) => {$(
        impl Lane for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn from_raw(bits: u64) -> Self {
                bits as $t
            }
            #[inline]
            fn raw(self) -> u64 {
                u64::from(self as $u)
            }
        }
    )*};
}
int_lane!(i8 => u8, u8 => u8, i16 => u16, u16 => u16, i32 => u32, u32 => u32, i64 => u64, u64 => u64);

impl Lane for f32 {
    const BITS: u32 = 32;
    #[inline]
    fn from_raw(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    #[inline]
    fn raw(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Lane for f64 {
    const BITS: u32 = 64;
    #[inline]
    fn from_raw(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    #[inline]
    fn raw(self) -> u64 {
        self.to_bits()
    }
}

/// Number of `T` lanes in a v128.
#[inline]
fn count<T: Lane>() -> u32 {
    128 / T::BITS
}

/// Lane `i` of `v` read as `T`.
#[inline]
fn lane<T: Lane>(v: u128, i: u32) -> T {
    T::from_raw((v >> (i * T::BITS)) as u64)
}

/// All-ones in the low `bits` bits.
#[inline]
fn ones(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

/// `v` with lane `i` (of `bits` width) replaced by the low bits of `x`.
#[inline]
fn set_lane(v: u128, bits: u32, i: u32, x: u64) -> u128 {
    let shift = i * bits;
    (v & !(ones(bits) << shift)) | ((u128::from(x) & ones(bits)) << shift)
}

/// A v128 whose lane `i` is `f(i)`.
#[inline]
fn build<T: Lane>(f: impl Fn(u32) -> T) -> u128 {
    (0..count::<T>()).fold(0, |acc, i| acc | (u128::from(f(i).raw()) << (i * T::BITS)))
}

/// Lane-wise map between lane types of the same width.
#[inline]
fn map<T: Lane, U: Lane>(a: u128, f: impl Fn(T) -> U) -> u128 {
    build(|i| f(lane(a, i)))
}

/// Lane-wise binary op.
#[inline]
fn zip<T: Lane>(a: u128, b: u128, f: impl Fn(T, T) -> T) -> u128 {
    build(|i| f(lane(a, i), lane(b, i)))
}

/// Lane-wise comparison: all-ones lanes where `f` holds, zero elsewhere.
#[inline]
fn compare<T: Lane>(a: u128, b: u128, f: impl Fn(T, T) -> bool) -> u128 {
    (0..count::<T>())
        .filter(|&i| f(lane(a, i), lane(b, i)))
        .fold(0, |acc, i| acc | (ones(T::BITS) << (i * T::BITS)))
}

/// Widening: result lane `i` is `f(a[i + first])` (first = 0 for low, half for high).
#[inline]
fn widen<T: Lane, U: Lane>(a: u128, first: u32, f: impl Fn(T) -> U) -> u128 {
    build(|i| f(lane(a, i + first)))
}

/// Widening binary op (extmul): result lane `i` is `f(a[i + first], b[i + first])`.
#[inline]
fn widen2<T: Lane, U: Lane>(a: u128, b: u128, first: u32, f: impl Fn(T, T) -> U) -> u128 {
    build(|i| f(lane(a, i + first), lane(b, i + first)))
}

/// Pairwise: result lane `i` is `f(a[2i], a[2i+1])`.
#[inline]
fn pairwise<T: Lane, U: Lane>(a: u128, f: impl Fn(T, T) -> U) -> u128 {
    build(|i| f(lane(a, 2 * i), lane(a, 2 * i + 1)))
}

/// Narrowing: the lanes of `a` then those of `b`, each converted by `f`.
#[inline]
fn narrow<T: Lane, U: Lane>(a: u128, b: u128, f: impl Fn(T) -> U) -> u128 {
    let half = count::<T>();
    build(|i| {
        f(if i < half {
            lane(a, i)
        } else {
            lane(b, i - half)
        })
    })
}

/// The low `half` lanes from `f`, the others zero (the `_zero` conversions).
#[inline]
fn low_then_zero<T: Lane, U: Lane + Default>(a: u128, f: impl Fn(T) -> U) -> u128 {
    let half = count::<T>();
    build(|i| {
        if i < half {
            f(lane(a, i))
        } else {
            U::default()
        }
    })
}

// ---------------------------------------------------------------------------
// Scalar helpers
// ---------------------------------------------------------------------------

/// The canonical quiet NaN of `T` (sign clear): exponent and quiet bit set.
#[inline]
fn canonical_nan<T: Lane>() -> u64 {
    // 0x7fc0_0000 for f32, 0x7ff8_0000_0000_0000 for f64.
    let exp_bits = if T::BITS == 32 { 8 } else { 11 };
    ((1u64 << (exp_bits + 1)) - 1) << (T::BITS - 2 - exp_bits)
}

/// Wasm `fmin`: NaN if either is NaN, and -0 < +0. A NaN result is the
/// negative canonical NaN, as in Cranelift's x86-64 vector `fmin`.
#[inline]
fn fmin<T: Lane + PartialOrd>(a: T, b: T) -> T {
    match a.partial_cmp(&b) {
        None => T::from_raw(canonical_nan::<T>() | 1 << (T::BITS - 1)),
        Some(Ordering::Less) => a,
        Some(Ordering::Greater) => b,
        // Equal values differ at most in the sign of a zero: prefer negative.
        Some(Ordering::Equal) => T::from_raw(a.raw() | b.raw()),
    }
}

/// Wasm `fmax`: NaN if either is NaN, and -0 < +0. A NaN result is the
/// canonical NaN with the sign bit of `a | b`, as in Cranelift's x86-64
/// vector `fmax` (which quiets `a | b` and clears the payload).
#[inline]
fn fmax<T: Lane + PartialOrd>(a: T, b: T) -> T {
    match a.partial_cmp(&b) {
        None => T::from_raw(canonical_nan::<T>() | ((a.raw() | b.raw()) & 1 << (T::BITS - 1))),
        Some(Ordering::Less) => b,
        Some(Ordering::Greater) => a,
        Some(Ordering::Equal) => T::from_raw(a.raw() & b.raw()),
    }
}

/// Wasm `pmin`: `b < a ? b : a`.
#[inline]
fn pmin<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

/// Wasm `pmax`: `a < b ? b : a`.
#[inline]
fn pmax<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// Signed 16-bit to signed 8-bit with saturation.
#[inline]
fn sat_i8(x: i16) -> i8 {
    x.clamp(i8::MIN.into(), i8::MAX.into()) as i8
}

/// Signed 16-bit to unsigned 8-bit with saturation.
#[inline]
fn sat_u8(x: i16) -> u8 {
    x.clamp(0, u8::MAX.into()) as u8
}

/// Signed 32-bit to signed 16-bit with saturation.
#[inline]
fn sat_i16(x: i32) -> i16 {
    x.clamp(i16::MIN.into(), i16::MAX.into()) as i16
}

/// Signed 32-bit to unsigned 16-bit with saturation.
#[inline]
fn sat_u16(x: i32) -> u16 {
    x.clamp(0, u16::MAX.into()) as u16
}

/// Q15 rounding multiply with saturation: `sat((a * b + 2^14) >> 15)`.
#[inline]
fn q15mulr(a: i16, b: i16) -> i16 {
    sat_i16((i32::from(a) * i32::from(b) + 0x4000) >> 15)
}

// ---------------------------------------------------------------------------
// Unary
// ---------------------------------------------------------------------------

/// A `Shape::Unary` op.
pub fn unary(op: SimdOp, a: u128) -> u128 {
    unary_int(op, a)
        .or_else(|| unary_float(op, a))
        .or_else(|| unary_convert(op, a))
        .unwrap_or_else(|| panic!("not a unary SIMD op: {op:?}"))
}

fn unary_int(op: SimdOp, a: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        V128Not => !a,
        I8x16Abs => map(a, i8::wrapping_abs),
        I8x16Neg => map(a, i8::wrapping_neg),
        I8x16Popcnt => map(a, |x: u8| x.count_ones() as u8),
        I16x8Abs => map(a, i16::wrapping_abs),
        I16x8Neg => map(a, i16::wrapping_neg),
        I32x4Abs => map(a, i32::wrapping_abs),
        I32x4Neg => map(a, i32::wrapping_neg),
        I64x2Abs => map(a, i64::wrapping_abs),
        I64x2Neg => map(a, i64::wrapping_neg),
        I16x8ExtAddPairwiseI8x16S => pairwise(a, |x: i8, y: i8| i16::from(x) + i16::from(y)),
        I16x8ExtAddPairwiseI8x16U => pairwise(a, |x: u8, y: u8| u16::from(x) + u16::from(y)),
        I32x4ExtAddPairwiseI16x8S => pairwise(a, |x: i16, y: i16| i32::from(x) + i32::from(y)),
        I32x4ExtAddPairwiseI16x8U => pairwise(a, |x: u16, y: u16| u32::from(x) + u32::from(y)),
        I16x8ExtendLowI8x16S => widen::<i8, i16>(a, 0, i16::from),
        I16x8ExtendHighI8x16S => widen::<i8, i16>(a, 8, i16::from),
        I16x8ExtendLowI8x16U => widen::<u8, u16>(a, 0, u16::from),
        I16x8ExtendHighI8x16U => widen::<u8, u16>(a, 8, u16::from),
        I32x4ExtendLowI16x8S => widen::<i16, i32>(a, 0, i32::from),
        I32x4ExtendHighI16x8S => widen::<i16, i32>(a, 4, i32::from),
        I32x4ExtendLowI16x8U => widen::<u16, u32>(a, 0, u32::from),
        I32x4ExtendHighI16x8U => widen::<u16, u32>(a, 4, u32::from),
        I64x2ExtendLowI32x4S => widen::<i32, i64>(a, 0, i64::from),
        I64x2ExtendHighI32x4S => widen::<i32, i64>(a, 2, i64::from),
        I64x2ExtendLowI32x4U => widen::<u32, u64>(a, 0, u64::from),
        I64x2ExtendHighI32x4U => widen::<u32, u64>(a, 2, u64::from),
        _ => return None,
    })
}

/// Lane-wise float rounding. NaN lanes come back quieted (`x + x`): a
/// software rounding routine may hand a signalling NaN back unchanged, but
/// the spec wants an arithmetic NaN.
fn rounded<T: Lane + PartialOrd + Add<Output = T>>(a: u128, f: fn(T) -> T) -> u128 {
    map(a, |x: T| {
        if x.partial_cmp(&x).is_none() {
            x + x
        } else {
            f(x)
        }
    })
}

fn unary_float(op: SimdOp, a: u128) -> Option<u128> {
    use SimdOp::*;
    const F32_SIGNS: u128 = 0x8000_0000_8000_0000_8000_0000_8000_0000;
    const F64_SIGNS: u128 = 0x8000_0000_0000_0000_8000_0000_0000_0000;
    Some(match op {
        F32x4Abs => a & !F32_SIGNS,
        F32x4Neg => a ^ F32_SIGNS,
        F64x2Abs => a & !F64_SIGNS,
        F64x2Neg => a ^ F64_SIGNS,
        F32x4Ceil => rounded(a, f32::ceil),
        F32x4Floor => rounded(a, f32::floor),
        F32x4Trunc => rounded(a, f32::trunc),
        F32x4Nearest => rounded(a, f32::round_ties_even),
        F32x4Sqrt => map(a, f32::sqrt),
        F64x2Ceil => rounded(a, f64::ceil),
        F64x2Floor => rounded(a, f64::floor),
        F64x2Trunc => rounded(a, f64::trunc),
        F64x2Nearest => rounded(a, f64::round_ties_even),
        F64x2Sqrt => map(a, f64::sqrt),
        _ => return None,
    })
}

fn unary_convert(op: SimdOp, a: u128) -> Option<u128> {
    use SimdOp::*;
    // Rust's float -> int `as` saturates and maps NaN to 0: exactly trunc_sat.
    Some(match op {
        I32x4TruncSatF32x4S | I32x4RelaxedTruncF32x4S => map(a, |x: f32| x as i32),
        I32x4TruncSatF32x4U | I32x4RelaxedTruncF32x4U => map(a, |x: f32| x as u32),
        I32x4TruncSatF64x2SZero | I32x4RelaxedTruncF64x2SZero => {
            low_then_zero(a, |x: f64| x as i32)
        }
        I32x4TruncSatF64x2UZero | I32x4RelaxedTruncF64x2UZero => {
            low_then_zero(a, |x: f64| x as u32)
        }
        F32x4ConvertI32x4S => map(a, |x: i32| x as f32),
        F32x4ConvertI32x4U => map(a, |x: u32| x as f32),
        F64x2ConvertLowI32x4S => widen::<i32, f64>(a, 0, f64::from),
        F64x2ConvertLowI32x4U => widen::<u32, f64>(a, 0, f64::from),
        F32x4DemoteF64x2Zero => low_then_zero(a, |x: f64| x as f32),
        F64x2PromoteLowF32x4 => widen::<f32, f64>(a, 0, f64::from),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Binary
// ---------------------------------------------------------------------------

/// A `Shape::Binary` op; `a` is the deeper operand (pushed first).
pub fn binary(op: SimdOp, a: u128, b: u128) -> u128 {
    binary_bits(op, a, b)
        .or_else(|| compare_int(op, a, b))
        .or_else(|| compare_float(op, a, b))
        .or_else(|| binary_i8(op, a, b))
        .or_else(|| binary_i16(op, a, b))
        .or_else(|| binary_i32(op, a, b))
        .or_else(|| binary_i64(op, a, b))
        .or_else(|| binary_float(op, a, b))
        .unwrap_or_else(|| panic!("not a binary SIMD op: {op:?}"))
}

/// `i8x16.swizzle`: lane i = a[b[i]], or 0 when b[i] >= 16.
fn swizzle(a: u128, b: u128) -> u128 {
    map(b, |idx: u8| {
        if idx < 16 {
            lane::<u8>(a, idx.into())
        } else {
            0
        }
    })
}

fn binary_bits(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        V128And => a & b,
        V128AndNot => a & !b,
        V128Or => a | b,
        V128Xor => a ^ b,
        I8x16Swizzle | I8x16RelaxedSwizzle => swizzle(a, b),
        _ => return None,
    })
}

fn compare_int(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        I8x16Eq => compare(a, b, |x: u8, y| x == y),
        I8x16Ne => compare(a, b, |x: u8, y| x != y),
        I8x16LtS => compare(a, b, |x: i8, y| x < y),
        I8x16LtU => compare(a, b, |x: u8, y| x < y),
        I8x16GtS => compare(a, b, |x: i8, y| x > y),
        I8x16GtU => compare(a, b, |x: u8, y| x > y),
        I8x16LeS => compare(a, b, |x: i8, y| x <= y),
        I8x16LeU => compare(a, b, |x: u8, y| x <= y),
        I8x16GeS => compare(a, b, |x: i8, y| x >= y),
        I8x16GeU => compare(a, b, |x: u8, y| x >= y),
        I16x8Eq => compare(a, b, |x: u16, y| x == y),
        I16x8Ne => compare(a, b, |x: u16, y| x != y),
        I16x8LtS => compare(a, b, |x: i16, y| x < y),
        I16x8LtU => compare(a, b, |x: u16, y| x < y),
        I16x8GtS => compare(a, b, |x: i16, y| x > y),
        I16x8GtU => compare(a, b, |x: u16, y| x > y),
        I16x8LeS => compare(a, b, |x: i16, y| x <= y),
        I16x8LeU => compare(a, b, |x: u16, y| x <= y),
        I16x8GeS => compare(a, b, |x: i16, y| x >= y),
        I16x8GeU => compare(a, b, |x: u16, y| x >= y),
        I32x4Eq => compare(a, b, |x: u32, y| x == y),
        I32x4Ne => compare(a, b, |x: u32, y| x != y),
        I32x4LtS => compare(a, b, |x: i32, y| x < y),
        I32x4LtU => compare(a, b, |x: u32, y| x < y),
        I32x4GtS => compare(a, b, |x: i32, y| x > y),
        I32x4GtU => compare(a, b, |x: u32, y| x > y),
        I32x4LeS => compare(a, b, |x: i32, y| x <= y),
        I32x4LeU => compare(a, b, |x: u32, y| x <= y),
        I32x4GeS => compare(a, b, |x: i32, y| x >= y),
        I32x4GeU => compare(a, b, |x: u32, y| x >= y),
        I64x2Eq => compare(a, b, |x: u64, y| x == y),
        I64x2Ne => compare(a, b, |x: u64, y| x != y),
        I64x2LtS => compare(a, b, |x: i64, y| x < y),
        I64x2GtS => compare(a, b, |x: i64, y| x > y),
        I64x2LeS => compare(a, b, |x: i64, y| x <= y),
        I64x2GeS => compare(a, b, |x: i64, y| x >= y),
        _ => return None,
    })
}

fn compare_float(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        F32x4Eq => compare(a, b, |x: f32, y| x == y),
        F32x4Ne => compare(a, b, |x: f32, y| x != y),
        F32x4Lt => compare(a, b, |x: f32, y| x < y),
        F32x4Gt => compare(a, b, |x: f32, y| x > y),
        F32x4Le => compare(a, b, |x: f32, y| x <= y),
        F32x4Ge => compare(a, b, |x: f32, y| x >= y),
        F64x2Eq => compare(a, b, |x: f64, y| x == y),
        F64x2Ne => compare(a, b, |x: f64, y| x != y),
        F64x2Lt => compare(a, b, |x: f64, y| x < y),
        F64x2Gt => compare(a, b, |x: f64, y| x > y),
        F64x2Le => compare(a, b, |x: f64, y| x <= y),
        F64x2Ge => compare(a, b, |x: f64, y| x >= y),
        _ => return None,
    })
}

fn binary_i8(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        I8x16NarrowI16x8S => narrow(a, b, sat_i8),
        I8x16NarrowI16x8U => narrow(a, b, sat_u8),
        I8x16Add => zip(a, b, u8::wrapping_add),
        I8x16AddSatS => zip(a, b, i8::saturating_add),
        I8x16AddSatU => zip(a, b, u8::saturating_add),
        I8x16Sub => zip(a, b, u8::wrapping_sub),
        I8x16SubSatS => zip(a, b, i8::saturating_sub),
        I8x16SubSatU => zip(a, b, u8::saturating_sub),
        I8x16MinS => zip(a, b, i8::min),
        I8x16MinU => zip(a, b, u8::min),
        I8x16MaxS => zip(a, b, i8::max),
        I8x16MaxU => zip(a, b, u8::max),
        I8x16AvgrU => zip(a, b, |x: u8, y: u8| {
            ((u16::from(x) + u16::from(y) + 1) >> 1) as u8
        }),
        _ => return None,
    })
}

/// The deterministic `i16x8.relaxed_dot_i8x16_i7x16_s`: signed i8 products,
/// adjacent pairs summed with i16 wrap-around.
fn relaxed_dot_i8(a: u128, b: u128) -> u128 {
    let product = |j: u32| i16::from(lane::<i8>(a, j)) * i16::from(lane::<i8>(b, j));
    build(|i| product(2 * i).wrapping_add(product(2 * i + 1)))
}

fn binary_i16(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        I16x8Q15MulrSatS | I16x8RelaxedQ15mulrS => zip(a, b, q15mulr),
        I16x8RelaxedDotI8x16I7x16S => relaxed_dot_i8(a, b),
        I16x8NarrowI32x4S => narrow(a, b, sat_i16),
        I16x8NarrowI32x4U => narrow(a, b, sat_u16),
        I16x8Add => zip(a, b, u16::wrapping_add),
        I16x8AddSatS => zip(a, b, i16::saturating_add),
        I16x8AddSatU => zip(a, b, u16::saturating_add),
        I16x8Sub => zip(a, b, u16::wrapping_sub),
        I16x8SubSatS => zip(a, b, i16::saturating_sub),
        I16x8SubSatU => zip(a, b, u16::saturating_sub),
        I16x8Mul => zip(a, b, u16::wrapping_mul),
        I16x8MinS => zip(a, b, i16::min),
        I16x8MinU => zip(a, b, u16::min),
        I16x8MaxS => zip(a, b, i16::max),
        I16x8MaxU => zip(a, b, u16::max),
        I16x8AvgrU => zip(a, b, |x: u16, y: u16| {
            ((u32::from(x) + u32::from(y) + 1) >> 1) as u16
        }),
        I16x8ExtMulLowI8x16S => widen2(a, b, 0, |x: i8, y: i8| i16::from(x) * i16::from(y)),
        I16x8ExtMulHighI8x16S => widen2(a, b, 8, |x: i8, y: i8| i16::from(x) * i16::from(y)),
        I16x8ExtMulLowI8x16U => widen2(a, b, 0, |x: u8, y: u8| u16::from(x) * u16::from(y)),
        I16x8ExtMulHighI8x16U => widen2(a, b, 8, |x: u8, y: u8| u16::from(x) * u16::from(y)),
        _ => return None,
    })
}

/// `i32x4.dot_i16x8_s`: adjacent signed products summed, wrapping in i32.
fn dot_i16(a: u128, b: u128) -> u128 {
    let product = |j: u32| i32::from(lane::<i16>(a, j)) * i32::from(lane::<i16>(b, j));
    build(|i| product(2 * i).wrapping_add(product(2 * i + 1)))
}

fn binary_i32(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        I32x4Add => zip(a, b, u32::wrapping_add),
        I32x4Sub => zip(a, b, u32::wrapping_sub),
        I32x4Mul => zip(a, b, u32::wrapping_mul),
        I32x4MinS => zip(a, b, i32::min),
        I32x4MinU => zip(a, b, u32::min),
        I32x4MaxS => zip(a, b, i32::max),
        I32x4MaxU => zip(a, b, u32::max),
        I32x4DotI16x8S => dot_i16(a, b),
        I32x4ExtMulLowI16x8S => widen2(a, b, 0, |x: i16, y: i16| i32::from(x) * i32::from(y)),
        I32x4ExtMulHighI16x8S => widen2(a, b, 4, |x: i16, y: i16| i32::from(x) * i32::from(y)),
        I32x4ExtMulLowI16x8U => widen2(a, b, 0, |x: u16, y: u16| u32::from(x) * u32::from(y)),
        I32x4ExtMulHighI16x8U => widen2(a, b, 4, |x: u16, y: u16| u32::from(x) * u32::from(y)),
        _ => return None,
    })
}

fn binary_i64(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        I64x2Add => zip(a, b, u64::wrapping_add),
        I64x2Sub => zip(a, b, u64::wrapping_sub),
        I64x2Mul => zip(a, b, u64::wrapping_mul),
        I64x2ExtMulLowI32x4S => widen2(a, b, 0, |x: i32, y: i32| i64::from(x) * i64::from(y)),
        I64x2ExtMulHighI32x4S => widen2(a, b, 2, |x: i32, y: i32| i64::from(x) * i64::from(y)),
        I64x2ExtMulLowI32x4U => widen2(a, b, 0, |x: u32, y: u32| u64::from(x) * u64::from(y)),
        I64x2ExtMulHighI32x4U => widen2(a, b, 2, |x: u32, y: u32| u64::from(x) * u64::from(y)),
        _ => return None,
    })
}

fn binary_float(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        F32x4Add => zip(a, b, |x: f32, y| x + y),
        F32x4Sub => zip(a, b, |x: f32, y| x - y),
        F32x4Mul => zip(a, b, |x: f32, y| x * y),
        F32x4Div => zip(a, b, |x: f32, y| x / y),
        F32x4Min | F32x4RelaxedMin => zip(a, b, fmin::<f32>),
        F32x4Max | F32x4RelaxedMax => zip(a, b, fmax::<f32>),
        F32x4PMin => zip(a, b, pmin::<f32>),
        F32x4PMax => zip(a, b, pmax::<f32>),
        F64x2Add => zip(a, b, |x: f64, y| x + y),
        F64x2Sub => zip(a, b, |x: f64, y| x - y),
        F64x2Mul => zip(a, b, |x: f64, y| x * y),
        F64x2Div => zip(a, b, |x: f64, y| x / y),
        F64x2Min | F64x2RelaxedMin => zip(a, b, fmin::<f64>),
        F64x2Max | F64x2RelaxedMax => zip(a, b, fmax::<f64>),
        F64x2PMin => zip(a, b, pmin::<f64>),
        F64x2PMax => zip(a, b, pmax::<f64>),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Ternary, test, shift, splat
// ---------------------------------------------------------------------------

/// A `Shape::Ternary` op; `a` was pushed first, `c` last (on top). Not
/// inlined: the relaxed fused multiply-adds are libm calls, which would give
/// the interpreter handler a frame that keeps it from tail-dispatching (see
/// `tests/tail_calls.rs`); the handler does `bitselect` itself.
#[inline(never)]
pub fn ternary(op: SimdOp, a: u128, b: u128, c: u128) -> u128 {
    use SimdOp::*;
    let fma32 = |neg: bool| {
        build(|i| {
            let x: f32 = lane(a, i);
            let x = if neg && !x.is_nan() { -x } else { x };
            x.mul_add(lane(b, i), lane(c, i))
        })
    };
    let fma64 = |neg: bool| {
        build(|i| {
            let x: f64 = lane(a, i);
            let x = if neg && !x.is_nan() { -x } else { x };
            x.mul_add(lane(b, i), lane(c, i))
        })
    };
    match op {
        V128Bitselect
        | I8x16RelaxedLaneselect
        | I16x8RelaxedLaneselect
        | I32x4RelaxedLaneselect
        | I64x2RelaxedLaneselect => (a & c) | (b & !c),
        F32x4RelaxedMadd => fma32(false),
        F32x4RelaxedNmadd => fma32(true),
        F64x2RelaxedMadd => fma64(false),
        F64x2RelaxedNmadd => fma64(true),
        I32x4RelaxedDotI8x16I7x16AddS => {
            let dot = relaxed_dot_i8(a, b);
            let sums = pairwise(dot, |x: i16, y: i16| i32::from(x) + i32::from(y));
            zip(sums, c, i32::wrapping_add)
        }
        _ => panic!("not a ternary SIMD op: {op:?}"),
    }
}

/// Whether every `T` lane is nonzero.
fn all_true<T: Lane>(a: u128) -> u32 {
    (0..count::<T>()).all(|i| lane::<T>(a, i).raw() != 0).into()
}

/// The top bit of every `T` lane, lane i at bit i.
fn bitmask<T: Lane>(a: u128) -> u32 {
    (0..count::<T>()).fold(0, |acc, i| {
        acc | (((lane::<T>(a, i).raw() >> (T::BITS - 1)) as u32) << i)
    })
}

/// A `Shape::Test` op (result is an i32).
pub fn test(op: SimdOp, a: u128) -> u32 {
    use SimdOp::*;
    match op {
        V128AnyTrue => (a != 0).into(),
        I8x16AllTrue => all_true::<u8>(a),
        I16x8AllTrue => all_true::<u16>(a),
        I32x4AllTrue => all_true::<u32>(a),
        I64x2AllTrue => all_true::<u64>(a),
        I8x16Bitmask => bitmask::<u8>(a),
        I16x8Bitmask => bitmask::<u16>(a),
        I32x4Bitmask => bitmask::<u32>(a),
        I64x2Bitmask => bitmask::<u64>(a),
        _ => panic!("not a test SIMD op: {op:?}"),
    }
}

/// A `Shape::Shift` op; the count is taken modulo the lane width
/// (`wrapping_shl`/`wrapping_shr` mask it exactly so).
pub fn shift(op: SimdOp, a: u128, amount: u32) -> u128 {
    use SimdOp::*;
    match op {
        I8x16Shl => map(a, |x: u8| x.wrapping_shl(amount)),
        I8x16ShrS => map(a, |x: i8| x.wrapping_shr(amount)),
        I8x16ShrU => map(a, |x: u8| x.wrapping_shr(amount)),
        I16x8Shl => map(a, |x: u16| x.wrapping_shl(amount)),
        I16x8ShrS => map(a, |x: i16| x.wrapping_shr(amount)),
        I16x8ShrU => map(a, |x: u16| x.wrapping_shr(amount)),
        I32x4Shl => map(a, |x: u32| x.wrapping_shl(amount)),
        I32x4ShrS => map(a, |x: i32| x.wrapping_shr(amount)),
        I32x4ShrU => map(a, |x: u32| x.wrapping_shr(amount)),
        I64x2Shl => map(a, |x: u64| x.wrapping_shl(amount)),
        I64x2ShrS => map(a, |x: i64| x.wrapping_shr(amount)),
        I64x2ShrU => map(a, |x: u64| x.wrapping_shr(amount)),
        _ => panic!("not a shift SIMD op: {op:?}"),
    }
}

/// The low `bits` bits of `x` repeated across the v128.
fn splat_bits(bits: u32, x: u64) -> u128 {
    (0..128 / bits).fold(0, |acc, i| set_lane(acc, bits, i, x))
}

/// A `Shape::Splat` op; `scalar` holds i32/f32 in its low 32 bits.
pub fn splat(op: SimdOp, scalar: u64) -> u128 {
    use SimdOp::*;
    match op {
        I8x16Splat => splat_bits(8, scalar),
        I16x8Splat => splat_bits(16, scalar),
        I32x4Splat | F32x4Splat => splat_bits(32, scalar),
        I64x2Splat | F64x2Splat => splat_bits(64, scalar),
        _ => panic!("not a splat SIMD op: {op:?}"),
    }
}

// ---------------------------------------------------------------------------
// Lane ops and shuffle
// ---------------------------------------------------------------------------

/// Lane instructions (extract_lane_s/u, replace_lane for every shape).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum LaneOp {
    I8x16ExtractS,
    I8x16ExtractU,
    I8x16Replace,
    I16x8ExtractS,
    I16x8ExtractU,
    I16x8Replace,
    I32x4Extract,
    I32x4Replace,
    I64x2Extract,
    I64x2Replace,
    F32x4Extract,
    F32x4Replace,
    F64x2Extract,
    F64x2Replace,
}

impl LaneOp {
    /// Some((op, lane)) for a wasmparser lane operator.
    pub fn from_operator(op: &Operator<'_>) -> Option<(LaneOp, u8)> {
        use LaneOp::*;
        Some(match *op {
            Operator::I8x16ExtractLaneS { lane } => (I8x16ExtractS, lane),
            Operator::I8x16ExtractLaneU { lane } => (I8x16ExtractU, lane),
            Operator::I8x16ReplaceLane { lane } => (I8x16Replace, lane),
            Operator::I16x8ExtractLaneS { lane } => (I16x8ExtractS, lane),
            Operator::I16x8ExtractLaneU { lane } => (I16x8ExtractU, lane),
            Operator::I16x8ReplaceLane { lane } => (I16x8Replace, lane),
            Operator::I32x4ExtractLane { lane } => (I32x4Extract, lane),
            Operator::I32x4ReplaceLane { lane } => (I32x4Replace, lane),
            Operator::I64x2ExtractLane { lane } => (I64x2Extract, lane),
            Operator::I64x2ReplaceLane { lane } => (I64x2Replace, lane),
            Operator::F32x4ExtractLane { lane } => (F32x4Extract, lane),
            Operator::F32x4ReplaceLane { lane } => (F32x4Replace, lane),
            Operator::F64x2ExtractLane { lane } => (F64x2Extract, lane),
            Operator::F64x2ReplaceLane { lane } => (F64x2Replace, lane),
            _ => return None,
        })
    }

    /// Whether the op is a replace_lane (pops a scalar and a v128, pushes a v128).
    pub fn is_replace(self) -> bool {
        use LaneOp::*;
        matches!(
            self,
            I8x16Replace | I16x8Replace | I32x4Replace | I64x2Replace | F32x4Replace | F64x2Replace
        )
    }

    /// Lane width in bits.
    fn bits(self) -> u32 {
        use LaneOp::*;
        match self {
            I8x16ExtractS | I8x16ExtractU | I8x16Replace => 8,
            I16x8ExtractS | I16x8ExtractU | I16x8Replace => 16,
            I32x4Extract | I32x4Replace | F32x4Extract | F32x4Replace => 32,
            I64x2Extract | I64x2Replace | F64x2Extract | F64x2Replace => 64,
        }
    }
}

/// Extract: the result as a stack slot (i32/f32 zero-extended in the low 32
/// bits; extract_s sign-extends to 32 bits, then the i32 is zero-extended).
pub fn extract_lane(op: LaneOp, v: u128, lane_index: u8) -> u64 {
    let i = u32::from(lane_index);
    match op {
        LaneOp::I8x16ExtractS => u64::from(i32::from(lane::<i8>(v, i)) as u32),
        LaneOp::I16x8ExtractS => u64::from(i32::from(lane::<i16>(v, i)) as u32),
        _ => ((v >> (i * op.bits())) & ones(op.bits())) as u64,
    }
}

/// Replace: `v` with lane `lane_index` set to the low bits of `scalar`.
pub fn replace_lane(op: LaneOp, v: u128, lane_index: u8, scalar: u64) -> u128 {
    set_lane(v, op.bits(), lane_index.into(), scalar)
}

/// `i8x16.shuffle`: lane i is byte `lanes[i]` of the 32 bytes `a` then `b`
/// (validation keeps indices below 32; larger ones give 0).
#[cfg_attr(not(test), allow(dead_code))] // the interpreter runs `simd_fast::shuffle`, tested against this
pub fn shuffle(a: u128, b: u128, lanes: &[u8; 16]) -> u128 {
    build(|i| match lanes[i as usize] {
        j @ 0..16 => lane::<u8>(a, j.into()),
        j @ 16..32 => lane::<u8>(b, u32::from(j) - 16),
        _ => 0,
    })
}

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

/// Memory instructions: the interpreter does the bounds-checked access and
/// calls `load`, `load_lane` or `store_lane`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MemOp {
    Load,
    Load8x8S,
    Load8x8U,
    Load16x4S,
    Load16x4U,
    Load32x2S,
    Load32x2U,
    Load8Splat,
    Load16Splat,
    Load32Splat,
    Load64Splat,
    Load32Zero,
    Load64Zero,
    Load8Lane,
    Load16Lane,
    Load32Lane,
    Load64Lane,
    Store,
    Store8Lane,
    Store16Lane,
    Store32Lane,
    Store64Lane,
}

impl MemOp {
    /// Some((op, memarg, lane)) for a wasmparser SIMD memory operator (lane 0 when none).
    pub fn from_operator(op: &Operator<'_>) -> Option<(MemOp, MemArg, u8)> {
        use MemOp::*;
        Some(match *op {
            Operator::V128Load { memarg } => (Load, memarg, 0),
            Operator::V128Load8x8S { memarg } => (Load8x8S, memarg, 0),
            Operator::V128Load8x8U { memarg } => (Load8x8U, memarg, 0),
            Operator::V128Load16x4S { memarg } => (Load16x4S, memarg, 0),
            Operator::V128Load16x4U { memarg } => (Load16x4U, memarg, 0),
            Operator::V128Load32x2S { memarg } => (Load32x2S, memarg, 0),
            Operator::V128Load32x2U { memarg } => (Load32x2U, memarg, 0),
            Operator::V128Load8Splat { memarg } => (Load8Splat, memarg, 0),
            Operator::V128Load16Splat { memarg } => (Load16Splat, memarg, 0),
            Operator::V128Load32Splat { memarg } => (Load32Splat, memarg, 0),
            Operator::V128Load64Splat { memarg } => (Load64Splat, memarg, 0),
            Operator::V128Load32Zero { memarg } => (Load32Zero, memarg, 0),
            Operator::V128Load64Zero { memarg } => (Load64Zero, memarg, 0),
            Operator::V128Load8Lane { memarg, lane } => (Load8Lane, memarg, lane),
            Operator::V128Load16Lane { memarg, lane } => (Load16Lane, memarg, lane),
            Operator::V128Load32Lane { memarg, lane } => (Load32Lane, memarg, lane),
            Operator::V128Load64Lane { memarg, lane } => (Load64Lane, memarg, lane),
            Operator::V128Store { memarg } => (Store, memarg, 0),
            Operator::V128Store8Lane { memarg, lane } => (Store8Lane, memarg, lane),
            Operator::V128Store16Lane { memarg, lane } => (Store16Lane, memarg, lane),
            Operator::V128Store32Lane { memarg, lane } => (Store32Lane, memarg, lane),
            Operator::V128Store64Lane { memarg, lane } => (Store64Lane, memarg, lane),
            _ => return None,
        })
    }

    /// Bytes read or written (16 for Load/Store, 8 for the extending loads,
    /// 1/2/4/8 for splat/zero/lane).
    pub fn width(self) -> u32 {
        use MemOp::*;
        match self {
            Load | Store => 16,
            Load8x8S | Load8x8U | Load16x4S | Load16x4U | Load32x2S | Load32x2U => 8,
            Load8Splat | Load8Lane | Store8Lane => 1,
            Load16Splat | Load16Lane | Store16Lane => 2,
            Load32Splat | Load32Zero | Load32Lane | Store32Lane => 4,
            Load64Splat | Load64Zero | Load64Lane | Store64Lane => 8,
        }
    }

    /// Whether the op writes memory (pops a v128 besides the address).
    pub fn is_store(self) -> bool {
        use MemOp::*;
        matches!(
            self,
            Store | Store8Lane | Store16Lane | Store32Lane | Store64Lane
        )
    }

    /// Whether the op has a lane immediate (lane loads pop a v128 besides
    /// the address and use `load_lane`; lane stores use `store_lane`).
    pub fn is_lane(self) -> bool {
        use MemOp::*;
        matches!(
            self,
            Load8Lane
                | Load16Lane
                | Load32Lane
                | Load64Lane
                | Store8Lane
                | Store16Lane
                | Store32Lane
                | Store64Lane
        )
    }
}

/// Non-lane loads: the `width` bytes read (little-endian in the low bits) ->
/// the v128 result.
#[cfg_attr(not(test), allow(dead_code))] // the interpreter runs `simd_fast::load`, tested against this
pub fn load(op: MemOp, bytes: u128) -> u128 {
    use MemOp::*;
    let bytes = bytes & ones(8 * op.width());
    match op {
        Load | Load32Zero | Load64Zero => bytes,
        Load8x8S => widen::<i8, i16>(bytes, 0, i16::from),
        Load8x8U => widen::<u8, u16>(bytes, 0, u16::from),
        Load16x4S => widen::<i16, i32>(bytes, 0, i32::from),
        Load16x4U => widen::<u16, u32>(bytes, 0, u32::from),
        Load32x2S => widen::<i32, i64>(bytes, 0, i64::from),
        Load32x2U => widen::<u32, u64>(bytes, 0, u64::from),
        Load8Splat | Load16Splat | Load32Splat | Load64Splat => {
            splat_bits(8 * op.width(), bytes as u64)
        }
        _ => panic!("not a plain SIMD load: {op:?}"),
    }
}

/// Lane loads: `v` with lane `lane_index` replaced by the loaded bytes.
pub fn load_lane(op: MemOp, v: u128, lane_index: u8, bytes: u64) -> u128 {
    debug_assert!(op.is_lane() && !op.is_store(), "not a lane load: {op:?}");
    set_lane(v, 8 * op.width(), lane_index.into(), bytes)
}

/// Lane stores: the bytes to write (the low `width` bytes of the result).
pub fn store_lane(op: MemOp, v: u128, lane_index: u8) -> u64 {
    debug_assert!(op.is_lane() && op.is_store(), "not a lane store: {op:?}");
    let bits = 8 * op.width();
    ((v >> (u32::from(lane_index) * bits)) & ones(bits)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use SimdOp::*;

    fn i8s(v: [i8; 16]) -> u128 {
        u128::from_le_bytes(v.map(|x| x as u8))
    }
    fn i16s(v: [i16; 8]) -> u128 {
        build(|i| v[i as usize])
    }
    fn i32s(v: [i32; 4]) -> u128 {
        build(|i| v[i as usize])
    }
    fn f32s(v: [f32; 4]) -> u128 {
        build(|i| v[i as usize])
    }
    fn f64s(v: [f64; 2]) -> u128 {
        build(|i| v[i as usize])
    }
    fn get_f32(v: u128) -> [f32; 4] {
        [0, 1, 2, 3].map(|i| lane(v, i))
    }
    fn get_f64(v: u128) -> [f64; 2] {
        [0, 1].map(|i| lane(v, i))
    }
    fn get_i32(v: u128) -> [i32; 4] {
        [0, 1, 2, 3].map(|i| lane(v, i))
    }
    fn get_i16(v: u128) -> [i16; 8] {
        [0, 1, 2, 3, 4, 5, 6, 7].map(|i| lane(v, i))
    }

    #[test]
    fn every_op_runs_through_its_shape() {
        let (a, b, c) = (
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            !0u128 / 3,
            1u128 << 77,
        );
        let mut seen = std::collections::HashSet::new();
        for &op in SimdOp::ALL {
            let r = match op.shape() {
                Shape::Unary => unary(op, a),
                Shape::Binary => binary(op, a, b),
                Shape::Ternary => ternary(op, a, b, c),
                Shape::Test => test(op, a).into(),
                Shape::Shift => shift(op, a, 3),
                Shape::Splat => splat(op, 0x1234_5678_9abc_def0),
            };
            seen.insert(r);
            assert_eq!(op.splat_type().is_some(), op.shape() == Shape::Splat);
        }
        // No panics, and the ops are not mostly alike.
        assert!(seen.len() > 120, "{}", seen.len());
        assert_eq!(SimdOp::ALL.len(), 218);
    }

    #[test]
    fn from_operator() {
        assert_eq!(
            SimdOp::from_operator(&Operator::I16x8Q15MulrSatS),
            Some(I16x8Q15MulrSatS)
        );
        assert_eq!(
            SimdOp::from_operator(&Operator::F64x2RelaxedNmadd),
            Some(F64x2RelaxedNmadd)
        );
        assert_eq!(SimdOp::from_operator(&Operator::I32Add), None);
        assert_eq!(
            SimdOp::from_operator(&Operator::I8x16Shuffle { lanes: [0; 16] }),
            None
        );
        assert_eq!(
            LaneOp::from_operator(&Operator::I16x8ExtractLaneS { lane: 7 }),
            Some((LaneOp::I16x8ExtractS, 7))
        );
        let memarg = MemArg {
            align: 0,
            max_align: 0,
            offset: 9,
            memory: 0,
        };
        let (op, m, lane) =
            MemOp::from_operator(&Operator::V128Store32Lane { memarg, lane: 3 }).unwrap();
        assert_eq!((op, m.offset, lane), (MemOp::Store32Lane, 9, 3));
        assert!(op.is_store() && op.is_lane() && op.width() == 4);
        assert_eq!(MemOp::from_operator(&Operator::V128AnyTrue), None);
    }

    #[test]
    fn saturating_narrow() {
        let a = i16s([0, 127, 128, -128, -129, 300, -300, 5]);
        let b = i16s([i16::MAX, i16::MIN, 255, 256, -1, 1, 0, 200]);
        let s = binary(I8x16NarrowI16x8S, a, b);
        assert_eq!(
            s,
            i8s([0, 127, 127, -128, -128, 127, -128, 5, 127, -128, 127, 127, -1, 1, 0, 127])
        );
        let u = binary(I8x16NarrowI16x8U, a, b).to_le_bytes();
        assert_eq!(
            u,
            [0, 127, 128, 0, 0, 255, 0, 5, 255, 0, 255, 255, 0, 1, 0, 200]
        );
        let a = i32s([70000, -70000, 40000, -1]);
        let b = i32s([1, 2, i32::MIN, 65535]);
        assert_eq!(
            get_i16(binary(I16x8NarrowI32x4S, a, b)),
            [32767, -32768, 32767, -1, 1, 2, -32768, 32767]
        );
        assert_eq!(
            get_i16(binary(I16x8NarrowI32x4U, a, b)).map(|x| x as u16),
            [65535, 0, 40000, 0, 1, 2, 0, 65535]
        );
    }

    #[test]
    fn q15mulr() {
        let a = i16s([i16::MIN, i16::MIN, 16384, -16384, 1, -1, 0x4000, 3]);
        let b = i16s([i16::MIN, i16::MAX, 16384, 16384, 16384, 16384, 1, -32767]);
        let want = [32767, -32767, 8192, -8192, 1, 0, 1, -3];
        assert_eq!(get_i16(binary(I16x8Q15MulrSatS, a, b)), want);
        assert_eq!(get_i16(binary(I16x8RelaxedQ15mulrS, a, b)), want);
    }

    #[test]
    fn min_max_nan_and_zero() {
        let nan = f32::from_bits(0x7fc0_0000);
        let a = f32s([nan, 0.0, -0.0, 1.0]);
        let b = f32s([1.0, -0.0, 0.0, -2.0]);
        let min = binary(F32x4Min, a, b);
        let max = binary(F32x4Max, a, b);
        assert_eq!(lane::<u32>(min, 0), 0xffc0_0000);
        assert_eq!(lane::<u32>(max, 0), 0x7fc0_0000);
        assert_eq!(lane::<u32>(min, 1), 0x8000_0000);
        assert_eq!(lane::<u32>(min, 2), 0x8000_0000);
        assert_eq!(lane::<u32>(max, 1), 0);
        assert_eq!(lane::<u32>(max, 2), 0);
        assert_eq!(get_f32(min)[3], -2.0);
        assert_eq!(get_f32(max)[3], 1.0);
        assert_eq!(binary(F32x4RelaxedMin, a, b), min);
        assert_eq!(binary(F32x4RelaxedMax, a, b), max);
        // pmin/pmax: b < a ? b : a and a < b ? b : a, NaN and zeros pass through.
        let pmin = binary(F32x4PMin, a, b);
        let pmax = binary(F32x4PMax, a, b);
        assert_eq!(lane::<u32>(pmin, 0), 0x7fc0_0000);
        assert_eq!(lane::<u32>(pmax, 0), 0x7fc0_0000);
        assert_eq!(lane::<u32>(binary(F32x4PMin, b, a), 0), 1.0f32.to_bits());
        assert_eq!(lane::<u32>(pmin, 1), 0);
        assert_eq!(lane::<u32>(pmax, 2), 0x8000_0000);
        let a = f64s([-0.0, f64::NAN]);
        let b = f64s([0.0, 3.0]);
        let min = binary(F64x2Min, a, b);
        assert_eq!(lane::<u64>(min, 0), 1 << 63);
        assert!(get_f64(min)[1].is_nan());
        assert_eq!(lane::<u64>(binary(F64x2Max, a, b), 0), 0);
        assert_eq!(binary(F64x2RelaxedMax, a, b), binary(F64x2Max, a, b));
    }

    /// NaN results of min/max (and relaxed min/max) have the bits of
    /// Cranelift's x86-64 lowering: min the negative canonical NaN, max the
    /// canonical NaN with the sign of `a | b` (differential seed 40757).
    #[test]
    fn min_max_nan_bits_match_cranelift() {
        let a = build(|i| [0xffa0_0001u32, 0x3f80_0000, 0xbf80_0000, 0x7fc1_2345][i as usize]);
        let b = build(|i| [0x3f80_0000u32, 0x7f80_0001, 0x7fc0_0000, 0xffc0_0000][i as usize]);
        for op in [F32x4Min, F32x4RelaxedMin] {
            assert_eq!(
                binary(op, a, b),
                f32s([f32::from_bits(0xffc0_0000); 4]),
                "{op:?}"
            );
        }
        let want = build(|i| [0xffc0_0000u32, 0x7fc0_0000, 0xffc0_0000, 0xffc0_0000][i as usize]);
        for op in [F32x4Max, F32x4RelaxedMax] {
            assert_eq!(binary(op, a, b), want, "{op:?}");
        }
        let a = build(|i| [0x7ff4_0000_0000_0001u64, 0x8000_0000_0000_0000][i as usize]);
        let b = build(|i| [0x3ff0_0000_0000_0000u64, 0x7ff8_dead_0000_0000][i as usize]);
        for op in [F64x2Min, F64x2RelaxedMin] {
            assert_eq!(
                binary(op, a, b),
                (0xfff8u128 << 112) | (0xfff8 << 48),
                "{op:?}"
            );
        }
        for op in [F64x2Max, F64x2RelaxedMax] {
            assert_eq!(
                binary(op, a, b),
                (0xfff8u128 << 112) | (0x7ff8 << 48),
                "{op:?}"
            );
        }
    }

    #[test]
    fn nearest_is_round_half_even() {
        let v = unary(F32x4Nearest, f32s([0.5, 1.5, 2.5, -0.5]));
        let r = get_f32(v);
        assert_eq!(r[..3], [0.0, 2.0, 2.0]);
        assert_eq!(r[3].to_bits(), 0x8000_0000);
        assert_eq!(get_f64(unary(F64x2Nearest, f64s([-2.5, 3.5]))), [-2.0, 4.0]);
        assert_eq!(
            get_f32(unary(F32x4Floor, f32s([-0.5, 1.5, 2.0, -3.7]))),
            [-1.0, 1.0, 2.0, -4.0]
        );
    }

    #[test]
    fn rounding_quiets_signalling_nan() {
        let snan = f32s([f32::from_bits(0x7fa0_0000); 4]);
        for op in [F32x4Ceil, F32x4Floor, F32x4Trunc, F32x4Nearest] {
            assert_eq!(
                unary(op, snan),
                f32s([f32::from_bits(0x7fe0_0000); 4]),
                "{op:?}"
            );
        }
        let snan = f64s([f64::from_bits(0xfff4 << 48); 2]);
        for op in [F64x2Ceil, F64x2Floor, F64x2Trunc, F64x2Nearest] {
            assert_eq!(lane::<u64>(unary(op, snan), 1), 0xfffc << 48, "{op:?}");
        }
    }

    #[test]
    fn trunc_sat() {
        let a = f32s([f32::NAN, 3e9, -3e9, -1.9]);
        assert_eq!(
            get_i32(unary(I32x4TruncSatF32x4S, a)),
            [0, i32::MAX, i32::MIN, -1]
        );
        assert_eq!(
            get_i32(unary(I32x4TruncSatF32x4U, a)).map(|x| x as u32),
            [0, 3_000_000_000, 0, 0]
        );
        assert_eq!(
            unary(I32x4RelaxedTruncF32x4S, a),
            unary(I32x4TruncSatF32x4S, a)
        );
        assert_eq!(
            unary(I32x4RelaxedTruncF32x4U, a),
            unary(I32x4TruncSatF32x4U, a)
        );
        let d = f64s([5e9, f64::NAN]);
        assert_eq!(
            get_i32(unary(I32x4TruncSatF64x2SZero, d)),
            [i32::MAX, 0, 0, 0]
        );
        assert_eq!(get_i32(unary(I32x4TruncSatF64x2UZero, d)), [-1, 0, 0, 0]);
        let d = f64s([-5e9, 4294967295.9]);
        assert_eq!(
            get_i32(unary(I32x4RelaxedTruncF64x2SZero, d)),
            [i32::MIN, i32::MAX, 0, 0]
        );
        assert_eq!(
            get_i32(unary(I32x4RelaxedTruncF64x2UZero, d)),
            [0, -1, 0, 0]
        );
    }

    #[test]
    fn conversions() {
        // 2^24 + 1 and u32::MAX round to nearest.
        let a = i32s([16_777_217, -1, 7, i32::MIN]);
        assert_eq!(
            get_f32(unary(F32x4ConvertI32x4S, a)),
            [16_777_216.0, -1.0, 7.0, -2147483648.0]
        );
        assert_eq!(get_f32(unary(F32x4ConvertI32x4U, a))[1], 4294967296.0);
        assert_eq!(
            get_f64(unary(F64x2ConvertLowI32x4U, a)),
            [16_777_217.0, 4294967295.0]
        );
        assert_eq!(
            get_f64(unary(F64x2ConvertLowI32x4S, a)),
            [16_777_217.0, -1.0]
        );
        let d = unary(F32x4DemoteF64x2Zero, f64s([1e300, 0.1]));
        assert_eq!(get_f32(d), [f32::INFINITY, 0.1, 0.0, 0.0]);
        let p = unary(F64x2PromoteLowF32x4, f32s([0.5, -3.0, 9.0, 9.0]));
        assert_eq!(get_f64(p), [0.5, -3.0]);
    }

    #[test]
    fn integer_arith() {
        let p = unary(
            I8x16Popcnt,
            u128::from_le_bytes([0, 1, 3, 0xff, 0x80, 0x55, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        );
        assert_eq!(&p.to_le_bytes()[..7], &[0, 1, 2, 8, 1, 4, 3]);
        let a = i8s([-128, 127, -1, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(lane::<i8>(unary(I8x16Abs, a), 0), -128);
        let b = i8s([-1, 1, -128, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let s = binary(I8x16AddSatS, a, b);
        assert_eq!([0, 1, 2].map(|i| lane::<i8>(s, i)), [-128, 127, -128]);
        let avg = binary(
            I8x16AvgrU,
            u128::from_le_bytes([255; 16]),
            u128::from_le_bytes([0; 16]),
        );
        assert_eq!(avg, u128::from_le_bytes([128; 16]));
        assert_eq!(
            binary(I16x8AvgrU, i16s([-1; 8]), i16s([-2; 8])),
            i16s([-1; 8])
        );
        let dot = binary(I32x4DotI16x8S, i16s([i16::MIN; 8]), i16s([i16::MIN; 8]));
        assert_eq!(get_i32(dot), [i32::MIN; 4]);
        let em = binary(
            I32x4ExtMulHighI16x8U,
            i16s([0, 0, 0, 0, -1, 2, 0, 0]),
            i16s([0, 0, 0, 0, -1, 3, 0, 0]),
        );
        assert_eq!(get_i32(em)[..2], [0xfffe_0001u32 as i32, 6]);
        let pw = unary(
            I32x4ExtAddPairwiseI16x8S,
            i16s([-1, -2, i16::MAX, i16::MAX, 0, 0, 1, 1]),
        );
        assert_eq!(get_i32(pw), [-3, 65534, 0, 2]);
        let pw = unary(I16x8ExtAddPairwiseI8x16U, u128::from_le_bytes([255; 16]));
        assert_eq!(get_i16(pw), [510; 8]);
        let ext = unary(I64x2ExtendHighI32x4S, i32s([1, 2, -3, 4]));
        assert_eq!([lane::<i64>(ext, 0), lane::<i64>(ext, 1)], [-3, 4]);
        let mul = binary(
            I64x2ExtMulLowI32x4U,
            i32s([-1, 2, 0, 0]),
            i32s([-1, 3, 0, 0]),
        );
        assert_eq!(lane::<u64>(mul, 0), 0xffff_fffe_0000_0001);
    }

    #[test]
    fn comparisons() {
        let a = i8s([-1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let b = i8s([1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(binary(I8x16LtS, a, b), 0xff);
        assert_eq!(binary(I8x16LtU, a, b), 0xff00);
        assert_eq!(binary(I8x16Eq, a, b), !0xffff);
        let f = binary(
            F32x4Ne,
            f32s([f32::NAN, 1.0, 0.0, -0.0]),
            f32s([f32::NAN, 1.0, -0.0, 0.0]),
        );
        assert_eq!(f, 0xffff_ffff);
        let l = binary(
            I64x2LtS,
            build(|i| [-1i64, 5][i as usize]),
            build(|i| [0i64, 5][i as usize]),
        );
        assert_eq!(l, u128::from(u64::MAX));
    }

    #[test]
    fn bitmask_and_all_true() {
        let a = i8s([-1, 0, -128, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -5]);
        assert_eq!(test(I8x16Bitmask, a), 0b1000_0000_0000_0101);
        assert_eq!(
            test(I16x8Bitmask, i16s([-1, 1, -1, 1, 0, 0, 0, i16::MIN])),
            0b1000_0101
        );
        assert_eq!(test(I32x4Bitmask, i32s([1, -1, 0, -7])), 0b1010);
        assert_eq!(test(I64x2Bitmask, 1 << 127), 0b10);
        assert_eq!(test(I8x16AllTrue, a), 0);
        assert_eq!(test(I8x16AllTrue, u128::from_le_bytes([1; 16])), 1);
        assert_eq!(test(I16x8AllTrue, u128::from_le_bytes([1; 16])), 1);
        assert_eq!(test(I64x2AllTrue, 1), 0);
        assert_eq!(test(V128AnyTrue, 1 << 100), 1);
        assert_eq!(test(V128AnyTrue, 0), 0);
    }

    #[test]
    fn shifts_modulo_width() {
        let a = i8s([-128, 1, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            shift(I8x16ShrS, a, 9),
            i8s([-64, 0, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        );
        assert_eq!(shift(I8x16ShrU, a, 8), a);
        assert_eq!(
            shift(I8x16Shl, a, 15),
            i8s([0, -128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        );
        assert_eq!(get_i16(shift(I16x8ShrS, i16s([-32768; 8]), 31)), [-1; 8]);
        assert_eq!(get_i32(shift(I32x4Shl, i32s([1; 4]), 33)), [2; 4]);
        assert_eq!(
            shift(I64x2ShrU, u128::MAX, 64 + 60),
            0xf_0000_0000_0000_000f
        );
        assert_eq!(shift(I64x2ShrS, 1 << 127, 63), u128::MAX << 64);
    }

    #[test]
    fn shuffle_and_swizzle() {
        let a = u128::from_le_bytes(std::array::from_fn(|i| i as u8));
        let b = u128::from_le_bytes(std::array::from_fn(|i| 0x10 + i as u8));
        let lanes: [u8; 16] = std::array::from_fn(|i| 31 - i as u8);
        let s = shuffle(a, b, &lanes).to_le_bytes();
        assert_eq!(s, std::array::from_fn(|i| 31 - i as u8));
        let idx = u128::from_le_bytes([0, 15, 16, 255, 0x80, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 17]);
        let w = binary(I8x16Swizzle, a, idx).to_le_bytes();
        assert_eq!(w, [0, 15, 0, 0, 0, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            binary(I8x16RelaxedSwizzle, a, idx),
            binary(I8x16Swizzle, a, idx)
        );
    }

    #[test]
    fn splat_and_lanes() {
        assert_eq!(splat(I8x16Splat, 0x1ff), u128::from_le_bytes([0xff; 16]));
        assert_eq!(splat(I16x8Splat, 0xdead_beef), i16s([0xbeefu16 as i16; 8]));
        assert_eq!(splat(F32x4Splat, 1.5f32.to_bits().into()), f32s([1.5; 4]));
        assert_eq!(splat(F64x2Splat, 2.5f64.to_bits()), f64s([2.5; 2]));
        let v = i16s([0, 0, 0, -2, 0, 0, 0, 0]);
        assert_eq!(extract_lane(LaneOp::I16x8ExtractS, v, 3), 0xffff_fffe);
        assert_eq!(extract_lane(LaneOp::I16x8ExtractU, v, 3), 0xfffe);
        assert_eq!(extract_lane(LaneOp::I8x16ExtractS, v, 7), 0xffff_ffff);
        assert_eq!(extract_lane(LaneOp::I8x16ExtractU, v, 6), 0xfe);
        assert_eq!(
            extract_lane(LaneOp::I64x2Extract, u128::MAX << 64, 1),
            u64::MAX
        );
        let r = replace_lane(LaneOp::I32x4Replace, u128::MAX, 2, 0x1_0000_0005);
        assert_eq!(get_i32(r), [-1, -1, 5, -1]);
        let r = replace_lane(LaneOp::F64x2Replace, 0, 1, 3.0f64.to_bits());
        assert_eq!(get_f64(r), [0.0, 3.0]);
        let r = replace_lane(LaneOp::I8x16Replace, 0, 15, 0x1ab);
        assert_eq!(r, 0xab << 120);
        assert!(LaneOp::F32x4Replace.is_replace() && !LaneOp::F32x4Extract.is_replace());
    }

    #[test]
    fn loads_and_lane_memory() {
        let bytes = u128::from(u64::from_le_bytes([0x80, 1, 0xff, 2, 3, 4, 5, 0x7f]));
        assert_eq!(
            get_i16(load(MemOp::Load8x8S, bytes)),
            [-128, 1, -1, 2, 3, 4, 5, 127]
        );
        assert_eq!(
            get_i16(load(MemOp::Load8x8U, bytes)),
            [128, 1, 255, 2, 3, 4, 5, 127]
        );
        assert_eq!(
            get_i32(load(MemOp::Load16x4S, bytes)),
            [0x0180, 0x02ff, 0x0403, 0x7f05]
        );
        assert_eq!(get_i32(load(MemOp::Load16x4U, 0xffff)), [0xffff, 0, 0, 0]);
        let l = load(MemOp::Load32x2S, 0xffff_ffff);
        assert_eq!([lane::<i64>(l, 0), lane::<i64>(l, 1)], [-1, 0]);
        let l = load(MemOp::Load32x2U, 0xffff_ffff);
        assert_eq!(l, 0xffff_ffff);
        assert_eq!(
            load(MemOp::Load16Splat, 0xabcd),
            i16s([0xabcdu16 as i16; 8])
        );
        assert_eq!(load(MemOp::Load64Splat, 7), (7 << 64) | 7);
        assert_eq!(load(MemOp::Load32Zero, 0x1234_5678), 0x1234_5678);
        assert_eq!(load(MemOp::Load, u128::MAX), u128::MAX);
        let v = load_lane(MemOp::Load16Lane, u128::MAX, 5, 0x0102);
        assert_eq!(get_i16(v), [-1, -1, -1, -1, -1, 0x0102, -1, -1]);
        assert_eq!(load_lane(MemOp::Load64Lane, 0, 1, 9), 9 << 64);
        assert_eq!(store_lane(MemOp::Store16Lane, v, 5), 0x0102);
        assert_eq!(store_lane(MemOp::Store8Lane, v, 10), 0x02);
        assert_eq!(
            store_lane(MemOp::Store32Lane, i32s([1, 2, 3, -4]), 3),
            0xffff_fffc
        );
        assert_eq!(MemOp::Load8x8S.width(), 8);
        assert_eq!(MemOp::Load.width(), 16);
        assert!(!MemOp::Load64Zero.is_store() && !MemOp::Load64Zero.is_lane());
    }

    #[test]
    fn relaxed_madd_is_fused() {
        // x = 1 + 2^-23: x*x = 1 + 2^-22 + 2^-46, which a separate multiply rounds away.
        let x = f32::from_bits(0x3f80_0001);
        let c = -(x * x);
        let m = ternary(F32x4RelaxedMadd, f32s([x; 4]), f32s([x; 4]), f32s([c; 4]));
        assert_eq!(get_f32(m), [2f32.powi(-46); 4]);
        let n = ternary(F32x4RelaxedNmadd, f32s([x; 4]), f32s([x; 4]), f32s([-c; 4]));
        assert_eq!(get_f32(n), [-(2f32.powi(-46)); 4]);
        let y = f64::from_bits(0x3ff0_0000_0000_0001);
        let d = -(y * y);
        let m = ternary(F64x2RelaxedMadd, f64s([y; 2]), f64s([y; 2]), f64s([d; 2]));
        assert_eq!(get_f64(m), [2f64.powi(-104); 2]);
        let n = ternary(
            F64x2RelaxedNmadd,
            f64s([2.0; 2]),
            f64s([3.0; 2]),
            f64s([1.0; 2]),
        );
        assert_eq!(get_f64(n), [-5.0; 2]);
        // A NaN `a` is not negated (Cranelift's vfnmadd negates the product).
        let nan = f32s([f32::from_bits(0x7fc0_1234); 4]);
        let n = ternary(F32x4RelaxedNmadd, nan, f32s([1.0; 4]), f32s([2.0; 4]));
        assert_eq!(n, nan);
    }

    #[test]
    fn bitselect_and_laneselect() {
        let (a, b, m) = (0xaaaa_u128, 0x5555_u128, 0xff00_u128 | (1 << 127));
        let want = 0xaa55;
        assert_eq!(ternary(V128Bitselect, a, b, m), want);
        for op in [
            I8x16RelaxedLaneselect,
            I16x8RelaxedLaneselect,
            I32x4RelaxedLaneselect,
            I64x2RelaxedLaneselect,
        ] {
            assert_eq!(ternary(op, a, b, m), want);
        }
    }

    #[test]
    fn relaxed_dot_wraps() {
        let a = i8s([-128; 16]);
        // (-128 * -128) * 2 = 32768 wraps to -32768 in i16.
        assert_eq!(
            get_i16(binary(I16x8RelaxedDotI8x16I7x16S, a, a)),
            [i16::MIN; 8]
        );
        let c = i32s([1, 2, 3, i32::MAX]);
        let d = ternary(I32x4RelaxedDotI8x16I7x16AddS, a, a, c);
        assert_eq!(get_i32(d), [-65535, -65534, -65533, i32::MAX - 65536]);
        let a = i8s([1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, 0, 0, 0, 0]);
        let b = i8s([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 127, 127, 127, 127]);
        assert_eq!(
            get_i16(binary(I16x8RelaxedDotI8x16I7x16S, a, b)),
            [3, 7, 22, 30, -9, -21, 0, 0]
        );
        let d = ternary(I32x4RelaxedDotI8x16I7x16AddS, a, b, i32s([10, 0, 0, -1]));
        assert_eq!(get_i32(d), [20, 52, -30, -1]);
    }
}
