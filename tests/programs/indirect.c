/* Indirect calls: function-pointer tables, a vtable-style object system, a
 * small bytecode VM dispatching through a handler table, callbacks with
 * different signatures, and qsort/bsearch comparators. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

typedef int32_t (*binop)(int32_t, int32_t);
static int32_t op_add(int32_t a, int32_t b) { return a + b; }
static int32_t op_sub(int32_t a, int32_t b) { return a - b; }
static int32_t op_mul(int32_t a, int32_t b) { return a * b; }
static int32_t op_xor(int32_t a, int32_t b) { return a ^ b; }
static int32_t op_shl(int32_t a, int32_t b) { return (int32_t)((uint32_t)a << (b & 31)); }
static int32_t op_div(int32_t a, int32_t b) { return b == 0 || (a == INT32_MIN && b == -1) ? 0 : a / b; }
static int32_t op_rem(int32_t a, int32_t b) { return b == 0 || b == -1 ? 0 : a % b; }
static int32_t op_min(int32_t a, int32_t b) { return a < b ? a : b; }
static const binop ops[8] = {op_add, op_sub, op_mul, op_xor, op_shl, op_div, op_rem, op_min};

/* "objects" with vtables */
typedef struct shape shape;
typedef struct { double (*area)(const shape *); int64_t (*id)(const shape *, int64_t); const char *name; } vtable;
struct shape { const vtable *vt; double a, b; };
static double rect_area(const shape *s) { return s->a * s->b; }
static double tri_area(const shape *s) { return 0.5 * s->a * s->b; }
static double sq_area(const shape *s) { return s->a * s->a; }
static int64_t rect_id(const shape *s, int64_t k) { return k * 3 + (int64_t)s->a; }
static int64_t tri_id(const shape *s, int64_t k) { return k ^ (int64_t)(s->b * 16); }
static const vtable vts[3] = {{rect_area, rect_id, "rect"}, {tri_area, tri_id, "tri"}, {sq_area, rect_id, "square"}};

/* bytecode VM: each instruction is (opcode, operand) */
enum { PUSH, ADD, MUL, DUP, SWAP, JNZ, DEC, POP, HALT, ROT, NOPS };
typedef struct { int32_t stack[64]; int sp, pc; int64_t steps; } vm;
typedef void (*handler)(vm *, int32_t);
static void h_push(vm *m, int32_t x) { m->stack[m->sp++] = x; }
static void h_add(vm *m, int32_t x) { m->sp--; m->stack[m->sp - 1] += m->stack[m->sp]; }
static void h_mul(vm *m, int32_t x) { m->sp--; m->stack[m->sp - 1] *= m->stack[m->sp]; }
static void h_dup(vm *m, int32_t x) { m->stack[m->sp] = m->stack[m->sp - 1]; m->sp++; }
static void h_swap(vm *m, int32_t x) { int32_t t = m->stack[m->sp - 1]; m->stack[m->sp - 1] = m->stack[m->sp - 2]; m->stack[m->sp - 2] = t; }
static void h_jnz(vm *m, int32_t x) { if (m->stack[--m->sp]) m->pc = x - 1; }
static void h_dec(vm *m, int32_t x) { m->stack[m->sp - 1] -= 1; }
static void h_pop(vm *m, int32_t x) { m->sp--; }
static void h_halt(vm *m, int32_t x) { m->pc = -2; }
static void h_rot(vm *m, int32_t x) {
    int32_t a = m->stack[m->sp - 3];
    m->stack[m->sp - 3] = m->stack[m->sp - 2]; m->stack[m->sp - 2] = m->stack[m->sp - 1]; m->stack[m->sp - 1] = a;
}
static const handler handlers[NOPS] = {h_push, h_add, h_mul, h_dup, h_swap, h_jnz, h_dec, h_pop, h_halt, h_rot};

static int32_t run(const int32_t (*code)[2]) {
    vm m = {.sp = 0, .pc = 0, .steps = 0};
    while (m.pc >= 0) {
        handlers[code[m.pc][0]](&m, code[m.pc][1]);
        m.pc++;
        m.steps++;
    }
    return m.stack[m.sp - 1] ^ (int32_t)(m.steps << 16);
}

static int cmp_u16(const void *a, const void *b) { return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b; }

static void apply(void (*cb)(void *, int), void *ctx, int n) { for (int i = 0; i < n; i++) cb(ctx, i); }
static void cb_sum(void *ctx, int i) { *(int64_t *)ctx += i * (int64_t)i; }
static void cb_hash(void *ctx, int i) { *(uint32_t *)ctx = *(uint32_t *)ctx * 31 + (uint32_t)i; }

int main(void) {
    uint32_t seed = 7;
    int32_t acc = 1;
    uint32_t h = 0;
    for (int i = 0; i < 600000; i++) {
        seed = seed * 1664525u + 1013904223u;
        int32_t v = (int32_t)(seed >> 3) - (1 << 27);
        acc = ops[(seed >> 28) & 7](acc, v);
        h = h * 16777619u ^ (uint32_t)acc;
    }
    printf("ops acc %d hash %08x\n", acc, h);

    shape sh[300];
    for (int i = 0; i < 300; i++) { sh[i].vt = &vts[i % 3]; sh[i].a = 1 + i % 17; sh[i].b = 0.25 * (i % 11); }
    double area = 0; int64_t ids = 0;
    for (int r = 0; r < 200; r++)
        for (int i = 0; i < 300; i++) { area += sh[i].vt->area(&sh[i]); ids = sh[i].vt->id(&sh[i], ids) & 0xFFFFFFFFFFFFll; }
    printf("shapes area %.17g ids %lld %s\n", area, (long long)ids, sh[299].vt->name);

    /* sum of i*i for i = 30000..1 (mod 2^32); stack holds [acc n] */
    static const int32_t loop[][2] = {
        {PUSH, 0}, {PUSH, 30000},              /* 0,1: acc n */
        {DUP, 0}, {DUP, 0}, {MUL, 0},          /* 2..4: acc n n*n */
        {ROT, 0}, {ADD, 0},                    /* 5,6: n acc+n*n */
        {SWAP, 0}, {DEC, 0},                   /* 7,8: acc n-1 */
        {DUP, 0}, {JNZ, 2},                    /* 9,10: loop while n-1 != 0 */
        {POP, 0}, {HALT, 0},                   /* 11,12 */
    };
    printf("vm %d\n", run(loop));

    uint16_t keys[4096];
    for (int i = 0; i < 4096; i++) { seed = seed * 1664525u + 1013904223u; keys[i] = (uint16_t)(seed >> 16); }
    qsort(keys, 4096, sizeof keys[0], cmp_u16);
    int found = 0;
    for (uint32_t k = 0; k < 65536; k += 3) found += bsearch(&(uint16_t){(uint16_t)k}, keys, 4096, 2, cmp_u16) != NULL;
    printf("bsearch found %d min %u max %u\n", found, keys[0], keys[4095]);

    int64_t s = 0; uint32_t hh = 5381;
    void (*cbs[2])(void *, int) = {cb_sum, cb_hash};
    apply(cbs[0], &s, 10000);
    apply(cbs[1], &hh, 10000);
    printf("callbacks %lld %08x\n", (long long)s, hh);
    return 0;
}
