/* Wasm SIMD through explicit intrinsics.  Built with -msimd128, every
 * operation below uses clang's <wasm_simd128.h>; the native reference build
 * (no __wasm_simd128__) computes the same lanes one by one in plain C, so
 * both print identical text.
 *
 * Each operation is a separate function called through a table, over several
 * input vectors (random bits and edge values for integers; signed zeros,
 * infinities, denormals, out-of-range and halfway values for floats), so the
 * compiler cannot fold anything away.  Floats print with %.9g / %.17g and any
 * NaN prints as "nan": Wasm leaves the sign and payload of most NaN results
 * open.  NaN inputs appear only where that is harmless (comparisons,
 * trunc_sat, or results printed as "nan"). */
#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>
#include <string.h>
#include <math.h>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

typedef union {
    int8_t i8[16];
    uint8_t u8[16];
    int16_t i16[8];
    uint16_t u16[8];
    int32_t i32[4];
    uint32_t u32[4];
    int64_t i64[2];
    uint64_t u64[2];
    float f32[4];
    double f64[2];
} vec;

/* Shared byte buffer for the load operations (filled from the PRNG in main). */
static uint8_t gmem[64];

/* ---- scalar helpers (only the native reference path uses them) ---- */
#ifndef __wasm_simd128__

static int32_t clampi(int64_t x, int64_t lo, int64_t hi) { return (int32_t)(x < lo ? lo : x > hi ? hi : x); }
#define SAT8(x) clampi((x), -128, 127)
#define SATU8(x) clampi((x), 0, 255)
#define SAT16(x) clampi((x), -32768, 32767)
#define SATU16(x) clampi((x), 0, 65535)
#define MASK(x) ((x) ? -1 : 0)

