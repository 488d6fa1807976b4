/* Plain scalar loops for the autovectoriser: built with -O3 -msimd128 most of
 * them become v128 code (int8..int64 and float/double arithmetic, reductions,
 * min/max, saturation, shuffles for strided access, conversions, compares,
 * small matrix products).  Every loop prints a checksum.
 *
 * Floating point stays bit-exact between builds: no FMA contraction
 * (-ffp-contract=off), no reassociated float reductions (no -ffast-math), no
 * transcendental libm calls, and no NaN ever appears.  Float results are
 * checksummed through their bit patterns. */
#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>
#include <string.h>
#include <math.h>

#define N 1024
#define ODD 1021 /* a length that leaves a scalar remainder after the vector loop */

#define NOINLINE __attribute__((noinline))

static uint32_t rng_state = 0x12345678u;
static uint32_t rnd(void) {
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static int8_t s8a[N], s8b[N];
static uint8_t u8a[N], u8b[N], u8o[N], text[N];
static int16_t s16a[N], s16b[N], s16o[N];
static uint16_t u16o[N];
static int32_t s32a[N], s32b[N], s32o[N];
static uint32_t u32a[N], u32o[N];
static int64_t s64a[N], s64b[N], s64o[N];
static uint64_t u64o[N];
static float fa[N], fb[N], fo[N];
static double da[N], db[N], dout[N];

/* ---- checksums (sequential, so they never depend on vectorisation) ---- */
static uint32_t hash_bytes(const void *p, size_t n) {
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}
#define HASH(arr) hash_bytes((arr), sizeof(arr))

static void report(const char *name, uint32_t h) { printf("%-24s %08" PRIx32 "\n", name, h); }

/* ---- float / double element-wise ---- */
NOINLINE static void saxpy(float alpha, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++) y[i] = alpha * x[i] + y[i];
}
NOINLINE static void daxpy(double alpha, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) y[i] = alpha * x[i] + y[i];
}
NOINLINE static void float_mix(const float *x, const float *y, float *z, int n) {
    for (int i = 0; i < n; i++) z[i] = (x[i] - y[i]) / (x[i] * x[i] + 1.0f) + sqrtf(fabsf(y[i]));
}
NOINLINE static void double_mix(const double *x, const double *y, double *z, int n) {
    for (int i = 0; i < n; i++) z[i] = sqrt(x[i] * x[i] + y[i] * y[i]) - fabs(x[i]) / (fabs(y[i]) + 0.5);
}
NOINLINE static void float_round(const float *x, float *z, int n) {
    for (int i = 0; i < n; i++) z[i] = floorf(x[i]) + ceilf(x[i] * 0.5f) - truncf(x[i] * 0.25f) + rintf(x[i] * 0.125f);
}
NOINLINE static void double_round(const double *x, double *z, int n) {
    for (int i = 0; i < n; i++) z[i] = floor(x[i] * 3.0) - ceil(x[i]) + trunc(x[i] * 0.75) - rint(x[i] * 0.5);
}
NOINLINE static void float_select(const float *x, const float *y, float *z, int n) {
    for (int i = 0; i < n; i++) {
        float lo = y[i] < x[i] ? y[i] : x[i];
        float hi = x[i] < y[i] ? y[i] : x[i];
        z[i] = hi - lo * 0.5f + (x[i] > 0.0f ? 1.0f : -2.0f);
    }
}
NOINLINE static void float_negabs(const float *x, float *z, int n) {
    for (int i = 0; i < n; i++) z[i] = -fabsf(x[i]) * 3.0f + -x[i];
}

