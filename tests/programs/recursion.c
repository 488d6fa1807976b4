/* Recursion: Ackermann, naive Fibonacci, Takeuchi, n-queens (bitmask
 * backtracking), mutual recursion and a deep (but bounded) recursion. */
#include <stdio.h>
#include <stdint.h>

static int ack(int m, int n) {
    if (m == 0) return n + 1;
    if (n == 0) return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int tak(int x, int y, int z) {
    if (y >= x) return z;
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}

static int queens(int n, uint32_t cols, uint32_t d1, uint32_t d2) {
    uint32_t all = (1u << n) - 1;
    if (cols == all) return 1;
    int count = 0;
    uint32_t avail = all & ~(cols | d1 | d2);
    while (avail) {
        uint32_t bit = avail & -avail;
        avail ^= bit;
        count += queens(n, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
    }
    return count;
}

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

/* deep recursion with a frame that holds an array (stack traffic) */
static uint64_t deep(int n, uint64_t acc) {
    volatile uint32_t buf[8];
    for (int i = 0; i < 8; i++) buf[i] = (uint32_t)(acc >> i) + n;
    if (n == 0) return acc;
    uint64_t r = deep(n - 1, acc * 6364136223846793005ull + buf[n & 7]);
    return r ^ buf[(n + 3) & 7];
}

static int64_t sum_digits_rec(int64_t v) { return v < 10 ? v : v % 10 + sum_digits_rec(v / 10); }

int main(void) {
    printf("ack(2,300) = %d\n", ack(2, 300));
    printf("ack(3,5) = %d\n", ack(3, 5));
    printf("fib(25) = %u\n", fib(25));
    printf("tak(18,12,6) = %d\n", tak(18, 12, 6));
    for (int n = 4; n <= 9; n++) printf("queens(%d) = %d\n", n, queens(n, 0, 0, 0));
    printf("is_even(5001) = %d\n", is_even(5001));
    printf("deep(5000) = %016llx\n", (unsigned long long)deep(5000, 1));
    int64_t s = 0;
    for (int64_t v = 1; v < 200000; v += 7) s += sum_digits_rec(v * 1000003);
    printf("digits = %lld\n", (long long)s);
    return 0;
}
