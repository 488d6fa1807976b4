/* Floating point: mandelbrot, n-body, float (f32) and double arithmetic,
 * exact IEEE operations (sqrt, floor, ceil, trunc, rint, fmod, fabs,
 * copysign, min/max) printed with %.17g, and libm transcendental functions
 * printed rounded to 10 significant digits (libms may differ in the last ulp). */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

static int mandel(double cx, double cy, int maxit) {
    double x = 0, y = 0;
    int i = 0;
    while (i < maxit && x * x + y * y <= 4.0) {
        double t = x * x - y * y + cx;
        y = 2 * x * y + cy;
        x = t;
        i++;
    }
    return i;
}

typedef struct { double x, y, z, vx, vy, vz, m; } body;
#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DPY 365.24
static body bodies[5] = {
    {0, 0, 0, 0, 0, 0, SOLAR_MASS},
    {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01, 1.66007664274403694e-03 * DPY,
     7.69901118419740425e-03 * DPY, -6.90460016972063023e-05 * DPY, 9.54791938424326609e-04 * SOLAR_MASS},
    {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01, -2.76742510726862411e-03 * DPY,
     4.99852801234917238e-03 * DPY, 2.30417297573763929e-05 * DPY, 2.85885980666130812e-04 * SOLAR_MASS},
    {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01, 2.96460137564761618e-03 * DPY,
     2.37847173959480950e-03 * DPY, -2.96589568540237556e-05 * DPY, 4.36624404335156298e-05 * SOLAR_MASS},
    {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01, 2.68067772490389322e-03 * DPY,
     1.62824170038242295e-03 * DPY, -9.51592254519715870e-05 * DPY, 5.15138902046611451e-05 * SOLAR_MASS}};

static double energy(void) {
    double e = 0;
    for (int i = 0; i < 5; i++) {
        body *b = &bodies[i];
        e += 0.5 * b->m * (b->vx * b->vx + b->vy * b->vy + b->vz * b->vz);
        for (int j = i + 1; j < 5; j++) {
            double dx = b->x - bodies[j].x, dy = b->y - bodies[j].y, dz = b->z - bodies[j].z;
            e -= b->m * bodies[j].m / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

static void advance(double dt) {
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) {
            double dx = bodies[i].x - bodies[j].x, dy = bodies[i].y - bodies[j].y, dz = bodies[i].z - bodies[j].z;
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            bodies[i].vx -= dx * bodies[j].m * mag; bodies[i].vy -= dy * bodies[j].m * mag; bodies[i].vz -= dz * bodies[j].m * mag;
            bodies[j].vx += dx * bodies[i].m * mag; bodies[j].vy += dy * bodies[i].m * mag; bodies[j].vz += dz * bodies[i].m * mag;
        }
    for (int i = 0; i < 5; i++) {
        bodies[i].x += dt * bodies[i].vx; bodies[i].y += dt * bodies[i].vy; bodies[i].z += dt * bodies[i].vz;
    }
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

int main(void) {
    long total = 0;
    uint32_t h = 0;
    for (int py = 0; py < 60; py++)
        for (int px = 0; px < 80; px++) {
            int it = mandel(-2.2 + px * 3.0 / 80, -1.2 + py * 2.4 / 60, 200);
            total += it;
            h = h * 33 + it;
        }
    printf("mandelbrot total %ld hash %08x\n", total, h);

    double px = 0, py = 0, pz = 0;
    for (int i = 0; i < 5; i++) { px += bodies[i].vx * bodies[i].m; py += bodies[i].vy * bodies[i].m; pz += bodies[i].vz * bodies[i].m; }
    bodies[0].vx = -px / SOLAR_MASS; bodies[0].vy = -py / SOLAR_MASS; bodies[0].vz = -pz / SOLAR_MASS;
    printf("nbody e0 %.17g\n", energy());
    for (int i = 0; i < 50000; i++) advance(0.01);
    printf("nbody e1 %.17g x1 %.17g\n", energy(), bodies[1].x);

    /* f32 arithmetic: accumulate in float, check bit patterns */
    float fs = 0.0f, fp = 1.0f;
    for (int i = 1; i <= 20000; i++) {
        fs += 1.0f / (float)i;
        fp = fp * 1.0001f + (float)(i % 3) * 0.5f;
        if (fp > 1e6f) fp = sqrtf(fp);
    }
    printf("f32 sum %.9g (%08x) prod %.9g (%08x)\n", fs, fbits(fs), fp, fbits(fp));

    /* exact IEEE operations */
    double vals[] = {2.5, -2.5, 3.5, -0.0, 1e300, 0.1, -7.75, 123456789.123, 1.0 / 3.0, 4503599627370497.0};
    uint64_t acc = 0;
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        double v = vals[i];
        printf("v=%.17g sqrt|v|=%.17g floor=%.17g ceil=%.17g trunc=%.17g rint=%.17g fmod7=%.17g\n", v,
               sqrt(fabs(v)), floor(v), ceil(v), trunc(v), rint(v), fmod(v, 7.0));
        acc = acc * 31 + dbits(copysign(v, -1.0)) + dbits(fmin(v, 0.5)) + dbits(fmax(v, 0.5)) + dbits(v * v) +
              dbits(v / 3.0) + fbits((float)v) + (uint64_t)(int64_t)(v < 1e18 && v > -1e18 ? (int64_t)v : 0);
    }
    printf("exact acc %016llx\n", (unsigned long long)acc);
    float fv = 16777217.0f;   /* rounding of int->float */
    printf("conv %.9g %.9g %d %u %lld\n", fv, (float)16777219, (int)-3.99, (unsigned)3.99e9,
           (long long)-9.2e18);
    printf("inf %d %d nan %d %d\n", isinf(1e308 * 10) != 0, isinf(-1.0 / 0.0 * 0.5) != 0, isnan(sqrt(-1.0)) != 0,
           isnan(0.0 / 0.0) && !(0.0 / 0.0 == 0.0 / 0.0));

    /* transcendental: rounded */
    double s = 0;
    for (int i = 0; i < 2000; i++) {
        double x = i * 0.0137 - 5.0;
        s += sin(x) + cos(x) * 0.5 + exp(x / 4) + log(i + 1.0) + atan(x) + pow(1.001, i) + tanh(x);
    }
    printf("libm sum %.10g sin1 %.10g exp1 %.10g log10 %.10g atan2 %.10g cbrt %.10g\n", s, sin(1.0), exp(1.0),
           log10(12345.0), atan2(1.0, -2.0), cbrt(-27.5));
    return 0;
}