/* ---- integer arithmetic ---- */
NOINLINE static uint32_t dot_i32(const int32_t *a, const int32_t *b, int n) {
    uint32_t s = 0;
    for (int i = 0; i < n; i++) s += (uint32_t)a[i] * (uint32_t)b[i];
    return s;
}
NOINLINE static uint32_t dot_i16(const int16_t *a, const int16_t *b, int n) {
    uint32_t s = 0; /* products fit an int; the sum wraps (defined: unsigned) */
    for (int i = 0; i < n; i++) s += (uint32_t)(a[i] * b[i]);
    return s;
}
NOINLINE static int32_t dot_i8(const int8_t *a, const int8_t *b, int n) {
    int32_t s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
NOINLINE static uint32_t sum_u8(const uint8_t *a, int n) {
    uint32_t s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}
NOINLINE static int64_t dot_i64(const int64_t *a, const int64_t *b, int n) {
    uint64_t s = 0;
    for (int i = 0; i < n; i++) s += (uint64_t)a[i] * (uint64_t)b[i];
    return (int64_t)s;
}
NOINLINE static void mul_i16(const int16_t *a, const int16_t *b, int16_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int16_t)(a[i] * b[i] - (a[i] >> 2));
}
NOINLINE static void mulhi_u16(const int16_t *a, const int16_t *b, uint16_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (uint16_t)(((uint32_t)(uint16_t)a[i] * (uint16_t)b[i]) >> 16);
}
NOINLINE static void widen_mul_i32(const int32_t *a, const int32_t *b, int64_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int64_t)a[i] * b[i];
}
NOINLINE static void div_const(const int32_t *a, int32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] / 7 + (int32_t)((uint32_t)a[i] % 10u);
}
NOINLINE static void i64_mix(const int64_t *a, const int64_t *b, uint64_t *o, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t x = (uint64_t)a[i] * 0x9E3779B97F4A7C15ull + (uint64_t)b[i];
        o[i] = (x ^ (x >> 29)) + (uint64_t)(a[i] >> 7) - (uint64_t)b[i] * 3u;
    }
}

/* ---- min / max / clamps / saturation ---- */
struct mm { int32_t min32, max32; int16_t min16, max16; uint8_t minu8, maxu8; int8_t min8, max8; };
NOINLINE static struct mm minmax(int n) {
    struct mm r = {INT32_MAX, INT32_MIN, INT16_MAX, INT16_MIN, 255, 0, 127, -128};
    for (int i = 0; i < n; i++) r.min32 = s32a[i] < r.min32 ? s32a[i] : r.min32;
    for (int i = 0; i < n; i++) r.max32 = s32a[i] > r.max32 ? s32a[i] : r.max32;
    for (int i = 0; i < n; i++) r.min16 = s16a[i] < r.min16 ? s16a[i] : r.min16;
    for (int i = 0; i < n; i++) r.max16 = s16b[i] > r.max16 ? s16b[i] : r.max16;
    for (int i = 0; i < n; i++) r.minu8 = u8a[i] < r.minu8 ? u8a[i] : r.minu8;
    for (int i = 0; i < n; i++) r.maxu8 = u8b[i] > r.maxu8 ? u8b[i] : r.maxu8;
    for (int i = 0; i < n; i++) r.min8 = s8a[i] < r.min8 ? s8a[i] : r.min8;
    for (int i = 0; i < n; i++) r.max8 = s8b[i] > r.max8 ? s8b[i] : r.max8;
    return r;
}
NOINLINE static void clamp_i32(const int32_t *a, int32_t *o, int n, int32_t lo, int32_t hi) {
    for (int i = 0; i < n; i++) o[i] = a[i] < lo ? lo : a[i] > hi ? hi : a[i];
}
NOINLINE static void sat_i16_to_i8(const int16_t *a, int8_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int8_t)(a[i] < -128 ? -128 : a[i] > 127 ? 127 : a[i]);
}
NOINLINE static void sat_i32_to_u16(const int32_t *a, uint16_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (uint16_t)(a[i] < 0 ? 0 : a[i] > 65535 ? 65535 : a[i]);
}
NOINLINE static void addsat_u8(const uint8_t *a, const uint8_t *b, uint8_t *o, int n) {
    for (int i = 0; i < n; i++) {
        unsigned s = a[i] + b[i];
        o[i] = (uint8_t)(s > 255 ? 255 : s);
    }
}
NOINLINE static void subsat_u8(const uint8_t *a, const uint8_t *b, uint8_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] > b[i] ? (uint8_t)(a[i] - b[i]) : 0;
}
NOINLINE static void addsat_i16(const int16_t *a, const int16_t *b, int16_t *o, int n) {
    for (int i = 0; i < n; i++) {
        int s = a[i] + b[i];
        o[i] = (int16_t)(s < -32768 ? -32768 : s > 32767 ? 32767 : s);
    }
}
NOINLINE static void avg_u8(const uint8_t *a, const uint8_t *b, uint8_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (uint8_t)((a[i] + b[i] + 1) >> 1);
}
NOINLINE static void absdiff_u8(const uint8_t *a, const uint8_t *b, uint8_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
}

