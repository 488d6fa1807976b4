/* Memory growth: malloc of large growing buffers (forcing memory.grow),
 * realloc chains, calloc zeroing, free/reuse, and a bump-allocated linked
 * structure; prints checksums. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v) { h ^= v; h *= 0x9E3779B97F4A7C15ull; return h ^ (h >> 29); }

typedef struct node { struct node *next; uint32_t val; char pad[20]; } node;

int main(void) {
    uint64_t h = 0;
    /* 1. growing buffers: 64 KiB .. 32 MiB, touch every 4 KiB page and ends */
    for (size_t sz = 1 << 16; sz <= (32u << 20); sz <<= 1) {
        uint8_t *p = malloc(sz);
        if (!p) { printf("malloc(%zu) failed\n", sz); return 1; }
        for (size_t i = 0; i < sz; i += 4096) p[i] = (uint8_t)(i >> 12);
        p[sz - 1] = 0xAB;
        uint64_t s = 0;
        for (size_t i = 0; i < sz; i += 4096) s += p[i];
        h = mix(h, s + p[sz - 1]);
        printf("buffer %8zu KiB sum %llu\n", sz >> 10, (unsigned long long)s);
        free(p);
    }
    /* 2. realloc chain: grow an int array one chunk at a time, verify contents survive */
    uint32_t *arr = NULL;
    size_t n = 0;
    for (int step = 0; step < 200; step++) {
        size_t nn = n + 1000 + step * 37;
        uint32_t *q = realloc(arr, nn * sizeof *q);
        if (!q) { printf("realloc failed\n"); return 1; }
        arr = q;
        for (size_t i = n; i < nn; i++) arr[i] = (uint32_t)(i * 2654435761u);
        n = nn;
    }
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= arr[i] == (uint32_t)(i * 2654435761u);
    arr = realloc(arr, 10 * sizeof *arr);   /* shrink */
    printf("realloc n %zu ok %d first %u %u\n", n, ok, arr[1], arr[9]);
    free(arr);
    /* 3. calloc must be zero, even after memory was dirtied and freed */
    uint8_t *d = malloc(1 << 20);
    memset(d, 0x5A, 1 << 20);
    free(d);
    uint32_t *z = calloc(1 << 18, sizeof *z);
    uint64_t zs = 0;
    for (size_t i = 0; i < (1u << 18); i++) zs += z[i];
    printf("calloc zero sum %llu\n", (unsigned long long)zs);
    free(z);
    /* 4. many small allocations: linked list, free every other, reallocate */
    node *head = NULL;
    for (uint32_t i = 0; i < 60000; i++) {
        node *nd = malloc(sizeof *nd);
        nd->val = i * 7 + 3; nd->next = head; memset(nd->pad, (int)(i & 0xFF), sizeof nd->pad); head = nd;
    }
    uint64_t ls = 0;
    size_t cnt = 0;
    for (node **pp = &head; *pp;) {
        node *cur = *pp;
        if (cur->val % 2) { *pp = cur->next; free(cur); }
        else { ls += cur->val + (uint8_t)cur->pad[19]; cnt++; pp = &cur->next; }
    }
    for (uint32_t i = 0; i < 30000; i++) { char *s = malloc(16 + i % 64); s[0] = (char)i; ls += (uint8_t)s[0]; free(s); }
    while (head) { node *nx = head->next; free(head); head = nx; }
    printf("list kept %zu sum %llu\n", cnt, (unsigned long long)ls);
    /* 5. final: one big live block + pointer arithmetic across it */
    size_t big = 24u << 20;
    uint64_t *bp = malloc(big);
    for (size_t i = 0; i < big / 8; i += 97) bp[i] = (uint64_t)i * i;
    uint64_t bs = 0;
    for (size_t i = 0; i < big / 8; i += 97) bs = mix(bs, bp[i]);
    printf("big %016llx total %016llx\n", (unsigned long long)bs, (unsigned long long)mix(h, bs));
    free(bp);
    return 0;
}
