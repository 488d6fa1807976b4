//! Fast paths for the SIMD ops that dominate vectorised loops (lane-wise
//! integer and float arithmetic, bitwise ops, common splats).
//!
//! `simd.rs` is the reference: it defines every op once, generically over
//! lane types. Here the hot ones are written on fixed-size lane arrays, one
//! flat `match`, so that the compiler turns each into a few vector
//! instructions; anything else returns `None` and goes to `simd.rs`. The
//! test at the bottom checks that both agree on random inputs.

use super::simd::{MemOp, SimdOp};

/// `$to`: a v128's lanes as an array of `$t` (`$bits` wide, held in `$u`);
/// `$from`: back. Constant shifts of a u128 (two registers), so no memory.
macro_rules! lanes {
    ($to:ident, $from:ident, $t:ty, $n:literal, |$x:ident: $u:ty| $of:expr, |$y:ident| $bits:expr) => {
        #[inline(always)]
        fn $to(v: u128) -> [$t; $n] {
            std::array::from_fn(|i| {
                let $x = (v >> (i * (128 / $n))) as $u;
                $of
            })
        }
        #[inline(always)]
        fn $from(a: [$t; $n]) -> u128 {
            let mut v = 0u128;
            for (i, &$y) in a.iter().enumerate() {
                v |= (($bits) as u128) << (i * (128 / $n));
            }
            v
        }
    };
}

lanes!(u8s, from_u8s, u8, 16, |x: u8| x, |y| y);
lanes!(u16s, from_u16s, u16, 8, |x: u16| x, |y| y);
lanes!(u32s, from_u32s, u32, 4, |x: u32| x, |y| y);
lanes!(u64s, from_u64s, u64, 2, |x: u64| x, |y| y);
lanes!(f32s, from_f32s, f32, 4, |x: u32| f32::from_bits(x), |y| y
    .to_bits());
lanes!(f64s, from_f64s, f64, 2, |x: u64| f64::from_bits(x), |y| y
    .to_bits());

/// Lane-wise `f` of two arrays.
#[inline(always)]
fn zip<T: Copy, const N: usize>(a: [T; N], b: [T; N], f: impl Fn(T, T) -> T) -> [T; N] {
    std::array::from_fn(|i| f(a[i], b[i]))
}

