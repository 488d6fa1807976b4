//! x86-64 vector forms of the interpreter's hottest SIMD ops: one host
//! instruction (or a few) per Wasm op where `simd_fast.rs`'s lane arrays
//! take a few dozen. `sse2` needs nothing beyond x86-64 and is inlined into
//! the handlers; `binary` and `shuffle` need SSE4.1 (and so SSSE3),
//! detected once per process, and are calls. For any op not here, and
//! without SSE4.1, `simd_fast.rs` and `simd.rs` answer as before.
//!
//! Float arithmetic picks a NaN result itself: the first NaN operand,
//! quieted (as `simd_fast`'s lane arrays and the JIT do), since the host
//! may emit `x + y` with its operands swapped and so pick the other NaN of
//! two. A NaN made from non-NaN operands (`inf - inf`) is the host's
//! default NaN on every path. `simd_fast`'s tests check these forms against
//! the reference `simd.rs` like the portable ones.

use std::arch::x86_64::*;

use super::simd::SimdOp;

/// Whether the host has SSE4.1 (and so SSSE3): std caches the answer, so
/// this is a load and a test.
#[inline(always)]
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("sse4.1")
}

#[inline(always)]
fn v(x: u128) -> __m128i {
    // SAFETY: both are 16 plain bytes.
    unsafe { std::mem::transmute::<u128, __m128i>(x) }
}

#[inline(always)]
fn u(x: __m128i) -> u128 {
    // SAFETY: both are 16 plain bytes.
    unsafe { std::mem::transmute::<__m128i, u128>(x) }
}

/// `op` on `a` and `b` by SSE2 instructions, which every x86-64 host has:
/// inlined into the interpreter's handlers (no call, no memory). `None`
/// for an op it has no form for.
#[inline(always)]
pub fn sse2(op: SimdOp, a: u128, b: u128) -> Option<u128> {
    use SimdOp::*;
    let (x, y) = (v(a), v(b));
    // SAFETY: SSE2 is part of x86-64, and the target enables it (checked
    // at compile time below).
    Some(u(unsafe {
        match op {
            V128And => _mm_and_si128(x, y),
            V128Or => _mm_or_si128(x, y),
            V128Xor => _mm_xor_si128(x, y),
            V128AndNot => _mm_andnot_si128(y, x),
            I8x16Add => _mm_add_epi8(x, y),
            I8x16Sub => _mm_sub_epi8(x, y),
            I8x16AddSatS => _mm_adds_epi8(x, y),
            I8x16AddSatU => _mm_adds_epu8(x, y),
            I8x16SubSatS => _mm_subs_epi8(x, y),
            I8x16SubSatU => _mm_subs_epu8(x, y),
            I8x16MinU => _mm_min_epu8(x, y),
            I8x16MaxU => _mm_max_epu8(x, y),
            I8x16AvgrU => _mm_avg_epu8(x, y),
            I8x16Eq => _mm_cmpeq_epi8(x, y),
            I16x8Add => _mm_add_epi16(x, y),
            I16x8Sub => _mm_sub_epi16(x, y),
            I16x8AddSatS => _mm_adds_epi16(x, y),
            I16x8AddSatU => _mm_adds_epu16(x, y),
            I16x8SubSatS => _mm_subs_epi16(x, y),
            I16x8SubSatU => _mm_subs_epu16(x, y),
            I16x8Mul => _mm_mullo_epi16(x, y),
            I16x8MinS => _mm_min_epi16(x, y),
            I16x8MaxS => _mm_max_epi16(x, y),
            I16x8AvgrU => _mm_avg_epu16(x, y),
            I16x8Eq => _mm_cmpeq_epi16(x, y),
            I32x4Add => _mm_add_epi32(x, y),
            I32x4Sub => _mm_sub_epi32(x, y),
            I32x4Eq => _mm_cmpeq_epi32(x, y),
            I64x2Add => _mm_add_epi64(x, y),
            I64x2Sub => _mm_sub_epi64(x, y),
            // The narrowing ops read their lanes as signed and saturate, as
            // the pack instructions do; `a` gives the low half.
            I8x16NarrowI16x8S => _mm_packs_epi16(x, y),
            I8x16NarrowI16x8U => _mm_packus_epi16(x, y),
            I16x8NarrowI32x4S => _mm_packs_epi32(x, y),
            F32x4Add | F32x4Sub | F32x4Mul | F32x4Div => {
                let (xs, ys) = (_mm_castsi128_ps(x), _mm_castsi128_ps(y));
                let r = match op {
                    F32x4Add => _mm_add_ps(xs, ys),
                    F32x4Sub => _mm_sub_ps(xs, ys),
                    F32x4Mul => _mm_mul_ps(xs, ys),
                    _ => _mm_div_ps(xs, ys),
                };
                if _mm_movemask_ps(_mm_cmpunord_ps(xs, ys)) == 0 {
                    _mm_castps_si128(r)
                } else {
                    let (nx, ny) = (_mm_cmpunord_ps(xs, xs), _mm_cmpunord_ps(ys, ys));
                    let (nx, ny) = (_mm_castps_si128(nx), _mm_castps_si128(ny));
                    first_nan(
                        _mm_castps_si128(r),
                        x,
                        y,
                        nx,
                        ny,
                        _mm_set1_epi32(0x0040_0000),
                    )
                }
            }
            F64x2Add | F64x2Sub | F64x2Mul | F64x2Div => {
                let (xd, yd) = (_mm_castsi128_pd(x), _mm_castsi128_pd(y));
                let r = match op {
                    F64x2Add => _mm_add_pd(xd, yd),
                    F64x2Sub => _mm_sub_pd(xd, yd),
                    F64x2Mul => _mm_mul_pd(xd, yd),
                    _ => _mm_div_pd(xd, yd),
                };
                if _mm_movemask_pd(_mm_cmpunord_pd(xd, yd)) == 0 {
                    _mm_castpd_si128(r)
                } else {
                    let (nx, ny) = (_mm_cmpunord_pd(xd, xd), _mm_cmpunord_pd(yd, yd));
                    let (nx, ny) = (_mm_castpd_si128(nx), _mm_castpd_si128(ny));
                    let quiet = _mm_set1_epi64x(0x0008_0000_0000_0000);
                    first_nan(_mm_castpd_si128(r), x, y, nx, ny, quiet)
                }
            }
            _ => return None,
        }
    }))
}

