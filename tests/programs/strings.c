/* String processing with libc: snprintf/strtol/strtoull/strtod round trips,
 * strcmp/strncmp/strstr/strchr/strrchr/strspn/strcspn, a tokenizer and a
 * word-frequency hash table with chaining, plus toupper/tolower. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

static const char *words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
                              "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi"};

typedef struct entry { char *key; int count; struct entry *next; } entry;
#define NB 257
static entry *table[NB];

static uint32_t hstr(const char *s) { uint32_t h = 5381; while (*s) h = h * 33 + (uint8_t)*s++; return h; }
static void add(const char *w) {
    uint32_t b = hstr(w) % NB;
    for (entry *e = table[b]; e; e = e->next) if (strcmp(e->key, w) == 0) { e->count++; return; }
    entry *e = malloc(sizeof *e);
    e->key = strdup(w); e->count = 1; e->next = table[b]; table[b] = e;
}

int main(void) {
    /* build a text of ~200 KB */
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    uint32_t seed = 99;
    while (len + 64 < cap) {
        seed = seed * 1103515245u + 12345u;
        const char *w = words[(seed >> 16) % 16];
        int n = (seed >> 8) % 4 == 0 ? snprintf(text + len, 64, "%s%u, ", w, (seed >> 20) % 10)
                                     : snprintf(text + len, 64, "%s ", w);
        len += (size_t)n;
    }
    text[len] = 0;
    printf("text len %zu strlen %zu\n", len, strlen(text));
    /* tokenize and count */
    char *copy = strdup(text);
    int ntok = 0;
    for (char *tok = strtok(copy, " ,"); tok; tok = strtok(NULL, " ,")) { add(tok); ntok++; }
    int distinct = 0, maxc = 0; const char *maxw = "";
    for (int b = 0; b < NB; b++)
        for (entry *e = table[b]; e; e = e->next) {
            distinct++;
            if (e->count > maxc || (e->count == maxc && strcmp(e->key, maxw) < 0)) { maxc = e->count; maxw = e->key; }
        }
    printf("tokens %d distinct %d most %s x%d\n", ntok, distinct, maxw, maxc);
    /* searching */
    const char *p = strstr(text, "omicron7");
    printf("strstr %ld strchr %ld strrchr %ld spn %zu cspn %zu\n", p ? (long)(p - text) : -1L,
           (long)(strchr(text, 'x') - text), (long)(strrchr(text, 'k') - text), strspn(text, "abcdefghijklmnopqrstuvwxyz"),
           strcspn(text, ","));
    /* number formatting round trips */
    uint64_t acc = 0;
    char buf[64];
    for (int i = 0; i < 4000; i++) {
        seed = seed * 1103515245u + 12345u;
        long v = (long)(int32_t)(seed * 2654435761u);
        snprintf(buf, sizeof buf, "%ld", v);
        acc += (uint64_t)(strtol(buf, NULL, 10) == v);
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(uint32_t)v);
        acc = acc * 3 + strtoul(buf, NULL, 16);
        unsigned long long u = (unsigned long long)seed * seed * 977;
        snprintf(buf, sizeof buf, "%llu|%o|%X", u, (unsigned)(seed & 0777777), (unsigned)seed);
        acc ^= strtoull(buf, NULL, 10) + strlen(buf);
        snprintf(buf, sizeof buf, "%.6f", (double)(int32_t)seed / 1024.0);
        acc += (uint64_t)(int64_t)(strtod(buf, NULL) * 1024.0);
    }
    printf("numbers acc %016llx last '%s'\n", (unsigned long long)acc, buf);
    printf("fmt [%5d] [%-6s] [%+.3e] [%08.3f] [%x] [%c] [%%] [%.3s]\n", 42, "ab", 12345.678, -3.14159, 255u, 'Z', "truncate");
    /* case conversion and comparisons */
    int up = 0;
    for (size_t i = 0; i < len; i++) { text[i] = (char)(i % 3 ? toupper((unsigned char)text[i]) : text[i]); up += isupper((unsigned char)text[i]) != 0; }
    printf("upper %d cmp %d %d %d\n", up, strcmp("abc", "abd") < 0, strncmp("hello", "help", 3) == 0,
           strcmp(text, copy) != 0);
    free(text); free(copy);
    return 0;
}