/* ---- abs, neg, shifts, bit operations ---- */
NOINLINE static void abs_all(int n) {
    for (int i = 0; i < n; i++) s32o[i] = s32a[i] < 0 ? -s32a[i] : s32a[i]; /* inputs avoid INT32_MIN */
    for (int i = 0; i < n; i++) s16o[i] = (int16_t)(s16a[i] < 0 ? -s16a[i] : s16a[i]);
    for (int i = 0; i < n; i++) u8o[i] = (uint8_t)(s8a[i] < 0 ? -s8a[i] : s8a[i]);
    for (int i = 0; i < n; i++) s64o[i] = s64a[i] < 0 ? -s64a[i] : s64a[i];
}
NOINLINE static void shifts(int n, int k) {
    for (int i = 0; i < n; i++) s32o[i] = (s32a[i] >> 3) ^ (int32_t)((uint32_t)s32b[i] << 5) ^ (int32_t)(u32a[i] >> k);
    for (int i = 0; i < n; i++) s16o[i] = (int16_t)((s16a[i] >> 2) + (int16_t)((uint16_t)s16b[i] << k));
    for (int i = 0; i < n; i++) u8o[i] = (uint8_t)((u8a[i] >> 3) | (u8b[i] << 5)) ^ (uint8_t)(s8a[i] >> 1);
    for (int i = 0; i < n; i++) u64o[i] = ((uint64_t)s64a[i] << 9) ^ (uint64_t)(s64b[i] >> 7) ^ ((uint64_t)s64a[i] >> k);
}
NOINLINE static void bitops(int n) {
    for (int i = 0; i < n; i++) u32o[i] = (u32a[i] & ~(uint32_t)s32b[i]) | ((uint32_t)s32a[i] ^ 0x5a5a5a5au);
    for (int i = 0; i < n; i++) u8o[i] = (uint8_t)__builtin_popcount(u8a[i]) + (uint8_t)~u8b[i];
}

/* ---- compares, masks, selects ---- */
NOINLINE static void masks_i32(const int32_t *a, const int32_t *b, int32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] > b[i] ? -1 : 0;
}
NOINLINE static int count_eq_u8(const uint8_t *a, const uint8_t *b, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) c += (a[i] & 7) == (b[i] & 7);
    return c;
}
NOINLINE static void select_i16(const int16_t *a, const int16_t *b, int16_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] <= b[i] ? (int16_t)(a[i] + 1) : (int16_t)(b[i] - 3);
}
NOINLINE static void select_u32(const uint32_t *a, const int32_t *b, uint32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] >= (uint32_t)b[i] ? a[i] : ~a[i];
}
NOINLINE static void fcmp_mask(const float *x, const float *y, int32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (x[i] >= y[i]) - (x[i] == y[i]) * 2 + (x[i] != 0.5f) * 4;
}
NOINLINE static void dcmp_mask(const double *x, const double *y, int64_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = x[i] < y[i] ? -1 : (x[i] <= 0.0 ? 7 : 0);
}
NOINLINE static void i64_cmp(const int64_t *a, const int64_t *b, int64_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] > b[i] ? a[i] : b[i] ^ 1;
}

/* ---- byte transforms ---- */
NOINLINE static void to_upper(uint8_t *t, int n) {
    for (int i = 0; i < n; i++) t[i] = (t[i] >= 'a' && t[i] <= 'z') ? (uint8_t)(t[i] - 32) : t[i];
}
NOINLINE static void rot13(uint8_t *t, int n) {
    for (int i = 0; i < n; i++) {
        uint8_t c = t[i];
        if (c >= 'A' && c <= 'Z') c = (uint8_t)((c - 'A' + 13) % 26 + 'A');
        t[i] = c;
    }
}
NOINLINE static void xor_key(uint8_t *t, int n) {
    for (int i = 0; i < n; i++) t[i] ^= (uint8_t)(0x5c + (i & 15));
}

