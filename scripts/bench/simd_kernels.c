/* Kernels for scripts/bench-simd.sh: each is written once in plain C and
 * built twice, scalar (-O2, no SIMD) and vectorised (-O3 -msimd128, where
 * clang autovectorises the loops and the intrinsic kernels use
 * wasm_simd128.h). The two builds print the same checksums. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#define N 4096
#define ROUNDS 400

static float fa[N], fb[N], fc[N];
static int32_t ia[N], ib[N];
static uint8_t pix[N * 4], out[N * 4];

static uint32_t seed = 12345;
static uint32_t rnd(void) {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

/* y = a*x + y over floats (no FMA contraction). */
static void saxpy(float a) {
    for (int i = 0; i < N; i++) fc[i] = a * fa[i] + fc[i];
}

/* Integer dot product. */
static int64_t dot_i32(void) {
    int32_t s = 0;
    for (int i = 0; i < N; i++) s += ia[i] * ib[i];
    return s;
}

/* Saturating brightness on RGBA bytes. */
static void brighten(uint8_t d) {
    for (int i = 0; i < N * 4; i++) {
        unsigned v = pix[i] + d;
        out[i] = v > 255 ? 255 : (uint8_t)v;
    }
}

/* Sum of absolute differences of bytes, with explicit intrinsics when SIMD is on. */
static uint32_t sad(const uint8_t *x, const uint8_t *y, int n) {
#ifdef __wasm_simd128__
    v128_t acc = wasm_i32x4_splat(0);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        v128_t a = wasm_v128_load(x + i), b = wasm_v128_load(y + i);
        v128_t d = wasm_v128_or(wasm_u8x16_sub_sat(a, b), wasm_u8x16_sub_sat(b, a));
        v128_t w = wasm_u16x8_extadd_pairwise_u8x16(d);
        acc = wasm_i32x4_add(acc, wasm_u32x4_extadd_pairwise_u16x8(w));
    }
    uint32_t s = wasm_u32x4_extract_lane(acc, 0) + wasm_u32x4_extract_lane(acc, 1) +
                 wasm_u32x4_extract_lane(acc, 2) + wasm_u32x4_extract_lane(acc, 3);
    for (; i < n; i++) s += x[i] > y[i] ? x[i] - y[i] : y[i] - x[i];
    return s;
#else
    uint32_t s = 0;
    for (int i = 0; i < n; i++) s += x[i] > y[i] ? x[i] - y[i] : y[i] - x[i];
    return s;
#endif
}

/* 4x4 float matrix times N/4 vectors, with explicit intrinsics when SIMD is on. */
static void mat4(const float m[16]) {
    for (int i = 0; i < N; i += 4) {
#ifdef __wasm_simd128__
        v128_t r = wasm_f32x4_mul(wasm_v128_load(m), wasm_f32x4_splat(fa[i]));
        r = wasm_f32x4_add(r, wasm_f32x4_mul(wasm_v128_load(m + 4), wasm_f32x4_splat(fa[i + 1])));
        r = wasm_f32x4_add(r, wasm_f32x4_mul(wasm_v128_load(m + 8), wasm_f32x4_splat(fa[i + 2])));
        r = wasm_f32x4_add(r, wasm_f32x4_mul(wasm_v128_load(m + 12), wasm_f32x4_splat(fa[i + 3])));
        wasm_v128_store(fb + i, r);
#else
        for (int k = 0; k < 4; k++) {
            float r = m[k] * fa[i];
            r = r + m[4 + k] * fa[i + 1];
            r = r + m[8 + k] * fa[i + 2];
            r = r + m[12 + k] * fa[i + 3];
            fb[i + k] = r;
        }
#endif
    }
}

static uint32_t hash_bytes(const void *p, size_t n) {
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

/* `rounds=N` arguments are not kernel names. */
static int wanted(int argc, char **argv, const char *k) {
    int named = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "rounds=", 7) == 0) continue;
        named = 1;
        if (strcmp(argv[i], k) == 0) return 1;
    }
    return !named;
}

/* usage: simd_kernels [KERNEL...] [rounds=N]  (saxpy dot bright sad mat4;
 * default all, ROUNDS rounds); prints the rounds' time to stderr as
 * `kernel_s=SECONDS` */
int main(int argc, char **argv) {
    int rounds = ROUNDS;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "rounds=", 7) == 0) rounds = atoi(argv[i] + 7);
    for (int i = 0; i < N; i++) {
        fa[i] = (float)(rnd() % 1000) / 100.0f;
        fc[i] = (float)(rnd() % 1000) / 1000.0f;
        ia[i] = (int32_t)(rnd() % 2001) - 1000;
        ib[i] = (int32_t)(rnd() % 2001) - 1000;
    }
    for (int i = 0; i < N * 4; i++) pix[i] = (uint8_t)rnd();
    static const float m[16] = {1, 0.5f, 0.25f, 2, 0, 1, 3, 0.5f, 1, 1, 1, 1, 0.125f, 4, 0, 1};
    int64_t dots = 0;
    uint32_t sads = 0;
    int do_saxpy = wanted(argc, argv, "saxpy"), do_dot = wanted(argc, argv, "dot"),
        do_bright = wanted(argc, argv, "bright"), do_sad = wanted(argc, argv, "sad"),
        do_mat4 = wanted(argc, argv, "mat4");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < rounds; r++) {
        if (do_saxpy) saxpy(0.001f * (float)(r % 7));
        if (do_dot) dots += dot_i32();
        if (do_bright) brighten((uint8_t)(r % 50));
        if (do_sad) sads += sad(pix, out, N * 4);
        if (do_mat4) mat4(m);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* The rounds alone, timed by the program itself: the same measure in
     * every engine, whatever its CLI reports. */
    fprintf(stderr, "kernel_s=%.6f\n",
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    if (do_saxpy) printf("saxpy  %08x\n", hash_bytes(fc, sizeof fc));
    if (do_dot) printf("dot    %lld\n", (long long)dots);
    if (do_bright) printf("bright %08x\n", hash_bytes(out, sizeof out));
    if (do_sad) printf("sad    %u\n", sads);
    if (do_mat4) printf("mat4   %08x\n", hash_bytes(fb, sizeof fb));
    return 0;
}