static int popc8(unsigned x) {
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

/* Wasm fNxM.min/max: NaN if either is NaN, and -0 < +0. */
static double wmin(double a, double b) {
    if (a != a || b != b) return NAN;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static double wmax(double a, double b) {
    if (a != a || b != b) return NAN;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* Saturating float -> int truncation (NaN -> 0). */
static int32_t sat_s32(double x) {
    if (x != x) return 0;
    if (x <= -2147483648.0) return INT32_MIN;
    if (x >= 2147483648.0) return INT32_MAX;
    return (int32_t)x;
}
static uint32_t sat_u32(double x) {
    if (x != x || x <= -1.0) return 0;
    if (x >= 4294967296.0) return UINT32_MAX;
    return (uint32_t)(x < 0 ? 0 : x);
}

/* lane-width in bytes -> bitmask of the lanes' sign bits */
static int32_t bitmask_of(const vec *v, int w) {
    int32_t m = 0;
    for (int i = 0; i < 16 / w; i++) m |= (v->u8[i * w + w - 1] >> 7) << i;
    return m;
}
static int32_t all_true_of(const vec *v, int w) {
    for (int i = 0; i < 16 / w; i++) {
        int nz = 0;
        for (int j = 0; j < w; j++) nz |= v->u8[i * w + j];
        if (!nz) return 0;
    }
    return 1;
}
static int32_t any_true_of(const vec *v) { return all_true_of(v, 16); }

static uint8_t pick(const vec *a, const vec *b, int j) { return j < 16 ? a->u8[j] : b->u8[j - 16]; }
static const uint8_t SHUF_A[16] = {0, 17, 2, 19, 4, 21, 6, 23, 31, 30, 29, 28, 3, 3, 16, 8};
static const uint8_t SHUF_B[16] = {4, 5, 6, 7, 24, 25, 26, 27, 0, 1, 2, 3, 12, 13, 14, 15};   /* i32x4 1,6,0,3 */
static const uint8_t SHUF_C[16] = {2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 0, 1, 16, 17};  /* i16x8 1,9,3,11,5,13,0,8 */
static const uint8_t SHUF_D[16] = {24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3, 4, 5, 6, 7};    /* i64x2 3,0 */

/* any_true(a & b), all_true_i8(a | b), all_true_i16(a != b) */
static int32_t mixed_true(const vec *a, const vec *b, int which) {
    vec r;
    for (int i = 0; i < 16; i++)
        r.u8[i] = which == 0 ? a->u8[i] & b->u8[i] : which == 1 ? a->u8[i] | b->u8[i]
                : (uint8_t)MASK(a->u16[i / 2] != b->u16[i / 2]);
    return all_true_of(&r, which == 0 ? 16 : which == 1 ? 1 : 2);
}

static uint64_t rd(const uint8_t *p, int n) { /* little-endian, zero-extended */
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static int64_t rds(const uint8_t *p, int n) { /* sign-extended */
    uint64_t v = rd(p, n);
    int sh = 64 - 8 * n;
    return sh ? (int64_t)(v << sh) >> sh : (int64_t)v;
}
#endif

/* ---- the operations ----
 * X(name, family, print kind, lanes, field, SIMD expression, scalar lane expression)
 * SIMD: a, b, c are v128_t operands, s a uint32_t.  Scalar: A, B, C are vec,
 * i the lane, s the same uint32_t; the result lane is R.field[i]. */
enum { FI, FF, FD };
enum { K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F32, K_F64 };

#define OPS(X) \
    /* i8x16 */ \
    X(i8x16_add, FI, K_I8, 16, u8, wasm_i8x16_add(a, b), A.u8[i] + B.u8[i]) \
    X(i8x16_sub, FI, K_I8, 16, u8, wasm_i8x16_sub(a, b), A.u8[i] - B.u8[i]) \
    X(i8x16_add_sat_s, FI, K_I8, 16, i8, wasm_i8x16_add_sat(a, b), SAT8(A.i8[i] + B.i8[i])) \
    X(i8x16_add_sat_u, FI, K_U8, 16, u8, wasm_u8x16_add_sat(a, b), SATU8(A.u8[i] + B.u8[i])) \
    X(i8x16_sub_sat_s, FI, K_I8, 16, i8, wasm_i8x16_sub_sat(a, b), SAT8(A.i8[i] - B.i8[i])) \
    X(i8x16_sub_sat_u, FI, K_U8, 16, u8, wasm_u8x16_sub_sat(a, b), SATU8(A.u8[i] - B.u8[i])) \
    X(i8x16_min_s, FI, K_I8, 16, i8, wasm_i8x16_min(a, b), A.i8[i] < B.i8[i] ? A.i8[i] : B.i8[i]) \
    X(i8x16_min_u, FI, K_U8, 16, u8, wasm_u8x16_min(a, b), A.u8[i] < B.u8[i] ? A.u8[i] : B.u8[i]) \
    X(i8x16_max_s, FI, K_I8, 16, i8, wasm_i8x16_max(a, b), A.i8[i] > B.i8[i] ? A.i8[i] : B.i8[i]) \
    X(i8x16_max_u, FI, K_U8, 16, u8, wasm_u8x16_max(a, b), A.u8[i] > B.u8[i] ? A.u8[i] : B.u8[i]) \
    X(i8x16_avgr_u, FI, K_U8, 16, u8, wasm_u8x16_avgr(a, b), (A.u8[i] + B.u8[i] + 1) >> 1) \
    X(i8x16_abs, FI, K_I8, 16, u8, wasm_i8x16_abs(a), A.i8[i] < 0 ? 0u - A.u8[i] : A.u8[i]) \
    X(i8x16_neg, FI, K_I8, 16, u8, wasm_i8x16_neg(a), 0u - A.u8[i]) \
    X(i8x16_popcnt, FI, K_U8, 16, u8, wasm_i8x16_popcnt(a), popc8(A.u8[i])) \
    X(i8x16_shl, FI, K_I8, 16, u8, wasm_i8x16_shl(a, s), A.u8[i] << (s & 7)) \
    X(i8x16_shr_s, FI, K_I8, 16, i8, wasm_i8x16_shr(a, s), A.i8[i] >> (s & 7)) \
    X(i8x16_shr_u, FI, K_U8, 16, u8, wasm_u8x16_shr(a, s), A.u8[i] >> (s & 7)) \
    X(i8x16_eq, FI, K_I8, 16, i8, wasm_i8x16_eq(a, b), MASK(A.i8[i] == B.i8[i])) \
    X(i8x16_ne, FI, K_I8, 16, i8, wasm_i8x16_ne(a, b), MASK(A.i8[i] != B.i8[i])) \
    X(i8x16_lt_s, FI, K_I8, 16, i8, wasm_i8x16_lt(a, b), MASK(A.i8[i] < B.i8[i])) \
    X(i8x16_lt_u, FI, K_I8, 16, i8, wasm_u8x16_lt(a, b), MASK(A.u8[i] < B.u8[i])) \
    X(i8x16_gt_s, FI, K_I8, 16, i8, wasm_i8x16_gt(a, b), MASK(A.i8[i] > B.i8[i])) \
    X(i8x16_gt_u, FI, K_I8, 16, i8, wasm_u8x16_gt(a, b), MASK(A.u8[i] > B.u8[i])) \
    X(i8x16_le_s, FI, K_I8, 16, i8, wasm_i8x16_le(a, b), MASK(A.i8[i] <= B.i8[i])) \
    X(i8x16_le_u, FI, K_I8, 16, i8, wasm_u8x16_le(a, b), MASK(A.u8[i] <= B.u8[i])) \
    X(i8x16_ge_s, FI, K_I8, 16, i8, wasm_i8x16_ge(a, b), MASK(A.i8[i] >= B.i8[i])) \
    X(i8x16_ge_u, FI, K_I8, 16, i8, wasm_u8x16_ge(a, b), MASK(A.u8[i] >= B.u8[i])) \
    X(i8x16_narrow_i16x8_s, FI, K_I8, 16, i8, wasm_i8x16_narrow_i16x8(a, b), SAT8(i < 8 ? A.i16[i] : B.i16[i - 8])) \
    X(i8x16_narrow_i16x8_u, FI, K_U8, 16, u8, wasm_u8x16_narrow_i16x8(a, b), SATU8(i < 8 ? A.i16[i] : B.i16[i - 8])) \
    X(i8x16_swizzle, FI, K_U8, 16, u8, wasm_i8x16_swizzle(a, wasm_v128_and(b, wasm_i8x16_splat((int8_t)0x9f))), \
      (B.u8[i] & 0x9f) < 16 ? A.u8[B.u8[i] & 0x9f] : 0) \
    X(i8x16_shuffle, FI, K_U8, 16, u8, wasm_i8x16_shuffle(a, b, 0, 17, 2, 19, 4, 21, 6, 23, 31, 30, 29, 28, 3, 3, 16, 8), \
      pick(&A, &B, SHUF_A[i])) \
    X(i8x16_splat, FI, K_I8, 16, u8, wasm_i8x16_splat((int8_t)s), (uint8_t)s) \
    X(i8x16_replace_lane, FI, K_I8, 16, u8, wasm_i8x16_replace_lane(a, 3, (int8_t)(s * 7)), i == 3 ? (uint8_t)(s * 7) : A.u8[i]) \
    /* i16x8 */ \
    X(i16x8_add, FI, K_I16, 8, u16, wasm_i16x8_add(a, b), A.u16[i] + B.u16[i]) \
    X(i16x8_sub, FI, K_I16, 8, u16, wasm_i16x8_sub(a, b), A.u16[i] - B.u16[i]) \
    X(i16x8_mul, FI, K_I16, 8, u16, wasm_i16x8_mul(a, b), (uint32_t)A.u16[i] * B.u16[i]) \
    X(i16x8_add_sat_s, FI, K_I16, 8, i16, wasm_i16x8_add_sat(a, b), SAT16(A.i16[i] + B.i16[i])) \
    X(i16x8_add_sat_u, FI, K_U16, 8, u16, wasm_u16x8_add_sat(a, b), SATU16(A.u16[i] + B.u16[i])) \
    X(i16x8_sub_sat_s, FI, K_I16, 8, i16, wasm_i16x8_sub_sat(a, b), SAT16(A.i16[i] - B.i16[i])) \
    X(i16x8_sub_sat_u, FI, K_U16, 8, u16, wasm_u16x8_sub_sat(a, b), SATU16(A.u16[i] - B.u16[i])) \
    X(i16x8_min_s, FI, K_I16, 8, i16, wasm_i16x8_min(a, b), A.i16[i] < B.i16[i] ? A.i16[i] : B.i16[i]) \
    X(i16x8_min_u, FI, K_U16, 8, u16, wasm_u16x8_min(a, b), A.u16[i] < B.u16[i] ? A.u16[i] : B.u16[i]) \
    X(i16x8_max_s, FI, K_I16, 8, i16, wasm_i16x8_max(a, b), A.i16[i] > B.i16[i] ? A.i16[i] : B.i16[i]) \
    X(i16x8_max_u, FI, K_U16, 8, u16, wasm_u16x8_max(a, b), A.u16[i] > B.u16[i] ? A.u16[i] : B.u16[i]) \
    X(i16x8_avgr_u, FI, K_U16, 8, u16, wasm_u16x8_avgr(a, b), (A.u16[i] + B.u16[i] + 1) >> 1) \
    X(i16x8_abs, FI, K_I16, 8, u16, wasm_i16x8_abs(a), A.i16[i] < 0 ? 0u - A.u16[i] : A.u16[i]) \
    X(i16x8_neg, FI, K_I16, 8, u16, wasm_i16x8_neg(a), 0u - A.u16[i]) \
    X(i16x8_shl, FI, K_I16, 8, u16, wasm_i16x8_shl(a, s), A.u16[i] << (s & 15)) \
    X(i16x8_shr_s, FI, K_I16, 8, i16, wasm_i16x8_shr(a, s), A.i16[i] >> (s & 15)) \
    X(i16x8_shr_u, FI, K_U16, 8, u16, wasm_u16x8_shr(a, s), A.u16[i] >> (s & 15)) \
    X(i16x8_eq, FI, K_I16, 8, i16, wasm_i16x8_eq(a, b), MASK(A.i16[i] == B.i16[i])) \
    X(i16x8_ne, FI, K_I16, 8, i16, wasm_i16x8_ne(a, b), MASK(A.i16[i] != B.i16[i])) \
    X(i16x8_lt_s, FI, K_I16, 8, i16, wasm_i16x8_lt(a, b), MASK(A.i16[i] < B.i16[i])) \
    X(i16x8_lt_u, FI, K_I16, 8, i16, wasm_u16x8_lt(a, b), MASK(A.u16[i] < B.u16[i])) \
    X(i16x8_gt_s, FI, K_I16, 8, i16, wasm_i16x8_gt(a, b), MASK(A.i16[i] > B.i16[i])) \
    X(i16x8_gt_u, FI, K_I16, 8, i16, wasm_u16x8_gt(a, b), MASK(A.u16[i] > B.u16[i])) \
    X(i16x8_le_s, FI, K_I16, 8, i16, wasm_i16x8_le(a, b), MASK(A.i16[i] <= B.i16[i])) \
    X(i16x8_le_u, FI, K_I16, 8, i16, wasm_u16x8_le(a, b), MASK(A.u16[i] <= B.u16[i])) \
    X(i16x8_ge_s, FI, K_I16, 8, i16, wasm_i16x8_ge(a, b), MASK(A.i16[i] >= B.i16[i])) \
    X(i16x8_ge_u, FI, K_I16, 8, i16, wasm_u16x8_ge(a, b), MASK(A.u16[i] >= B.u16[i])) \
    X(i16x8_narrow_i32x4_s, FI, K_I16, 8, i16, wasm_i16x8_narrow_i32x4(a, b), SAT16(i < 4 ? A.i32[i] : B.i32[i - 4])) \
    X(i16x8_narrow_i32x4_u, FI, K_U16, 8, u16, wasm_u16x8_narrow_i32x4(a, b), SATU16(i < 4 ? A.i32[i] : B.i32[i - 4])) \
    X(i16x8_extend_low_i8x16_s, FI, K_I16, 8, i16, wasm_i16x8_extend_low_i8x16(a), A.i8[i]) \
    X(i16x8_extend_high_i8x16_s, FI, K_I16, 8, i16, wasm_i16x8_extend_high_i8x16(a), A.i8[i + 8]) \
    X(i16x8_extend_low_i8x16_u, FI, K_U16, 8, u16, wasm_u16x8_extend_low_u8x16(a), A.u8[i]) \
    X(i16x8_extend_high_i8x16_u, FI, K_U16, 8, u16, wasm_u16x8_extend_high_u8x16(a), A.u8[i + 8]) \
    X(i16x8_extmul_low_i8x16_s, FI, K_I16, 8, i16, wasm_i16x8_extmul_low_i8x16(a, b), A.i8[i] * B.i8[i]) \
    X(i16x8_extmul_high_i8x16_s, FI, K_I16, 8, i16, wasm_i16x8_extmul_high_i8x16(a, b), A.i8[i + 8] * B.i8[i + 8]) \
    X(i16x8_extmul_low_i8x16_u, FI, K_U16, 8, u16, wasm_u16x8_extmul_low_u8x16(a, b), A.u8[i] * B.u8[i]) \
    X(i16x8_extmul_high_i8x16_u, FI, K_U16, 8, u16, wasm_u16x8_extmul_high_u8x16(a, b), A.u8[i + 8] * B.u8[i + 8]) \
    X(i16x8_extadd_pairwise_i8x16_s, FI, K_I16, 8, i16, wasm_i16x8_extadd_pairwise_i8x16(a), A.i8[2 * i] + A.i8[2 * i + 1]) \
    X(i16x8_extadd_pairwise_i8x16_u, FI, K_U16, 8, u16, wasm_u16x8_extadd_pairwise_u8x16(a), A.u8[2 * i] + A.u8[2 * i + 1]) \
    X(i16x8_q15mulr_sat_s, FI, K_I16, 8, i16, wasm_i16x8_q15mulr_sat(a, b), SAT16((A.i16[i] * B.i16[i] + 0x4000) >> 15)) \
    X(i16x8_shuffle, FI, K_U8, 16, u8, wasm_i16x8_shuffle(a, b, 1, 9, 3, 11, 5, 13, 0, 8), pick(&A, &B, SHUF_C[i])) \
    X(i16x8_splat, FI, K_I16, 8, u16, wasm_i16x8_splat((int16_t)s), (uint16_t)s) \
    X(i16x8_replace_lane, FI, K_I16, 8, u16, wasm_i16x8_replace_lane(a, 5, (int16_t)(s * 13)), i == 5 ? (uint16_t)(s * 13) : A.u16[i]) \
    /* i32x4 */ \
    X(i32x4_add, FI, K_I32, 4, u32, wasm_i32x4_add(a, b), A.u32[i] + B.u32[i]) \
    X(i32x4_sub, FI, K_I32, 4, u32, wasm_i32x4_sub(a, b), A.u32[i] - B.u32[i]) \
    X(i32x4_mul, FI, K_I32, 4, u32, wasm_i32x4_mul(a, b), A.u32[i] * B.u32[i]) \
    X(i32x4_min_s, FI, K_I32, 4, i32, wasm_i32x4_min(a, b), A.i32[i] < B.i32[i] ? A.i32[i] : B.i32[i]) \
    X(i32x4_min_u, FI, K_U32, 4, u32, wasm_u32x4_min(a, b), A.u32[i] < B.u32[i] ? A.u32[i] : B.u32[i]) \
    X(i32x4_max_s, FI, K_I32, 4, i32, wasm_i32x4_max(a, b), A.i32[i] > B.i32[i] ? A.i32[i] : B.i32[i]) \
    X(i32x4_max_u, FI, K_U32, 4, u32, wasm_u32x4_max(a, b), A.u32[i] > B.u32[i] ? A.u32[i] : B.u32[i]) \
    X(i32x4_abs, FI, K_I32, 4, u32, wasm_i32x4_abs(a), A.i32[i] < 0 ? 0u - A.u32[i] : A.u32[i]) \
    X(i32x4_neg, FI, K_I32, 4, u32, wasm_i32x4_neg(a), 0u - A.u32[i]) \
    X(i32x4_shl, FI, K_I32, 4, u32, wasm_i32x4_shl(a, s), A.u32[i] << (s & 31)) \
    X(i32x4_shr_s, FI, K_I32, 4, i32, wasm_i32x4_shr(a, s), A.i32[i] >> (s & 31)) \
    X(i32x4_shr_u, FI, K_U32, 4, u32, wasm_u32x4_shr(a, s), A.u32[i] >> (s & 31)) \
    X(i32x4_eq, FI, K_I32, 4, i32, wasm_i32x4_eq(a, b), MASK(A.i32[i] == B.i32[i])) \
    X(i32x4_ne, FI, K_I32, 4, i32, wasm_i32x4_ne(a, b), MASK(A.i32[i] != B.i32[i])) \
    X(i32x4_lt_s, FI, K_I32, 4, i32, wasm_i32x4_lt(a, b), MASK(A.i32[i] < B.i32[i])) \
    X(i32x4_lt_u, FI, K_I32, 4, i32, wasm_u32x4_lt(a, b), MASK(A.u32[i] < B.u32[i])) \
    X(i32x4_gt_s, FI, K_I32, 4, i32, wasm_i32x4_gt(a, b), MASK(A.i32[i] > B.i32[i])) \
    X(i32x4_gt_u, FI, K_I32, 4, i32, wasm_u32x4_gt(a, b), MASK(A.u32[i] > B.u32[i])) \
    X(i32x4_le_s, FI, K_I32, 4, i32, wasm_i32x4_le(a, b), MASK(A.i32[i] <= B.i32[i])) \
    X(i32x4_le_u, FI, K_I32, 4, i32, wasm_u32x4_le(a, b), MASK(A.u32[i] <= B.u32[i])) \
    X(i32x4_ge_s, FI, K_I32, 4, i32, wasm_i32x4_ge(a, b), MASK(A.i32[i] >= B.i32[i])) \
    X(i32x4_ge_u, FI, K_I32, 4, i32, wasm_u32x4_ge(a, b), MASK(A.u32[i] >= B.u32[i])) \
    X(i32x4_extend_low_i16x8_s, FI, K_I32, 4, i32, wasm_i32x4_extend_low_i16x8(a), A.i16[i]) \
    X(i32x4_extend_high_i16x8_s, FI, K_I32, 4, i32, wasm_i32x4_extend_high_i16x8(a), A.i16[i + 4]) \
    X(i32x4_extend_low_i16x8_u, FI, K_U32, 4, u32, wasm_u32x4_extend_low_u16x8(a), A.u16[i]) \
    X(i32x4_extend_high_i16x8_u, FI, K_U32, 4, u32, wasm_u32x4_extend_high_u16x8(a), A.u16[i + 4]) \
    X(i32x4_extmul_low_i16x8_s, FI, K_I32, 4, i32, wasm_i32x4_extmul_low_i16x8(a, b), A.i16[i] * B.i16[i]) \
    X(i32x4_extmul_high_i16x8_s, FI, K_I32, 4, i32, wasm_i32x4_extmul_high_i16x8(a, b), A.i16[i + 4] * B.i16[i + 4]) \
    X(i32x4_extmul_low_i16x8_u, FI, K_U32, 4, u32, wasm_u32x4_extmul_low_u16x8(a, b), (uint32_t)A.u16[i] * B.u16[i]) \
    X(i32x4_extmul_high_i16x8_u, FI, K_U32, 4, u32, wasm_u32x4_extmul_high_u16x8(a, b), (uint32_t)A.u16[i + 4] * B.u16[i + 4]) \
    X(i32x4_extadd_pairwise_i16x8_s, FI, K_I32, 4, i32, wasm_i32x4_extadd_pairwise_i16x8(a), A.i16[2 * i] + A.i16[2 * i + 1]) \
    X(i32x4_extadd_pairwise_i16x8_u, FI, K_U32, 4, u32, wasm_u32x4_extadd_pairwise_u16x8(a), (uint32_t)A.u16[2 * i] + A.u16[2 * i + 1]) \
    X(i32x4_dot_i16x8_s, FI, K_I32, 4, u32, wasm_i32x4_dot_i16x8(a, b), \
      (uint32_t)((int64_t)A.i16[2 * i] * B.i16[2 * i] + (int64_t)A.i16[2 * i + 1] * B.i16[2 * i + 1])) \
    X(i32x4_shuffle, FI, K_I32, 16, u8, wasm_i32x4_shuffle(a, b, 1, 6, 0, 3), pick(&A, &B, SHUF_B[i])) \
    X(i32x4_splat, FI, K_I32, 4, u32, wasm_i32x4_splat((int32_t)s), s) \
    X(i32x4_replace_lane, FI, K_I32, 4, u32, wasm_i32x4_replace_lane(a, 2, (int32_t)(s ^ 0x5a5a5a5a)), i == 2 ? s ^ 0x5a5a5a5a : A.u32[i]) \
    X(i32x4_trunc_sat_f32x4_s, FF, K_I32, 4, i32, wasm_i32x4_trunc_sat_f32x4(a), sat_s32(A.f32[i])) \
    X(i32x4_trunc_sat_f32x4_u, FF, K_U32, 4, u32, wasm_u32x4_trunc_sat_f32x4(a), sat_u32(A.f32[i])) \
    X(i32x4_trunc_sat_f64x2_s_zero, FD, K_I32, 4, i32, wasm_i32x4_trunc_sat_f64x2_zero(a), i < 2 ? sat_s32(A.f64[i]) : 0) \
    X(i32x4_trunc_sat_f64x2_u_zero, FD, K_U32, 4, u32, wasm_u32x4_trunc_sat_f64x2_zero(a), i < 2 ? sat_u32(A.f64[i]) : 0) \
    X(i32x4_const_add, FI, K_I32, 4, u32, wasm_i32x4_add(a, wasm_i32x4_const(1, -2, 0x7fffffff, (int32_t)0x80000000u)), \
      A.u32[i] + ((const uint32_t[4]){1, 0xfffffffeu, 0x7fffffff, 0x80000000u})[i]) \
    /* i64x2 */ \
    X(i64x2_add, FI, K_I64, 2, u64, wasm_i64x2_add(a, b), A.u64[i] + B.u64[i]) \
    X(i64x2_sub, FI, K_I64, 2, u64, wasm_i64x2_sub(a, b), A.u64[i] - B.u64[i]) \
    X(i64x2_mul, FI, K_I64, 2, u64, wasm_i64x2_mul(a, b), A.u64[i] * B.u64[i]) \
    X(i64x2_abs, FI, K_I64, 2, u64, wasm_i64x2_abs(a), A.i64[i] < 0 ? 0u - A.u64[i] : A.u64[i]) \
    X(i64x2_neg, FI, K_I64, 2, u64, wasm_i64x2_neg(a), 0u - A.u64[i]) \
    X(i64x2_shl, FI, K_I64, 2, u64, wasm_i64x2_shl(a, s), A.u64[i] << (s & 63)) \
    X(i64x2_shr_s, FI, K_I64, 2, i64, wasm_i64x2_shr(a, s), A.i64[i] >> (s & 63)) \
    X(i64x2_shr_u, FI, K_U64, 2, u64, wasm_u64x2_shr(a, s), A.u64[i] >> (s & 63)) \
    X(i64x2_eq, FI, K_I64, 2, i64, wasm_i64x2_eq(a, b), MASK(A.i64[i] == B.i64[i])) \
    X(i64x2_ne, FI, K_I64, 2, i64, wasm_i64x2_ne(a, b), MASK(A.i64[i] != B.i64[i])) \
    X(i64x2_lt_s, FI, K_I64, 2, i64, wasm_i64x2_lt(a, b), MASK(A.i64[i] < B.i64[i])) \
    X(i64x2_gt_s, FI, K_I64, 2, i64, wasm_i64x2_gt(a, b), MASK(A.i64[i] > B.i64[i])) \
    X(i64x2_le_s, FI, K_I64, 2, i64, wasm_i64x2_le(a, b), MASK(A.i64[i] <= B.i64[i])) \
    X(i64x2_ge_s, FI, K_I64, 2, i64, wasm_i64x2_ge(a, b), MASK(A.i64[i] >= B.i64[i])) \
    X(i64x2_extend_low_i32x4_s, FI, K_I64, 2, i64, wasm_i64x2_extend_low_i32x4(a), A.i32[i]) \
    X(i64x2_extend_high_i32x4_s, FI, K_I64, 2, i64, wasm_i64x2_extend_high_i32x4(a), A.i32[i + 2]) \
    X(i64x2_extend_low_i32x4_u, FI, K_U64, 2, u64, wasm_u64x2_extend_low_u32x4(a), A.u32[i]) \
    X(i64x2_extend_high_i32x4_u, FI, K_U64, 2, u64, wasm_u64x2_extend_high_u32x4(a), A.u32[i + 2]) \
    X(i64x2_extmul_low_i32x4_s, FI, K_I64, 2, i64, wasm_i64x2_extmul_low_i32x4(a, b), (int64_t)A.i32[i] * B.i32[i]) \
    X(i64x2_extmul_high_i32x4_s, FI, K_I64, 2, i64, wasm_i64x2_extmul_high_i32x4(a, b), (int64_t)A.i32[i + 2] * B.i32[i + 2]) \
    X(i64x2_extmul_low_i32x4_u, FI, K_U64, 2, u64, wasm_u64x2_extmul_low_u32x4(a, b), (uint64_t)A.u32[i] * B.u32[i]) \
    X(i64x2_extmul_high_i32x4_u, FI, K_U64, 2, u64, wasm_u64x2_extmul_high_u32x4(a, b), (uint64_t)A.u32[i + 2] * B.u32[i + 2]) \
    X(i64x2_shuffle, FI, K_I64, 16, u8, wasm_i64x2_shuffle(a, b, 3, 0), pick(&A, &B, SHUF_D[i])) \
    X(i64x2_splat, FI, K_I64, 2, u64, wasm_i64x2_splat((int64_t)(s * 0xfffffffeffffffffull)), s * 0xfffffffeffffffffull) \
    X(i64x2_replace_lane, FI, K_I64, 2, u64, wasm_i64x2_replace_lane(a, 1, (int64_t)s << 20), i == 1 ? (uint64_t)s << 20 : A.u64[i]) \
    /* v128 */ \
    X(v128_and, FI, K_U32, 4, u32, wasm_v128_and(a, b), A.u32[i] & B.u32[i]) \
    X(v128_or, FI, K_U32, 4, u32, wasm_v128_or(a, b), A.u32[i] | B.u32[i]) \
    X(v128_xor, FI, K_U32, 4, u32, wasm_v128_xor(a, b), A.u32[i] ^ B.u32[i]) \
    X(v128_not, FI, K_U32, 4, u32, wasm_v128_not(a), ~A.u32[i]) \
    X(v128_andnot, FI, K_U32, 4, u32, wasm_v128_andnot(a, b), A.u32[i] & ~B.u32[i]) \
    X(v128_bitselect, FI, K_U32, 4, u32, wasm_v128_bitselect(a, b, c), (A.u32[i] & C.u32[i]) | (B.u32[i] & ~C.u32[i])) \
    X(bitmasks, FI, K_I32, 4, i32, \
      wasm_i32x4_make(wasm_i8x16_bitmask(a), wasm_i16x8_bitmask(a), wasm_i32x4_bitmask(a), wasm_i64x2_bitmask(a)), \
      ((int32_t[4]){bitmask_of(&A, 1), bitmask_of(&A, 2), bitmask_of(&A, 4), bitmask_of(&A, 8)})[i]) \
    X(all_true, FI, K_I32, 4, i32, \
      wasm_i32x4_make(wasm_i8x16_all_true(a), wasm_i16x8_all_true(a), wasm_i32x4_all_true(a), wasm_i64x2_all_true(a)), \
      ((int32_t[4]){all_true_of(&A, 1), all_true_of(&A, 2), all_true_of(&A, 4), all_true_of(&A, 8)})[i]) \
    X(any_true, FI, K_I32, 4, i32, \
      wasm_i32x4_make(wasm_v128_any_true(a), wasm_v128_any_true(wasm_v128_and(a, b)), \
                      wasm_i8x16_all_true(wasm_v128_or(a, b)), wasm_i16x8_all_true(wasm_i16x8_ne(a, b))), \
      ((int32_t[4]){any_true_of(&A), mixed_true(&A, &B, 0), mixed_true(&A, &B, 1), mixed_true(&A, &B, 2)})[i]) \
    /* f32x4 */ \
    X(f32x4_abs, FF, K_F32, 4, f32, wasm_f32x4_abs(a), fabsf(A.f32[i])) \
    X(f32x4_neg, FF, K_F32, 4, f32, wasm_f32x4_neg(a), -A.f32[i]) \
    X(f32x4_sqrt, FF, K_F32, 4, f32, wasm_f32x4_sqrt(a), sqrtf(A.f32[i])) \
    X(f32x4_ceil, FF, K_F32, 4, f32, wasm_f32x4_ceil(a), ceilf(A.f32[i])) \
    X(f32x4_floor, FF, K_F32, 4, f32, wasm_f32x4_floor(a), floorf(A.f32[i])) \
    X(f32x4_trunc, FF, K_F32, 4, f32, wasm_f32x4_trunc(a), truncf(A.f32[i])) \
    X(f32x4_nearest, FF, K_F32, 4, f32, wasm_f32x4_nearest(a), rintf(A.f32[i])) \
    X(f32x4_add, FF, K_F32, 4, f32, wasm_f32x4_add(a, b), A.f32[i] + B.f32[i]) \
    X(f32x4_sub, FF, K_F32, 4, f32, wasm_f32x4_sub(a, b), A.f32[i] - B.f32[i]) \
    X(f32x4_mul, FF, K_F32, 4, f32, wasm_f32x4_mul(a, b), A.f32[i] * B.f32[i]) \
    X(f32x4_div, FF, K_F32, 4, f32, wasm_f32x4_div(a, b), A.f32[i] / B.f32[i]) \
    X(f32x4_min, FF, K_F32, 4, f32, wasm_f32x4_min(a, b), (float)wmin(A.f32[i], B.f32[i])) \
    X(f32x4_max, FF, K_F32, 4, f32, wasm_f32x4_max(a, b), (float)wmax(A.f32[i], B.f32[i])) \
    X(f32x4_pmin, FF, K_F32, 4, f32, wasm_f32x4_pmin(a, b), B.f32[i] < A.f32[i] ? B.f32[i] : A.f32[i]) \
    X(f32x4_pmax, FF, K_F32, 4, f32, wasm_f32x4_pmax(a, b), A.f32[i] < B.f32[i] ? B.f32[i] : A.f32[i]) \
    X(f32x4_eq, FF, K_I32, 4, i32, wasm_f32x4_eq(a, b), MASK(A.f32[i] == B.f32[i])) \
    X(f32x4_ne, FF, K_I32, 4, i32, wasm_f32x4_ne(a, b), MASK(A.f32[i] != B.f32[i])) \
    X(f32x4_lt, FF, K_I32, 4, i32, wasm_f32x4_lt(a, b), MASK(A.f32[i] < B.f32[i])) \
    X(f32x4_gt, FF, K_I32, 4, i32, wasm_f32x4_gt(a, b), MASK(A.f32[i] > B.f32[i])) \
    X(f32x4_le, FF, K_I32, 4, i32, wasm_f32x4_le(a, b), MASK(A.f32[i] <= B.f32[i])) \
    X(f32x4_ge, FF, K_I32, 4, i32, wasm_f32x4_ge(a, b), MASK(A.f32[i] >= B.f32[i])) \
    X(f32x4_convert_i32x4_s, FI, K_F32, 4, f32, wasm_f32x4_convert_i32x4(a), (float)A.i32[i]) \
    X(f32x4_convert_i32x4_u, FI, K_F32, 4, f32, wasm_f32x4_convert_u32x4(a), (float)A.u32[i]) \
    X(f32x4_demote_f64x2_zero, FD, K_F32, 4, f32, wasm_f32x4_demote_f64x2_zero(a), i < 2 ? (float)A.f64[i] : 0.0f) \
    X(f32x4_splat, FI, K_F32, 4, f32, wasm_f32x4_splat((float)(int32_t)s * 0.25f), (float)(int32_t)s * 0.25f) \
    X(f32x4_replace_lane, FF, K_F32, 4, f32, wasm_f32x4_replace_lane(a, 1, (float)s), i == 1 ? (float)s : A.f32[i]) \
    /* f64x2 */ \
    X(f64x2_abs, FD, K_F64, 2, f64, wasm_f64x2_abs(a), fabs(A.f64[i])) \
    X(f64x2_neg, FD, K_F64, 2, f64, wasm_f64x2_neg(a), -A.f64[i]) \
    X(f64x2_sqrt, FD, K_F64, 2, f64, wasm_f64x2_sqrt(a), sqrt(A.f64[i])) \
    X(f64x2_ceil, FD, K_F64, 2, f64, wasm_f64x2_ceil(a), ceil(A.f64[i])) \
    X(f64x2_floor, FD, K_F64, 2, f64, wasm_f64x2_floor(a), floor(A.f64[i])) \
    X(f64x2_trunc, FD, K_F64, 2, f64, wasm_f64x2_trunc(a), trunc(A.f64[i])) \
    X(f64x2_nearest, FD, K_F64, 2, f64, wasm_f64x2_nearest(a), rint(A.f64[i])) \
    X(f64x2_add, FD, K_F64, 2, f64, wasm_f64x2_add(a, b), A.f64[i] + B.f64[i]) \
    X(f64x2_sub, FD, K_F64, 2, f64, wasm_f64x2_sub(a, b), A.f64[i] - B.f64[i]) \
    X(f64x2_mul, FD, K_F64, 2, f64, wasm_f64x2_mul(a, b), A.f64[i] * B.f64[i]) \
    X(f64x2_div, FD, K_F64, 2, f64, wasm_f64x2_div(a, b), A.f64[i] / B.f64[i]) \
    X(f64x2_min, FD, K_F64, 2, f64, wasm_f64x2_min(a, b), wmin(A.f64[i], B.f64[i])) \
    X(f64x2_max, FD, K_F64, 2, f64, wasm_f64x2_max(a, b), wmax(A.f64[i], B.f64[i])) \
    X(f64x2_pmin, FD, K_F64, 2, f64, wasm_f64x2_pmin(a, b), B.f64[i] < A.f64[i] ? B.f64[i] : A.f64[i]) \
    X(f64x2_pmax, FD, K_F64, 2, f64, wasm_f64x2_pmax(a, b), A.f64[i] < B.f64[i] ? B.f64[i] : A.f64[i]) \
    X(f64x2_eq, FD, K_I64, 2, i64, wasm_f64x2_eq(a, b), MASK(A.f64[i] == B.f64[i])) \
    X(f64x2_ne, FD, K_I64, 2, i64, wasm_f64x2_ne(a, b), MASK(A.f64[i] != B.f64[i])) \
    X(f64x2_lt, FD, K_I64, 2, i64, wasm_f64x2_lt(a, b), MASK(A.f64[i] < B.f64[i])) \
    X(f64x2_gt, FD, K_I64, 2, i64, wasm_f64x2_gt(a, b), MASK(A.f64[i] > B.f64[i])) \
    X(f64x2_le, FD, K_I64, 2, i64, wasm_f64x2_le(a, b), MASK(A.f64[i] <= B.f64[i])) \
    X(f64x2_ge, FD, K_I64, 2, i64, wasm_f64x2_ge(a, b), MASK(A.f64[i] >= B.f64[i])) \
    X(f64x2_convert_low_i32x4_s, FI, K_F64, 2, f64, wasm_f64x2_convert_low_i32x4(a), (double)A.i32[i]) \
    X(f64x2_convert_low_i32x4_u, FI, K_F64, 2, f64, wasm_f64x2_convert_low_u32x4(a), (double)A.u32[i]) \
    X(f64x2_promote_low_f32x4, FF, K_F64, 2, f64, wasm_f64x2_promote_low_f32x4(a), (double)A.f32[i]) \
    X(f64x2_splat, FI, K_F64, 2, f64, wasm_f64x2_splat((double)s / 8.0), (double)s / 8.0) \
    X(f64x2_replace_lane, FD, K_F64, 2, f64, wasm_f64x2_replace_lane(a, 0, (double)(int32_t)s), i == 0 ? (double)(int32_t)s : A.f64[i]) \
    /* memory: loads from gmem at an offset taken from s (p = gmem + (s & 15)) */ \
    X(v128_load, FI, K_U8, 16, u8, wasm_v128_load(p + 1), p[1 + i]) \
    X(v128_load8x8_s, FI, K_I16, 8, i16, wasm_i16x8_load8x8(p), (int8_t)p[i]) \
    X(v128_load8x8_u, FI, K_U16, 8, u16, wasm_u16x8_load8x8(p + 3), p[3 + i]) \
    X(v128_load16x4_s, FI, K_I32, 4, i32, wasm_i32x4_load16x4(p + 2), rds(p + 2 + 2 * i, 2)) \
    X(v128_load16x4_u, FI, K_U32, 4, u32, wasm_u32x4_load16x4(p + 5), rd(p + 5 + 2 * i, 2)) \
    X(v128_load32x2_s, FI, K_I64, 2, i64, wasm_i64x2_load32x2(p + 4), rds(p + 4 + 4 * i, 4)) \
    X(v128_load32x2_u, FI, K_U64, 2, u64, wasm_u64x2_load32x2(p + 7), rd(p + 7 + 4 * i, 4)) \
    X(v128_load8_splat, FI, K_U8, 16, u8, wasm_v128_load8_splat(p + 9), p[9]) \
    X(v128_load16_splat, FI, K_U16, 8, u16, wasm_v128_load16_splat(p + 1), rd(p + 1, 2)) \
    X(v128_load32_splat, FI, K_U32, 4, u32, wasm_v128_load32_splat(p + 6), rd(p + 6, 4)) \
    X(v128_load64_splat, FI, K_U64, 2, u64, wasm_v128_load64_splat(p + 3), rd(p + 3, 8)) \
    X(v128_load32_zero, FI, K_U32, 4, u32, wasm_v128_load32_zero(p + 2), i == 0 ? rd(p + 2, 4) : 0) \
    X(v128_load64_zero, FI, K_U64, 2, u64, wasm_v128_load64_zero(p + 5), i == 0 ? rd(p + 5, 8) : 0) \
    X(v128_load8_lane, FI, K_U8, 16, u8, wasm_v128_load8_lane(p + 11, a, 7), i == 7 ? p[11] : A.u8[i]) \
    X(v128_load16_lane, FI, K_U16, 8, u16, wasm_v128_load16_lane(p + 1, a, 2), i == 2 ? rd(p + 1, 2) : A.u16[i]) \
    X(v128_load32_lane, FI, K_U32, 4, u32, wasm_v128_load32_lane(p + 3, a, 3), i == 3 ? rd(p + 3, 4) : A.u32[i]) \
    X(v128_load64_lane, FI, K_U64, 2, u64, wasm_v128_load64_lane(p + 8, a, 0), i == 0 ? rd(p + 8, 8) : A.u64[i])

typedef void (*opfn)(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s);

#ifdef __wasm_simd128__
#define DEFINE(name, fam, kind, N, F, SIMD, SCALAR) \
    static void name(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s) { \
        const uint8_t *p = gmem + (s & 15); \
        v128_t a = wasm_v128_load(pa), b = wasm_v128_load(pb), c = wasm_v128_load(pc); \
        (void)p; (void)a; (void)b; (void)c; \
        wasm_v128_store(r, SIMD); \
    }
#else
#define DEFINE(name, fam, kind, N, F, SIMD, SCALAR) \
    static void name(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s) { \
        const uint8_t *p = gmem + (s & 15); \
        const vec A = *pa, B = *pb, C = *pc; \
        vec R; \
        (void)p; (void)A; (void)B; (void)C; \
        for (int i = 0; i < (N); i++) R.F[i] = (SCALAR); \
        *r = R; \
    }
#endif
OPS(DEFINE)

/* Lane extraction feeding scalar code, and stores of single lanes. */
static void extract_int(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s) {
    int32_t t0, t1, t2, t3;
    int64_t t4;
#ifdef __wasm_simd128__
    v128_t x = wasm_i8x16_popcnt(wasm_v128_xor(wasm_v128_load(pa), wasm_v128_load(pb)));
    v128_t y = wasm_i16x8_mul(wasm_v128_load(pa), wasm_v128_load(pb));
    v128_t z = wasm_i64x2_mul(wasm_v128_load(pa), wasm_v128_load(pc));
    t0 = wasm_i8x16_extract_lane(y, 5);
    t1 = wasm_u8x16_extract_lane(y, 13) + wasm_u8x16_extract_lane(x, 2);
    t2 = wasm_i16x8_extract_lane(y, 3);
    t3 = wasm_u16x8_extract_lane(y, 6) ^ wasm_i32x4_extract_lane(z, 1);
    t4 = wasm_i64x2_extract_lane(z, 1);
#else
    vec x, y, z;
    for (int i = 0; i < 16; i++) x.u8[i] = popc8(pa->u8[i] ^ pb->u8[i]);
    for (int i = 0; i < 8; i++) y.u16[i] = (uint16_t)((uint32_t)pa->u16[i] * pb->u16[i]);
    for (int i = 0; i < 2; i++) z.u64[i] = pa->u64[i] * pc->u64[i];
    t0 = y.i8[5];
    t1 = y.u8[13] + x.u8[2];
    t2 = y.i16[3];
    t3 = y.u16[6] ^ z.i32[1];
    t4 = z.i64[1];
#endif
    int32_t o[4] = {t0 * 3 + t1, t1 - t2, t2 * 5 + (int32_t)s, (int32_t)((uint32_t)t3 + (uint32_t)(t4 >> 17))};
    memcpy(r, o, 16);
}

static void extract_f32(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s) {
    float u, v;
#ifdef __wasm_simd128__
    v128_t x = wasm_f32x4_mul(wasm_v128_load(pa), wasm_v128_load(pb));
    u = wasm_f32x4_extract_lane(x, 1);
    v = wasm_f32x4_extract_lane(x, 3);
#else
    u = pa->f32[1] * pb->f32[1];
    v = pa->f32[3] * pb->f32[3];
#endif
    float o[4] = {u + v, u - v, u * 0.5f, v / 3.0f};
    memcpy(r, o, 16);
}

static void extract_f64(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s) {
    double u, v;
#ifdef __wasm_simd128__
    v128_t x = wasm_f64x2_add(wasm_v128_load(pa), wasm_v128_load(pb));
    u = wasm_f64x2_extract_lane(x, 0);
    v = wasm_f64x2_extract_lane(x, 1);
#else
    u = pa->f64[0] + pb->f64[0];
    v = pa->f64[1] + pb->f64[1];
#endif
    double o[2] = {u * v, u / 7.0 - v};
    memcpy(r, o, 16);
}

static void store_lanes(vec *r, const vec *pa, const vec *pb, const vec *pc, uint32_t s) {
    uint8_t *q = (uint8_t *)r;
#ifdef __wasm_simd128__
    v128_t a = wasm_v128_load(pa), b = wasm_v128_load(pb);
    wasm_v128_store(r, wasm_i8x16_add(b, a));
    wasm_v128_store8_lane(q + 15, a, 9);
    wasm_v128_store16_lane(q + 1, a, 5);
    wasm_v128_store32_lane(q + 9, b, 2);
    wasm_v128_store64_lane(q + 3, wasm_i16x8_sub(a, b), 1);
#else
    vec t;
    for (int i = 0; i < 16; i++) t.u8[i] = pb->u8[i] + pa->u8[i];
    memcpy(q, &t, 16);
    memcpy(q + 15, &pa->u8[9], 1);
    memcpy(q + 1, &pa->u8[10], 2);
    memcpy(q + 9, &pb->u8[8], 4);
    for (int i = 0; i < 8; i++) t.u16[i] = pa->u16[i] - pb->u16[i];
    memcpy(q + 3, &t.u8[8], 8);
#endif
}

struct op {
    const char *name;
    opfn fn;
    int fam, kind;
};
#define ENTRY(name, fam, kind, N, F, SIMD, SCALAR) {#name, name, fam, kind},
static const struct op ops[] = {
    OPS(ENTRY)
    {"extract_int", extract_int, FI, K_I32},
    {"extract_f32", extract_f32, FF, K_F32},
    {"extract_f64", extract_f64, FD, K_F64},
    {"store_lanes", store_lanes, FI, K_U8},
};

/* ---- inputs ---- */
static volatile uint32_t seed_source = 0x2545F491u;
static uint32_t rng_state;
static uint32_t rnd(void) {
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

#define NI 8
#define NF 8
#define ND 10
static vec vi[NI], vf[NF], vd[ND];
static const uint32_t svals[8] = {3, 473, 0x8000ff21u, 77, 0, 15, 31, 69};

static void init_inputs(void) {
    rng_state = seed_source;
    for (int k = 0; k < NI; k++)
        for (int j = 0; j < 4; j++) vi[k].u32[j] = rnd();
    /* i8 / i16 edges */
    static const int16_t e16[8] = {0, 32767, -32768, -1, 1, 32766, -32767, 255};
    memcpy(vi[2].i16, e16, 16);
    static const int32_t e32[4] = {INT32_MIN, INT32_MAX, -1, 65536};
    memcpy(vi[3].i32, e32, 16);
    vi[4].i64[0] = INT64_MIN;
    vi[4].i64[1] = -1;
    for (int j = 0; j < 16; j++) vi[5].i8[j] = (int8_t)(rnd() % 17) - 8; /* small values */
    for (int j = 0; j < 16; j++) vi[6].u8[j] = (uint8_t)(15 - j + (j & 1) * 0x10); /* shuffle indices */
    vi[7].i64[0] = INT64_MAX;

    const float inf = INFINITY;
    float fs[NF][4] = {
        {1.5f, -2.5f, 0.5f, 3.75f},
        {-0.0f, 0.0f, inf, -inf},
        {0.0f, -0.0f, 1e30f, -1.4e-45f},
        {NAN, 1.0f, -1.0f, 8388609.0f},
        {-0.5f, 0.49999997f, -1.5f, 1e-39f},
        {3e9f, -3e9f, 2147483520.0f, 2147483648.0f},
        {-2147483648.0f, 4294967040.0f, 4294967296.0f, -0.99f},
        {0, 0, 0, 0},
    };
    for (int j = 0; j < 4; j++) fs[7][j] = (float)((int32_t)(rnd() % 200001) - 100000) / 64.0f;
    for (int k = 0; k < NF; k++) memcpy(vf[k].f32, fs[k], 16);

    double ds[ND][2] = {
        {1.5, -2.5},
        {-0.0, inf},
        {0.0, -inf},
        {NAN, 4503599627370497.0},
        {2147483647.9, -2147483648.9},
        {4294967295.5, -0.99},
        {1e300, 1e-50},
        {3.4028235677973366e38, 1.0000000596046448},
        {0.5, -3.5},
        {0, 0},
    };
    for (int j = 0; j < 2; j++) ds[9][j] = (double)((int32_t)(rnd() % 2000001) - 1000000) / 1024.0;
    for (int k = 0; k < ND; k++) memcpy(vd[k].f64, ds[k], 16);

    for (int j = 0; j < 64; j++) gmem[j] = (uint8_t)(rnd() >> 11);
}

/* ---- output ---- */
static void print_lanes(const vec *v, int kind) {
    switch (kind) {
    case K_I8: for (int i = 0; i < 16; i++) printf(" %d", v->i8[i]); break;
    case K_U8: for (int i = 0; i < 16; i++) printf(" %u", v->u8[i]); break;
    case K_I16: for (int i = 0; i < 8; i++) printf(" %d", v->i16[i]); break;
    case K_U16: for (int i = 0; i < 8; i++) printf(" %u", v->u16[i]); break;
    case K_I32: for (int i = 0; i < 4; i++) printf(" %" PRId32, v->i32[i]); break;
    case K_U32: for (int i = 0; i < 4; i++) printf(" %" PRIu32, v->u32[i]); break;
    case K_I64: for (int i = 0; i < 2; i++) printf(" %" PRId64, v->i64[i]); break;
    case K_U64: for (int i = 0; i < 2; i++) printf(" %" PRIu64, v->u64[i]); break;
    case K_F32:
        for (int i = 0; i < 4; i++) {
            if (isnan(v->f32[i])) printf(" nan");
            else printf(" %.9g", v->f32[i]);
        }
        break;
    case K_F64:
        for (int i = 0; i < 2; i++) {
            if (isnan(v->f64[i])) printf(" nan");
            else printf(" %.17g", v->f64[i]);
        }
        break;
    }
    printf("\n");
}

int main(void) {
    init_inputs();
    uint32_t check = 2166136261u;
    int nops = (int)(sizeof ops / sizeof ops[0]);
    for (int o = 0; o < nops; o++) {
        const vec *set = ops[o].fam == FI ? vi : ops[o].fam == FF ? vf : vd;
        int n = ops[o].fam == FI ? NI : ops[o].fam == FF ? NF : ND;
        for (int k = 0; k < n; k++) {
            vec r;
            ops[o].fn(&r, &set[k], &set[(k + 1) % n], &set[(k + 3) % n], svals[k % 8]);
            printf("%s %d:", ops[o].name, k);
            print_lanes(&r, ops[o].kind);
            /* NaN bits are not checked: fold NaN lanes to one value first. */
            if (ops[o].kind == K_F32)
                for (int i = 0; i < 4; i++)
                    if (isnan(r.f32[i])) r.u32[i] = 0x7fc00000u;
            if (ops[o].kind == K_F64)
                for (int i = 0; i < 2; i++)
                    if (isnan(r.f64[i])) r.u64[i] = 0x7ff8000000000000ull;
            for (int i = 0; i < 16; i++) check = (check ^ r.u8[i]) * 16777619u;
        }
    }
    printf("%d operations, checksum %08" PRIx32 "\n", nops, check);
    return 0;
}