/// The binary ops this file covers; `None` for the others.
#[inline(always)]
pub fn binary(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        V128And => a & b,
        V128Or => a | b,
        V128Xor => a ^ b,
        V128AndNot => a & !b,
        I8x16Add => from_u8s(zip(u8s(a), u8s(b), u8::wrapping_add)),
        I8x16Sub => from_u8s(zip(u8s(a), u8s(b), u8::wrapping_sub)),
        I8x16AddSatU => from_u8s(zip(u8s(a), u8s(b), u8::saturating_add)),
        I8x16SubSatU => from_u8s(zip(u8s(a), u8s(b), u8::saturating_sub)),
        I8x16MinU => from_u8s(zip(u8s(a), u8s(b), u8::min)),
        I8x16MaxU => from_u8s(zip(u8s(a), u8s(b), u8::max)),
        I8x16Eq => from_u8s(zip(u8s(a), u8s(b), |x, y| if x == y { !0 } else { 0 })),
        I16x8Add => from_u16s(zip(u16s(a), u16s(b), u16::wrapping_add)),
        I16x8Sub => from_u16s(zip(u16s(a), u16s(b), u16::wrapping_sub)),
        I16x8Mul => from_u16s(zip(u16s(a), u16s(b), u16::wrapping_mul)),
        I32x4Add => from_u32s(zip(u32s(a), u32s(b), u32::wrapping_add)),
        I32x4Sub => from_u32s(zip(u32s(a), u32s(b), u32::wrapping_sub)),
        I32x4Mul => from_u32s(zip(u32s(a), u32s(b), u32::wrapping_mul)),
        I32x4Eq => from_u32s(zip(u32s(a), u32s(b), |x, y| if x == y { !0 } else { 0 })),
        I32x4MinU => from_u32s(zip(u32s(a), u32s(b), u32::min)),
        I32x4MaxU => from_u32s(zip(u32s(a), u32s(b), u32::max)),
        I16x8MinU => from_u16s(zip(u16s(a), u16s(b), u16::min)),
        I16x8MaxU => from_u16s(zip(u16s(a), u16s(b), u16::max)),
        I16x8MinS => from_u16s(zip(u16s(a), u16s(b), |x, y| {
            (x as i16).min(y as i16) as u16
        })),
        I16x8MaxS => from_u16s(zip(u16s(a), u16s(b), |x, y| {
            (x as i16).max(y as i16) as u16
        })),
        I8x16NarrowI16x8U => narrow(u16s(a), u16s(b), |x| (x as i16).clamp(0, 255) as u8),
        I8x16NarrowI16x8S => narrow(u16s(a), u16s(b), |x| (x as i16).clamp(-128, 127) as u8),
        I16x8NarrowI32x4U => from_u16s(concat(u32s(a), u32s(b), |x| {
            (x as i32).clamp(0, 65535) as u16
        })),
        I16x8NarrowI32x4S => from_u16s(concat(u32s(a), u32s(b), |x| {
            (x as i32).clamp(-32768, 32767) as u16
        })),
        I32x4MinS => from_u32s(zip(u32s(a), u32s(b), |x, y| {
            (x as i32).min(y as i32) as u32
        })),
        I32x4MaxS => from_u32s(zip(u32s(a), u32s(b), |x, y| {
            (x as i32).max(y as i32) as u32
        })),
        I64x2Add => from_u64s(zip(u64s(a), u64s(b), u64::wrapping_add)),
        I64x2Sub => from_u64s(zip(u64s(a), u64s(b), u64::wrapping_sub)),
        I64x2Mul => from_u64s(zip(u64s(a), u64s(b), u64::wrapping_mul)),
        // IEEE arithmetic. A NaN result is the first NaN operand, quieted, as
        // x86-64 and so the JIT give it (the host's `x + y` may be emitted
        // with its operands swapped, picking the other NaN).
        F32x4Add => from_f32s(zip(f32s(a), f32s(b), |x, y| nan_first(x, y, x + y))),
        F32x4Sub => from_f32s(zip(f32s(a), f32s(b), |x, y| nan_first(x, y, x - y))),
        F32x4Mul => from_f32s(zip(f32s(a), f32s(b), |x, y| nan_first(x, y, x * y))),
        F32x4Div => from_f32s(zip(f32s(a), f32s(b), |x, y| nan_first(x, y, x / y))),
        F64x2Add => from_f64s(zip(f64s(a), f64s(b), |x, y| nan_first(x, y, x + y))),
        F64x2Sub => from_f64s(zip(f64s(a), f64s(b), |x, y| nan_first(x, y, x - y))),
        F64x2Mul => from_f64s(zip(f64s(a), f64s(b), |x, y| nan_first(x, y, x * y))),
        F64x2Div => from_f64s(zip(f64s(a), f64s(b), |x, y| nan_first(x, y, x / y))),
        _ => return None,
    })
}

/// Any binary op, by the fastest form the host has: on x86-64 `simd_x86`'s
/// vector instructions where it has the op (SSE2 inline, SSE4.1 if the host
/// has it), otherwise (out of line there, so that an interpreter handler
/// inlining this keeps its frameless tail dispatch) `binary`, else the
/// reference `simd.rs`.
#[inline(always)]
pub fn binary_any(op: SimdOp, a: u128, b: u128) -> u128 {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(r) = super::simd_x86::sse2(op, a, b) {
            return r;
        }
        if super::simd_x86::covers(op) && super::simd_x86::available() {
            // SAFETY: the host has SSE4.1 (just checked).
            return unsafe { super::simd_x86::binary(op, a, b) };
        }
        binary_out_of_line(op, a, b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    binary(op, a, b).unwrap_or_else(|| super::simd::binary(op, a, b))
}

#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn binary_out_of_line(op: SimdOp, a: u128, b: u128) -> u128 {
    binary(op, a, b).unwrap_or_else(|| super::simd::binary(op, a, b))
}