#[cfg(not(target_feature = "sse2"))]
compile_error!("x86-64 without SSE2: simd_x86::sse2 assumes it");

/// `r`, but in each lane where `x` is NaN (mask `nx`) `x` quieted (`quiet`
/// is the quiet bit), else where `y` is (`ny`) `y` quieted.
#[inline(always)]
fn first_nan(
    r: __m128i,
    x: __m128i,
    y: __m128i,
    nx: __m128i,
    ny: __m128i,
    quiet: __m128i,
) -> __m128i {
    // SAFETY: SSE2, as in `sse2`.
    let pick = |r, n, z| unsafe {
        _mm_or_si128(
            _mm_andnot_si128(n, r),
            _mm_and_si128(n, _mm_or_si128(z, quiet)),
        )
    };
    pick(pick(r, ny, y), nx, x)
}

/// Whether `binary` (SSE4.1) has a form for `op`.
#[inline(always)]
pub fn covers(op: SimdOp) -> bool {
    use SimdOp::*;
    matches!(
        op,
        I8x16MinS
            | I8x16MaxS
            | I16x8MinU
            | I16x8MaxU
            | I32x4Mul
            | I32x4MinS
            | I32x4MinU
            | I32x4MaxS
            | I32x4MaxU
            | I64x2Eq
            | I16x8NarrowI32x4U
    )
}

/// `op` on `a` and `b` by SSE4.1 instructions, for an op that `covers`
/// says is here. Not inlined into the interpreter's handlers (it cannot
/// be: other target features), so its arguments and result stay in
/// registers, which keeps the handlers' tail dispatch (`tests/tail_calls.rs`).
///
/// # Safety
/// The host must have SSE4.1 (`available`).
#[target_feature(enable = "sse4.1")]
pub unsafe fn binary(op: SimdOp, a: u128, b: u128) -> u128 {
    use SimdOp::*;
    let (x, y) = (v(a), v(b));
    u(match op {
        I8x16MinS => _mm_min_epi8(x, y),
        I8x16MaxS => _mm_max_epi8(x, y),
        I16x8MinU => _mm_min_epu16(x, y),
        I16x8MaxU => _mm_max_epu16(x, y),
        I32x4Mul => _mm_mullo_epi32(x, y),
        I32x4MinS => _mm_min_epi32(x, y),
        I32x4MinU => _mm_min_epu32(x, y),
        I32x4MaxS => _mm_max_epi32(x, y),
        I32x4MaxU => _mm_max_epu32(x, y),
        I64x2Eq => _mm_cmpeq_epi64(x, y),
        I16x8NarrowI32x4U => _mm_packus_epi32(x, y),
        _ => unreachable!("simd_x86::binary: {op:?} is not covered"),
    })
}

/// The two `pshufb` masks of an `i8x16.shuffle`: byte `i` of the first
/// picks lane `lanes[i]` of `a` (0x80, a zero byte, if it is `b`'s), of
/// the second lane `lanes[i] - 16` of `b`.
pub fn shuffle_masks(lanes: &[u8; 16]) -> (u128, u128) {
    let pick = |from_b: bool| {
        u128::from_le_bytes(std::array::from_fn(|i| {
            let l = lanes[i] & 31;
            match (l >= 16, from_b) {
                (false, false) => l,
                (true, true) => l - 16,
                _ => 0x80,
            }
        }))
    };
    (pick(false), pick(true))
}

/// `i8x16.shuffle` of `a` and `b` by the masks of `shuffle_masks`, at
/// `masks` and the next one (a pointer: arguments stay in registers).
///
/// # Safety
/// The host must have SSE4.1 (`available`), which implies SSSE3; `masks`
/// points to two readable `u128`s.
#[target_feature(enable = "sse4.1")]
pub unsafe fn shuffle(a: u128, b: u128, masks: *const u128) -> u128 {
    // SAFETY: by the caller, two readable values.
    let (ma, mb) = unsafe { (masks.read_unaligned(), masks.add(1).read_unaligned()) };
    u(_mm_or_si128(
        _mm_shuffle_epi8(v(a), v(ma)),
        _mm_shuffle_epi8(v(b), v(mb)),
    ))
}
