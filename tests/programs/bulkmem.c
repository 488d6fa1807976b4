/* memcpy / memmove / memset / memcmp / memchr of many sizes and
 * (mis)alignments, overlapping moves in both directions, struct copies;
 * built with -mbulk-memory these become memory.copy / memory.fill. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SZ (1 << 16)
static uint8_t a[SZ], b[SZ];

typedef struct { int32_t x[13]; char name[7]; double d; } blob;

static uint32_t sum(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

int main(void) {
    for (int i = 0; i < SZ; i++) a[i] = (uint8_t)(i * 7 + (i >> 8));
    uint32_t h = 0;
    /* copies of every size 0..300 at every alignment 0..7 */
    for (size_t n = 0; n <= 300; n++)
        for (size_t off = 0; off < 8; off++) {
            memcpy(b + 3 * off, a + off + n, n);
            h = h * 31 + sum(b, n + 24);
        }
    printf("memcpy sizes %08x\n", h);
    /* memset of many sizes and values */
    h = 0;
    for (size_t n = 0; n < 2000; n += 13) {
        memset(b + (n & 15), (int)(n * 3), n);
        h = h * 31 + sum(b, 2100);
    }
    printf("memset %08x\n", h);
    /* overlapping memmove both ways */
    memcpy(b, a, SZ);
    for (int i = 0; i < 200; i++) {
        size_t n = 1000 + i * 97, src = (size_t)i * 31, dst = src + (i % 2 ? 1 + i % 70 : 0);
        if (i % 2 == 0 && src > 100) dst = src - (1 + i % 70);
        memmove(b + dst, b + src, n);
    }
    printf("memmove %08x\n", sum(b, SZ));
    /* large copies (bulk) back and forth */
    for (int r = 0; r < 20; r++) {
        memcpy(b, a, SZ);
        memmove(a + 1, b, SZ - 1);
        memset(b + r * 101, r, 4096);
        a[0] = b[SZ - 1 - r];
    }
    printf("bulk %08x %08x\n", sum(a, SZ), sum(b, SZ));
    /* memcmp / memchr / strlen-family */
    int c1 = memcmp(a, b, SZ) > 0, c2 = memcmp(a + 5, a + 5, 1000), c3 = memcmp("abcd", "abce", 4) < 0;
    uint8_t *p = memchr(a, 0x42, SZ);
    printf("memcmp %d %d %d memchr %ld\n", c1, c2, c3, p ? (long)(p - a) : -1L);
    /* struct copies (memory.copy of constant size) and zero-init */
    blob arr[64];
    memset(arr, 0, sizeof arr);
    for (int i = 0; i < 64; i++) { arr[i].x[i % 13] = i * 1000; arr[i].d = i / 4.0; snprintf(arr[i].name, 7, "b%d", i); }
    blob t = arr[5];
    for (int r = 0; r < 2000; r++) { arr[r % 64] = arr[(r * 7 + 3) % 64]; arr[(r * 11) % 64].x[r % 13] += r; }
    arr[0] = t;
    printf("blobs %08x %s %g\n", sum((const uint8_t *)arr, sizeof arr), arr[17].name, arr[33].d);
    /* heap: calloc + memcpy into freshly grown memory */
    uint8_t *big = calloc(1, 1 << 20);
    for (int i = 0; i < (1 << 20); i += SZ) memcpy(big + i, a, SZ);
    memset(big + 12345, 0xEE, 1 << 19);
    printf("big %08x\n", sum(big, 1 << 20));
    free(big);
    return 0;
}