/// `a`'s lanes then `b`'s, each converted by `f` (the narrowing ops).
#[inline(always)]
fn concat<T: Copy, U, const N: usize, const M: usize>(
    a: [T; N],
    b: [T; N],
    f: impl Fn(T) -> U,
) -> [U; M] {
    std::array::from_fn(|i| f(if i < N { a[i] } else { b[i - N] }))
}

#[inline(always)]
fn narrow(a: [u16; 8], b: [u16; 8], f: impl Fn(u16) -> u8) -> u128 {
    from_u8s(concat(a, b, f))
}

/// `i8x16.shuffle` by its constants `k` as `shuffle_consts` makes them.
#[inline(always)]
pub fn shuffle_by(a: u128, b: u128, k: &[u128]) -> u128 {
    #[cfg(target_arch = "x86_64")]
    if super::simd_x86::available() {
        // SAFETY: the host has SSE4.1 (just checked).
        return unsafe { super::simd_x86::shuffle(a, b, k[1..3].as_ptr()) };
    }
    shuffle(a, b, &k[0].to_le_bytes())
}

/// The constants an `i8x16.shuffle` keeps: its lanes, then (x86-64) the
/// two byte-shuffle masks of `simd_x86::shuffle_masks`.
pub fn shuffle_consts(lanes: [u8; 16]) -> Vec<u128> {
    let mut k = vec![u128::from_le_bytes(lanes)];
    #[cfg(target_arch = "x86_64")]
    {
        let (a, b) = super::simd_x86::shuffle_masks(&lanes);
        k.extend([a, b]);
    }
    k
}

/// `i8x16.shuffle` (lane indices below 32, by validation).
#[inline(always)]
pub fn shuffle(a: u128, b: u128, lanes: &[u8; 16]) -> u128 {
    let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
    from_u8s(std::array::from_fn(|i| {
        let l = lanes[i] as usize & 31;
        if l < 16 {
            x[l]
        } else {
            y[l - 16]
        }
    }))
}

/// `r`, unless an operand is NaN: then the first NaN of (`x`, `y`), quieted
/// (`z + z` quiets a NaN and keeps its sign and payload).
#[inline(always)]
fn nan_first<F: Copy + PartialEq + std::ops::Add<Output = F>>(x: F, y: F, r: F) -> F {
    #[allow(clippy::eq_op)] // `z != z` is the NaN test for a generic float
    let nan = |z: F| z != z;
    if nan(x) {
        x + x
    } else if nan(y) {
        y + y
    } else {
        r
    }
}

/// The splats this file covers (`x` as an operand slot); `None` for the others.
#[inline(always)]
pub fn splat(op: SimdOp, x: u64) -> Option<u128> {
    use SimdOp::*;
    Some(match op {
        I8x16Splat => from_u8s([x as u8; 16]),
        I16x8Splat => from_u16s([x as u16; 8]),
        I32x4Splat | F32x4Splat => from_u32s([x as u32; 4]),
        I64x2Splat | F64x2Splat => from_u64s([x; 2]),
        _ => return None,
    })
}