/* ---- strided and permuted copies ---- */
NOINLINE static void deinterleave(const int16_t *in, int16_t *even, int16_t *odd, int n) {
    for (int i = 0; i < n; i++) {
        even[i] = in[2 * i];
        odd[i] = in[2 * i + 1];
    }
}
NOINLINE static void interleave(const int32_t *a, const int32_t *b, int32_t *o, int n) {
    for (int i = 0; i < n; i++) {
        o[2 * i] = a[i];
        o[2 * i + 1] = b[i] - a[i];
    }
}
NOINLINE static void reverse_u8(const uint8_t *in, uint8_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = in[n - 1 - i];
}
NOINLINE static void gather3(const float *in, float *o, int n) {
    for (int i = 0; i < n; i++) o[i] = in[3 * i] + in[3 * i + 2];
}
NOINLINE static void prefix_copy(uint32_t *dst, const uint32_t *src, int n) {
    for (int i = 0; i < n; i++) dst[i] = src[i] + (uint32_t)i;
}
NOINLINE static void pair_sum_u8(const uint8_t *in, uint16_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (uint16_t)(in[2 * i] + in[2 * i + 1]);
}

/* ---- conversions ---- */
NOINLINE static void conv_i32_f32(const int32_t *a, float *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)a[i] * 0.5f;
}
NOINLINE static void conv_u32_f32(const uint32_t *a, float *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)a[i];
}
NOINLINE static void conv_f32_i32(const float *x, int32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int32_t)(x[i] * 1000.0f); /* |x| < 1100: in range */
}
NOINLINE static void conv_f32_u8(const float *x, uint8_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (uint8_t)(int32_t)(fabsf(x[i]) * 0.2f); /* < 256 */
}
NOINLINE static void conv_u8_f32(const uint8_t *a, float *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)a[i] / 255.0f;
}
NOINLINE static void conv_i16_f32(const int16_t *a, float *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)a[i] * 0.125f - 1.0f;
}
NOINLINE static void conv_i32_f64(const int32_t *a, double *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (double)a[i] / 3.0;
}
NOINLINE static void conv_f64_i32(const double *x, int32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int32_t)(x[i] * 100.0);
}
NOINLINE static void conv_f64_f32(const double *x, float *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)(x[i] * 1.1);
}
NOINLINE static void conv_f32_f64(const float *x, double *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (double)x[i] * 0.1;
}
NOINLINE static void widen_i8_i32(const int8_t *a, const uint8_t *b, int32_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = a[i] * 1000 + b[i];
}
NOINLINE static void widen_i32_i64(const int32_t *a, const uint32_t *b, int64_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int64_t)a[i] + (int64_t)b[i];
}
NOINLINE static void narrow_i32_i16(const int32_t *a, int16_t *o, int n) {
    for (int i = 0; i < n; i++) o[i] = (int16_t)(a[i] >> 8);
}

/* ---- small matrix products ---- */
#define M 16
static float ma[M][M], mb[M][M], mc[M][M];
static int32_t ia[12][12], ib[12][12], ic[12][12];
NOINLINE static void matmul_f32(void) {
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < M; j++) mc[i][j] = 0.0f;
        for (int k = 0; k < M; k++) {
            float aik = ma[i][k];
            for (int j = 0; j < M; j++) mc[i][j] = mc[i][j] + aik * mb[k][j];
        }
    }
}
NOINLINE static void matmul_i32(void) {
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            int32_t s = 0;
            for (int k = 0; k < 12; k++) s += ia[i][k] * ib[k][j];
            ic[i][j] = s;
        }
}

static int16_t pairs16[2 * N];
static int32_t pairs32[2 * N];
static float f3[3 * N];

static void init(void) {
    for (int i = 0; i < N; i++) {
        s8a[i] = (int8_t)rnd();
        s8b[i] = (int8_t)rnd();
        u8a[i] = (uint8_t)rnd();
        u8b[i] = (uint8_t)(rnd() >> 8);
        s16a[i] = (int16_t)((int32_t)(rnd() % 8191) - 4095);
        s16b[i] = (int16_t)((int32_t)(rnd() % 8191) - 4095);
        s32a[i] = (int32_t)(rnd() >> 1) - 0x3fffffff;
        s32b[i] = (int32_t)rnd();
        if (s32b[i] == INT32_MIN) s32b[i] = 0;
        u32a[i] = rnd();
        s64a[i] = (int64_t)(((uint64_t)rnd() << 32 | rnd()) >> 1) - (INT64_MAX / 2);
        s64b[i] = (int64_t)((uint64_t)rnd() << 32 | rnd());
        fa[i] = (float)((int32_t)(rnd() % 2000001) - 1000000) / 1024.0f;
        fb[i] = (float)((int32_t)(rnd() % 20001) - 10000) / 64.0f + 0.3f;
        da[i] = (double)((int32_t)(rnd() % 2000001) - 1000000) / 3000.0;
        db[i] = (double)(int32_t)rnd() / 65536.0;
        static const char alphabet[] = "The quick brown fox jumps over the lazy dog 0123456789,.!?";
        text[i] = (uint8_t)alphabet[rnd() % (sizeof alphabet - 1)];
    }
    fa[5] = 0.5f;
    fb[5] = 0.5f; /* an equal pair for the compares */
    for (int i = 0; i < 2 * N; i++) pairs16[i] = (int16_t)rnd();
    for (int i = 0; i < 3 * N; i++) f3[i] = (float)(int32_t)(rnd() % 4097) * 0.75f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
            ma[i][j] = (float)((int32_t)(rnd() % 201) - 100) / 16.0f;
            mb[i][j] = (float)((int32_t)(rnd() % 2001) - 1000) / 7.0f;
        }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            ia[i][j] = (int32_t)(rnd() % 2001) - 1000;
            ib[i][j] = (int32_t)(rnd() % 2001) - 1000;
        }
}

