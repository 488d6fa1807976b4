/* Matrix kernels: integer and double matmul, LU decomposition with partial
 * pivoting, and a triangular solve; prints checksums. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>

#define N 96

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_u32(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static int32_t ia[N][N], ib[N][N], ic[N][N];
static double a[N][N], b[N][N], c[N][N], lu[N][N];
static int piv[N];

static void imatmul(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int32_t s = 0;
            for (int k = 0; k < N; k++) s += ia[i][k] * ib[k][j];
            ic[i][j] = s;
        }
}

static void dmatmul(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) c[i][j] = 0.0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++) {
            double aik = a[i][k];
            for (int j = 0; j < N; j++) c[i][j] += aik * b[k][j];
        }
}

/* Doolittle LU with partial pivoting, in place on lu. Returns sign of perm. */
static int lu_decompose(void) {
    int sign = 1;
    for (int i = 0; i < N; i++) piv[i] = i;
    for (int k = 0; k < N; k++) {
        int p = k;
        double best = fabs(lu[k][k]);
        for (int i = k + 1; i < N; i++)
            if (fabs(lu[i][k]) > best) { best = fabs(lu[i][k]); p = i; }
        if (p != k) {
            for (int j = 0; j < N; j++) { double t = lu[k][j]; lu[k][j] = lu[p][j]; lu[p][j] = t; }
            int t = piv[k]; piv[k] = piv[p]; piv[p] = t;
            sign = -sign;
        }
        for (int i = k + 1; i < N; i++) {
            double f = lu[i][k] / lu[k][k];
            lu[i][k] = f;
            for (int j = k + 1; j < N; j++) lu[i][j] -= f * lu[k][j];
        }
    }
    return sign;
}

static void lu_solve(const double *rhs, double *x) {
    double y[N];
    for (int i = 0; i < N; i++) {
        double s = rhs[piv[i]];
        for (int j = 0; j < i; j++) s -= lu[i][j] * y[j];
        y[i] = s;
    }
    for (int i = N - 1; i >= 0; i--) {
        double s = y[i];
        for (int j = i + 1; j < N; j++) s -= lu[i][j] * x[j];
        x[i] = s / lu[i][i];
    }
}

int main(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            ia[i][j] = (int32_t)(next_u32() % 2001) - 1000;
            ib[i][j] = (int32_t)(next_u32() % 2001) - 1000;
            a[i][j] = (double)(next_u32() % 100000) / 1000.0 - 50.0;
            b[i][j] = (double)(next_u32() % 100000) / 3000.0;
        }
    uint64_t ih = 1469598103934665603ull;
    for (int rep = 0; rep < 4; rep++) {
        imatmul();
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                ih = (ih ^ (uint32_t)ic[i][j]) * 1099511628211ull;
                ib[i][j] = ic[i][j] >> 12;   /* arithmetic shift of negatives */
            }
    }
    printf("imatmul hash %016llx\n", (unsigned long long)ih);

    dmatmul();
    double tr = 0, sum = 0;
    for (int i = 0; i < N; i++) { tr += c[i][i]; for (int j = 0; j < N; j++) sum += c[i][j]; }
    printf("dmatmul trace %.17g sum %.17g c[3][7] %.17g\n", tr, sum, c[3][7]);

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) lu[i][j] = a[i][j] + (i == j ? 10.0 : 0.0);
    int sign = lu_decompose();
    double logdet = 0;
    int negs = sign < 0;
    for (int i = 0; i < N; i++) {
        double d = lu[i][i];
        if (d < 0) { negs ^= 1; d = -d; }
        logdet += d;               /* sum of |pivots|: exact ops only */
    }
    printf("lu sign %d pivsum %.17g negdet %d piv0 %d pivlast %d\n", sign, logdet, negs, piv[0], piv[N - 1]);

    double rhs[N], x[N];
    for (int i = 0; i < N; i++) rhs[i] = (double)(i % 7) - 3.0;
    lu_solve(rhs, x);
    double r = 0, xs = 0;
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int j = 0; j < N; j++) s += (a[i][j] + (i == j ? 10.0 : 0.0)) * x[j];
        r += fabs(s - rhs[i]);
        xs += x[i];
    }
    printf("solve xsum %.17g resid_small %d x[5] %.17g\n", xs, r < 1e-6, x[5]);
    return 0;
}