/// A load other than `v128.load` and the lane loads, from the `op.width()`
/// bytes read (little-endian, zero-extended).
#[inline(always)]
pub fn load(op: MemOp, bytes: u64) -> u128 {
    use MemOp::*;
    let b = bytes.to_le_bytes();
    match op {
        Load8Splat => from_u8s([bytes as u8; 16]),
        Load16Splat => from_u16s([bytes as u16; 8]),
        Load32Splat => from_u32s([bytes as u32; 4]),
        Load64Splat => from_u64s([bytes; 2]),
        Load8x8S => from_u16s(std::array::from_fn(|i| b[i] as i8 as i16 as u16)),
        Load8x8U => from_u16s(std::array::from_fn(|i| b[i] as u16)),
        Load16x4S => from_u32s(std::array::from_fn(|i| {
            (bytes >> (16 * i)) as i16 as i32 as u32
        })),
        Load16x4U => from_u32s(std::array::from_fn(|i| (bytes >> (16 * i)) as u16 as u32)),
        Load32x2S => from_u64s(std::array::from_fn(|i| {
            (bytes >> (32 * i)) as i32 as i64 as u64
        })),
        Load32x2U => from_u64s(std::array::from_fn(|i| (bytes >> (32 * i)) as u32 as u64)),
        // Load32Zero, Load64Zero (the bytes are zero-extended already).
        _ => bytes as u128,
    }
}

#[cfg(test)]
mod tests {
    use super::super::simd::{self, Shape, SimdOp};

