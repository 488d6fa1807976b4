/* 64-bit integer arithmetic, division/remainder edge cases (signs, powers of
 * two, large unsigned, INT_MIN / small divisors), shifts and rotates by
 * variable amounts, clz/ctz/popcount, sign and zero extension, mixed widths,
 * a 64x64->128 multiply and a modular exponentiation / primality test. */
#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>

static uint64_t s = 0x0123456789ABCDEFull;
static uint64_t next(void) {   /* splitmix64 */
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {   /* no __int128 */
    uint64_t r = 0;
    a %= m;
    while (b) {
        if (b & 1) { r += a; if (r >= m || r < a) r -= m; }
        uint64_t a2 = a << 1;
        if (a2 >= m || a2 < a) a2 -= m;
        a = a2;
        b >>= 1;
    }
    return r;
}
static uint64_t powmod(uint64_t b, uint64_t e, uint64_t m) {
    uint64_t r = 1 % m;
    for (b %= m; e; e >>= 1) { if (e & 1) r = mulmod(r, b, m); b = mulmod(b, b, m); }
    return r;
}
static int is_prime(uint64_t n) {
    if (n < 2) return 0;
    static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    for (int i = 0; i < 12; i++) { if (n == bases[i]) return 1; if (n % bases[i] == 0) return 0; }
    uint64_t d = n - 1; int r = 0;
    while (!(d & 1)) { d >>= 1; r++; }
    for (int i = 0; i < 12; i++) {
        uint64_t x = powmod(bases[i], d, n);
        if (x == 1 || x == n - 1) continue;
        int comp = 1;
        for (int k = 1; k < r && comp; k++) { x = mulmod(x, x, n); if (x == n - 1) comp = 0; }
        if (comp) return 0;
    }
    return 1;
}

static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    *lo = (mid << 32) | (uint32_t)ll;
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static uint64_t h = 14695981039346656037ull;
static void H(uint64_t v) { h = (h ^ v) * 1099511628211ull; }

int main(void) {
    /* division / remainder edge cases, printed */
    /* volatile: keep the divisions at run time */
    static volatile int64_t sd[] = {7, -7, 1, -1, INT64_MAX, INT64_MIN, 0, 1000000007, -3};
    static volatile int64_t sv[] = {2, -2, 3, -3, 1, 7, INT64_MAX, -1000000007, 4096};
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            int64_t a = sd[i], b = sv[j];
            H((uint64_t)(a / b)); H((uint64_t)(a % b));
            H((uint64_t)a / (uint64_t)b); H((uint64_t)a % (uint64_t)b);
        }
    printf("div/rem hash %016" PRIx64 "\n", h);
    printf("%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", INT64_MIN / 2, INT64_MIN % 3, (int64_t)-7 / 2, (int64_t)-7 % 2);
    printf("%" PRIu64 " %" PRIu64 " %d %d\n", UINT64_MAX / 3, UINT64_MAX % 1000, INT32_MIN / 7, INT32_MIN % 7);
    printf("%u %u %d\n", 0xFFFFFFFFu / 0x10001u, 0x80000000u % 0xFFFFu, -2147483647 / -1);
    /* sign/zero extension */
    static volatile uint32_t base = 0x1234F080u;
    for (int i = 0; i < 256; i += 37) {
        uint32_t v = base + (uint32_t)i * 0x01010101u;
        printf("ext %08x: i8 %d u8 %u i16 %d u16 %u i32->i64 %" PRId64 " u32->u64 %" PRIu64 " i8->i64 %" PRId64 "\n",
               v, (int8_t)v, (uint8_t)v, (int16_t)v, (uint16_t)v, (int64_t)(int32_t)v, (uint64_t)v,
               (int64_t)(int8_t)(v >> 3));
    }
    /* random arithmetic: shifts, rotates, bit counts, mixed widths */
    for (int i = 0; i < 50000; i++) {
        uint64_t a = next(), b = next();
        unsigned sh = (unsigned)(b & 63);
        int64_t sa = (int64_t)a;
        H(a << sh); H(a >> sh); H((uint64_t)(sa >> sh));
        H((a << sh) | (a >> ((64 - sh) & 63)));
        H((uint64_t)__builtin_popcountll(a) | (uint64_t)(a ? __builtin_clzll(a) : 64) << 8 |
          (uint64_t)(b ? __builtin_ctzll(b) : 64) << 16);
        uint32_t a32 = (uint32_t)a, b32 = (uint32_t)(b >> 32);
        H(a32 * b32); H((uint64_t)a32 * b32); H((uint32_t)(a32 << (sh & 31)) ^ (a32 >> (b32 & 31)));
        H(__builtin_popcount(a32) + (a32 ? __builtin_clz(a32) : 32) + (b32 ? __builtin_ctz(b32) : 32));
        if (b != 0) { H(a / b); H(a % b); }
        int64_t sb = (int64_t)(b >> (sh & 31)) - (int64_t)(b >> 40);
        if (sb != 0 && !(sa == INT64_MIN && sb == -1)) { H((uint64_t)(sa / sb)); H((uint64_t)(sa % sb)); }
        int32_t x32 = (int32_t)a32, y32 = (int32_t)(b32 | 1);
        if (!(x32 == INT32_MIN && y32 == -1)) { H((uint64_t)(int64_t)(x32 / y32)); H((uint64_t)(int64_t)(x32 % y32)); }
        H((uint64_t)(int64_t)(int8_t)a); H((uint64_t)(int64_t)(int16_t)(a >> 5)); H((uint64_t)(int64_t)(int32_t)(a >> 9));
        H((uint32_t)(int32_t)(int8_t)b32 ^ (uint32_t)(int32_t)(int16_t)(b32 >> 3));
        H(a > b); H(sa < (int64_t)b); H((uint64_t)(a32 < b32) + ((int32_t)a32 >= (int32_t)b32));
        uint64_t hi, lo;
        mul128(a, b, &hi, &lo);
        H(hi); H(lo);
    }
    printf("mix hash %016" PRIx64 "\n", h);
    /* primes near 2^62 and a few Fermat-style checks */
    int cnt = 0;
    uint64_t last = 0;
    for (uint64_t n = (1ull << 62) + 1; n < (1ull << 62) + 600; n += 2)
        if (is_prime(n)) { cnt++; last = n; }
    printf("primes %d last %" PRIu64 " 2^61-1 prime %d powmod %" PRIu64 "\n", cnt, last,
           is_prime((1ull << 61) - 1), powmod(3, 1000000007ull, 0xFFFFFFFFFFFFFFC5ull));
    return 0;
}
