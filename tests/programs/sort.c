/* Sorting a PRNG array: quicksort, mergesort, heapsort, insertion sort on
 * small runs, and libc qsort with comparators (indirect calls). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 10000

static uint32_t seed = 12345;
static uint32_t lcg(void) { seed = seed * 1103515245u + 12345u; return seed >> 1; }

static void quicksort(int32_t *a, int lo, int hi) {
    while (lo < hi) {
        if (hi - lo < 16) {
            for (int i = lo + 1; i <= hi; i++) {
                int32_t v = a[i]; int j = i - 1;
                while (j >= lo && a[j] > v) { a[j + 1] = a[j]; j--; }
                a[j + 1] = v;
            }
            return;
        }
        int32_t p = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) { int32_t t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
        }
        if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
        else { quicksort(a, i, hi); hi = j; }
    }
}

static void merge_sort(int64_t *a, int64_t *tmp, int n) {
    if (n < 2) return;
    int m = n / 2;
    merge_sort(a, tmp, m);
    merge_sort(a + m, tmp, n - m);
    int i = 0, j = m, k = 0;
    while (i < m && j < n) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < m) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

static void sift(uint16_t *a, int start, int end) {
    int root = start;
    while (2 * root + 1 <= end) {
        int child = 2 * root + 1, sw = root;
        if (a[sw] < a[child]) sw = child;
        if (child + 1 <= end && a[sw] < a[child + 1]) sw = child + 1;
        if (sw == root) return;
        uint16_t t = a[root]; a[root] = a[sw]; a[sw] = t; root = sw;
    }
}
static void heapsort16(uint16_t *a, int n) {
    for (int s = (n - 2) / 2; s >= 0; s--) sift(a, s, n - 1);
    for (int end = n - 1; end > 0; end--) {
        uint16_t t = a[end]; a[end] = a[0]; a[0] = t;
        sift(a, 0, end - 1);
    }
}

static int cmp_i32(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}
static int cmp_i32_desc(const void *x, const void *y) { return cmp_i32(y, x); }
typedef struct { double key; int id; char tag[4]; } rec;
static int cmp_rec(const void *x, const void *y) {
    const rec *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->id - b->id;
}

static uint64_t check32(const int32_t *a, int n) {
    uint64_t h = 0;
    for (int i = 0; i < n; i++) h = h * 31 + (uint32_t)a[i];
    return h;
}

int main(void) {
    int32_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++) a[i] = (int32_t)lcg() - 0x40000000;
    memcpy(b, a, N * sizeof *a);
    quicksort(a, 0, N - 1);
    int ok = 1;
    for (int i = 1; i < N; i++) ok &= a[i - 1] <= a[i];
    printf("quicksort ok %d min %d max %d median %d hash %016llx\n", ok, a[0], a[N - 1], a[N / 2],
           (unsigned long long)check32(a, N));
    qsort(b, N, sizeof *b, cmp_i32);
    printf("qsort same %d\n", memcmp(a, b, N * sizeof *a) == 0);
    qsort(b, N, sizeof *b, cmp_i32_desc);
    printf("qsort desc first %d last %d\n", b[0], b[N - 1]);

    int64_t *m = malloc(N * sizeof *m), *tmp = malloc(N * sizeof *tmp);
    for (int i = 0; i < N; i++) m[i] = ((int64_t)(int32_t)lcg() << 20) ^ lcg();
    merge_sort(m, tmp, N);
    ok = 1;
    for (int i = 1; i < N; i++) ok &= m[i - 1] <= m[i];
    printf("mergesort ok %d first %lld last %lld mid %lld\n", ok, (long long)m[0], (long long)m[N - 1],
           (long long)m[N / 3]);

    uint16_t *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; i++) h[i] = (uint16_t)(lcg() >> 7);
    heapsort16(h, N);
    uint32_t hs = 0;
    ok = 1;
    for (int i = 0; i < N; i++) { hs = hs * 17 + h[i]; if (i) ok &= h[i - 1] <= h[i]; }
    printf("heapsort ok %d hash %08x\n", ok, hs);

    int nr = 5000;
    rec *r = malloc(nr * sizeof *r);
    for (int i = 0; i < nr; i++) {
        r[i].key = (double)(lcg() % 1000) / 8.0;
        r[i].id = i;
        snprintf(r[i].tag, sizeof r[i].tag, "%c%c", 'a' + i % 26, 'A' + (i / 26) % 26);
    }
    qsort(r, nr, sizeof *r, cmp_rec);
    printf("records: %g/%d/%s %g/%d/%s %g/%d/%s\n", r[0].key, r[0].id, r[0].tag, r[nr / 2].key,
           r[nr / 2].id, r[nr / 2].tag, r[nr - 1].key, r[nr - 1].id, r[nr - 1].tag);
    free(a); free(b); free(m); free(tmp); free(h); free(r);
    return 0;
}