    /// Inputs: random bits, and lanes of special values (NaNs, infinities,
    /// zeros of both signs, extreme integers).
    fn inputs() -> Vec<u128> {
        let mut v = vec![0, u128::MAX, 1, 1 << 127];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let hi = s.rotate_left(29) ^ 0x5555_aaaa_0f0f_f0f0;
            v.push((hi as u128) << 64 | s as u128);
        }
        for f in [f32::NAN, f32::INFINITY, -0.0, 0.0, f32::MIN_POSITIVE, -1.5] {
            let b = f.to_bits() as u128;
            v.push(b | b << 32 | b << 64 | b << 96);
        }
        for f in [f64::NAN, f64::NEG_INFINITY, -0.0, 1e308] {
            let b = f.to_bits() as u128;
            v.push(b | b << 64);
        }
        v
    }

    /// Equal, or NaN in the same f32 lanes (or f64 lanes) on both sides: the
    /// fast float paths may pick another NaN than the reference.
    fn same(op: SimdOp, x: u128, y: u128) -> bool {
        let name = format!("{op:?}");
        let w = if name.starts_with("F64") { 64 } else { 32 };
        x == y
            || (name.starts_with('F')
                && (0..128 / w).all(|i| {
                    let lane = |v: u128| (v >> (i * w)) as u64 & (u64::MAX >> (64 - w));
                    let nan = |b: u64| {
                        if w == 32 {
                            f32::from_bits(b as u32).is_nan()
                        } else {
                            f64::from_bits(b).is_nan()
                        }
                    };
                    lane(x) == lane(y) || (nan(lane(x)) && nan(lane(y)))
                }))
    }

    /// The host's vector form of `op` (`simd_x86`), if it has one.
    fn vector(op: SimdOp, a: u128, b: u128) -> Option<u128> {
        #[cfg(target_arch = "x86_64")]
        {
            use super::super::simd_x86 as x86;
            if let Some(r) = x86::sse2(op, a, b) {
                assert!(!x86::covers(op), "{op:?} has two vector forms");
                return Some(r);
            }
            if x86::covers(op) && x86::available() {
                // SAFETY: the host has SSE4.1 (just checked).
                return Some(unsafe { x86::binary(op, a, b) });
            }
        }
        let _ = (op, a, b);
        None
    }

    /// What the interpreter runs for `op` (`binary_any`), where that is a
    /// fast path.
    fn vector_or_lanes(op: SimdOp, a: u128, b: u128) -> Option<u128> {
        vector(op, a, b).or_else(|| super::binary(op, a, b))
    }

    /// Every op `simd_x86` claims has its vector form (it would panic
    /// otherwise), and on an SSE4.1 host the hot float and integer ops do.
    #[test]
    fn vector_forms_cover_what_they_claim() {
        let mut n = 0;
        for &op in SimdOp::ALL {
            if op.shape() == Shape::Binary && vector(op, 1, 2).is_some() {
                n += 1;
            }
        }
        #[cfg(target_arch = "x86_64")]
        if super::super::simd_x86::available() {
            assert!(n >= 50, "only {n} vector forms");
        }
        let _ = n;
    }

    #[test]
    fn fast_paths_agree_with_the_reference() {
        let ins = inputs();
        let mut covered = 0;
        for &op in SimdOp::ALL {
            match op.shape() {
                Shape::Binary => {
                    for (&a, &b) in ins.iter().zip(ins.iter().rev()) {
                        // Both paths: the host's vector forms (where it has
                        // them) and the lane arrays.
                        for f in [super::binary(op, a, b), vector(op, a, b)]
                            .into_iter()
                            .flatten()
                        {
                            assert!(same(op, f, simd::binary(op, a, b)), "{op:?} {a:#x} {b:#x}");
                            covered += 1;
                        }
                    }
                }
                Shape::Splat => {
                    for &a in &ins {
                        if let Some(f) = super::splat(op, a as u64) {
                            assert_eq!(f, simd::splat(op, a as u64), "{op:?} {a:#x}");
                            covered += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        assert!(covered > 30 * 200, "only {covered} checks");
    }

    /// Two NaN operands: the first one's payload, quieted, whatever order the
    /// host's add is emitted in.
    #[test]
    fn float_nan_operands_give_the_first_nan() {
        let (a, b) = (0x7fc0_0001u32, 0x7fc0_0002u32);
        let v = |x: u32| (x as u128) * 0x0000_0001_0000_0001_0000_0001_0000_0001;
        for op in [
            SimdOp::F32x4Add,
            SimdOp::F32x4Mul,
            SimdOp::F32x4Sub,
            SimdOp::F32x4Div,
        ] {
            for f in [super::binary, vector_or_lanes] {
                assert_eq!(f(op, v(a), v(b)), Some(v(a)), "{op:?}");
                assert_eq!(f(op, v(b), v(a)), Some(v(b)), "{op:?}");
                // One NaN lane among numbers: that lane alone is NaN.
                let mixed = v(a) & u128::MAX << 96 | 0x3f80_0000;
                let one = v(0x3f80_0000);
                let got = f(op, mixed, one).unwrap();
                assert_eq!(got >> 96, a as u128, "{op:?}");
                assert!(!f32::from_bits(got as u32).is_nan(), "{op:?}");
            }
        }
        // A signalling NaN comes out quiet, and so does an f64 one.
        for f in [super::binary, vector_or_lanes] {
            assert_eq!(
                f(SimdOp::F32x4Add, v(0x7f80_0001), v(0)),
                Some(v(0x7fc0_0001))
            );
            let d = |x: u64| x as u128 | (x as u128) << 64;
            let (s, q) = (0x7ff0_0000_0000_0001, 0x7ff8_0000_0000_0001);
            assert_eq!(f(SimdOp::F64x2Mul, d(1), d(s)), Some(d(q)));
        }
    }

    #[test]
    fn shuffle_agrees_with_the_reference() {
        let ins = inputs();
        for (&a, &b) in ins.iter().zip(ins.iter().skip(1)) {
            let lanes: [u8; 16] = std::array::from_fn(|i| ((a >> (8 * i)) as u8) & 31);
            let want = simd::shuffle(a, b, &lanes);
            assert_eq!(super::shuffle(a, b, &lanes), want);
            assert_eq!(super::shuffle_by(a, b, &super::shuffle_consts(lanes)), want);
        }
    }

    #[test]
    fn loads_agree_with_the_reference() {
        use super::super::simd::MemOp::*;
        for op in [
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
        ] {
            let w = op.width();
            for &x in &inputs() {
                let bytes = x as u64 & (u64::MAX >> (64 - 8 * w));
                assert_eq!(
                    super::load(op, bytes),
                    simd::load(op, bytes as u128),
                    "{op:?} {bytes:#x}"
                );
            }
        }
    }
}