int main(void) {
    init();

    /* float / double */
    memcpy(fo, fb, sizeof fo);
    for (int r = 0; r < 4; r++) saxpy(0.75f - (float)r * 0.5f, fa, fo, N);
    report("saxpy", HASH(fo));
    memcpy(dout, db, sizeof dout);
    for (int r = 0; r < 4; r++) daxpy(1.0 / (r + 3), da, dout, ODD);
    report("daxpy", HASH(dout));
    float_mix(fa, fb, fo, N);
    report("float_mix", HASH(fo));
    printf("float_mix[7] %.9g\n", fo[7]);
    double_mix(da, db, dout, N);
    report("double_mix", HASH(dout));
    printf("double_mix[9] %.17g\n", dout[9]);
    float_round(fa, fo, N);
    report("float_round", HASH(fo));
    double_round(da, dout, N);
    report("double_round", HASH(dout));
    float_select(fa, fb, fo, N);
    report("float_select", HASH(fo));
    float_negabs(fb, fo, ODD);
    report("float_negabs", HASH(fo));
    float fsum = 0;
    for (int i = 0; i < N; i++) fsum += fo[i];
    printf("float_negabs sum %.9g\n", fsum);

    /* integer arithmetic */
    printf("dot_i32 %" PRIu32 "\n", dot_i32(s32a, s32b, N));
    printf("dot_i16 %" PRIu32 "\n", dot_i16(s16a, s16b, N));
    printf("dot_i8 %" PRId32 " %" PRId32 "\n", dot_i8(s8a, s8b, N), dot_i8(s8a + 1, s8a, ODD));
    printf("sum_u8 %" PRIu32 "\n", sum_u8(u8a, ODD));
    printf("dot_i64 %" PRId64 "\n", dot_i64(s64a, s64b, N));
    mul_i16(s16a, s16b, s16o, N);
    report("mul_i16", HASH(s16o));
    mulhi_u16(s16a, s16b, u16o, N);
    report("mulhi_u16", HASH(u16o));
    widen_mul_i32(s32a, s32b, s64o, N);
    report("widen_mul_i32", HASH(s64o));
    div_const(s32a, s32o, N);
    report("div_const", HASH(s32o));
    i64_mix(s64a, s64b, u64o, ODD);
    report("i64_mix", HASH(u64o));

    /* min / max / saturation */
    struct mm m = minmax(N);
    printf("minmax %" PRId32 " %" PRId32 " %d %d %u %u %d %d\n", m.min32, m.max32, m.min16, m.max16, m.minu8,
           m.maxu8, m.min8, m.max8);
    clamp_i32(s32a, s32o, N, -100000000, 250000000);
    report("clamp_i32", HASH(s32o));
    sat_i16_to_i8(s16a, s8b, N);
    report("sat_i16_to_i8", HASH(s8b));
    sat_i32_to_u16(s32b, u16o, N);
    report("sat_i32_to_u16", HASH(u16o));
    addsat_u8(u8a, u8b, u8o, N);
    report("addsat_u8", HASH(u8o));
    subsat_u8(u8a, u8b, u8o, N);
    report("subsat_u8", HASH(u8o));
    for (int i = 0; i < N; i++) pairs16[i] = (int16_t)(pairs16[i] / 2 + s16a[i] * 4);
    addsat_i16(pairs16, s16b, s16o, N);
    report("addsat_i16", HASH(s16o));
    avg_u8(u8a, u8b, u8o, N);
    report("avg_u8", HASH(u8o));
    absdiff_u8(u8a, u8b, u8o, ODD);
    report("absdiff_u8", HASH(u8o));

    /* abs / shifts / bits */
    abs_all(N);
    printf("abs %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", HASH(s32o), HASH(s16o), HASH(u8o),
           HASH(s64o));
    shifts(N, 3);
    printf("shifts %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", HASH(s32o), HASH(s16o), HASH(u8o),
           HASH(u64o));
    shifts(ODD, 11);
    printf("shifts %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", HASH(s32o), HASH(s16o), HASH(u8o),
           HASH(u64o));
    bitops(N);
    printf("bitops %08" PRIx32 " %08" PRIx32 "\n", HASH(u32o), HASH(u8o));

    /* compares */
    masks_i32(s32a, s32b, s32o, N);
    report("masks_i32", HASH(s32o));
    printf("count_eq_u8 %d\n", count_eq_u8(u8a, u8b, N));
    select_i16(s16a, s16b, s16o, N);
    report("select_i16", HASH(s16o));
    select_u32(u32a, s32b, u32o, N);
    report("select_u32", HASH(u32o));
    fcmp_mask(fa, fb, s32o, N);
    report("fcmp_mask", HASH(s32o));
    dcmp_mask(da, db, s64o, N);
    report("dcmp_mask", HASH(s64o));
    i64_cmp(s64a, s64b, s64o, N);
    report("i64_cmp", HASH(s64o));

    /* bytes */
    to_upper(text, N);
    printf("upper %.40s\n", (const char *)text);
    rot13(text, N);
    printf("rot13 %.40s\n", (const char *)text);
    xor_key(text, ODD);
    report("xor_key", HASH(text));

    /* strided / permuted */
    deinterleave(pairs16, s16o, s16b, N);
    printf("deinterleave %08" PRIx32 " %08" PRIx32 "\n", HASH(s16o), HASH(s16b));
    interleave(s32a, s32b, pairs32, N);
    report("interleave", HASH(pairs32));
    reverse_u8(u8a, u8o, N);
    report("reverse_u8", HASH(u8o));
    gather3(f3, fo, N);
    report("gather3", HASH(fo));
    prefix_copy(u32o, u32a, 517);
    report("prefix_copy", HASH(u32o));
    pair_sum_u8(u8a, u16o, N / 2);
    report("pair_sum_u8", HASH(u16o));

    /* conversions */
    conv_i32_f32(s32b, fo, N);
    report("conv_i32_f32", HASH(fo));
    conv_u32_f32(u32a, fo, N);
    report("conv_u32_f32", HASH(fo));
    printf("conv_u32_f32[3] %.9g\n", fo[3]);
    conv_f32_i32(fa, s32o, N);
    report("conv_f32_i32", HASH(s32o));
    conv_f32_u8(fb, u8o, N);
    report("conv_f32_u8", HASH(u8o));
    conv_u8_f32(u8a, fo, N);
    report("conv_u8_f32", HASH(fo));
    conv_i16_f32(s16a, fo, N);
    report("conv_i16_f32", HASH(fo));
    conv_i32_f64(s32a, dout, N);
    report("conv_i32_f64", HASH(dout));
    conv_f64_i32(da, s32o, N);
    report("conv_f64_i32", HASH(s32o));
    conv_f64_f32(db, fo, N);
    report("conv_f64_f32", HASH(fo));
    conv_f32_f64(fa, dout, N);
    report("conv_f32_f64", HASH(dout));
    widen_i8_i32(s8a, u8b, s32o, N);
    report("widen_i8_i32", HASH(s32o));
    widen_i32_i64(s32a, u32a, s64o, N);
    report("widen_i32_i64", HASH(s64o));
    narrow_i32_i16(s32b, s16o, N);
    report("narrow_i32_i16", HASH(s16o));

    /* matrices */
    matmul_f32();
    report("matmul_f32", HASH(mc));
    printf("matmul_f32[3][5] %.9g\n", mc[3][5]);
    matmul_i32();
    report("matmul_i32", HASH(ic));
    printf("matmul_i32[11][0] %" PRId32 "\n", ic[11][0]);
    return 0;
}
