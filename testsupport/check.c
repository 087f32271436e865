/* Poison, comparison, seeded random numbers and check counting (see hcl_testsupport.h). */
#define _POSIX_C_SOURCE 200809L
#include "hcl_testsupport.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- poison ---- */

uint32_t hcl_ts_f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

float hcl_ts_poison(void) {
    uint32_t u = HCL_TS_POISON_BITS;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

bool hcl_ts_is_poison(float x) { return hcl_ts_f32_bits(x) == HCL_TS_POISON_BITS; }

void hcl_ts_poison_fill(float *x, size_t n) {
    float p = hcl_ts_poison();
    for (size_t i = 0; i < n; i++) x[i] = p;
}

size_t hcl_ts_first_unpoisoned(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!hcl_ts_is_poison(x[i])) return i;
    return n;
}

/* ---- comparison ---- */

void hcl_ts_cmp_init(hcl_ts_cmp *c) { memset(c, 0, sizeof *c); }

bool hcl_ts_close(float got, double ref, double tol) {
    double g = got;
    if (hcl_ts_is_poison(got)) return false;
    if (isnan(ref)) return isnan(g);
    if (isnan(g) || isinf(ref)) return g == ref;
    return fabs(g - ref) <= tol;
}

bool hcl_ts_compare(hcl_ts_cmp *c, const float *got, const double *ref, const double *tol, double tol_scale, size_t n) {
    size_t bad_before = c->bad;
    for (size_t i = 0; i < n; i++) {
        double unit = tol ? tol[i] : 1.0, t = tol_scale * unit, g = got[i], r = ref[i];
        bool ok = hcl_ts_close(got[i], r, t);
        double rel = ok ? 0.0 : INFINITY;
        if (isfinite(r) && !isnan(g)) {
            double e = fabs(g - r);
            if (e > c->max_abs) c->max_abs = e;
            rel = e == 0.0 ? 0.0 : e / unit; /* unit 0: +inf */
        }
        if (rel > c->max_rel || isnan(rel)) c->max_rel = isnan(rel) ? INFINITY : rel;
        if (!ok) {
            if (c->listed < HCL_TS_LISTED) c->first[c->listed++] = (hcl_ts_miss){c->count + i, got[i], r, t};
            c->bad++;
        }
    }
    c->count += n;
    return c->bad == bad_before;
}

const char *hcl_ts_cmp_text(const hcl_ts_cmp *c, char *text, size_t size) {
    if (size == 0) return text;
    text[0] = '\0';
    if (c->bad == 0) return text;
    size_t used = (size_t)snprintf(text, size, "%zu of %zu elements wrong:", c->bad, c->count);
    for (size_t i = 0; i < c->listed && used < size; i++) {
        const hcl_ts_miss *f = &c->first[i];
        used += (size_t)snprintf(text + used, size - used, "\n    [%zu] got %.9g (0x%08x%s), expected %.9g within %.3g",
                                 f->index, (double)f->got, hcl_ts_f32_bits(f->got),
                                 hcl_ts_is_poison(f->got) ? ", poison: never written" : "", f->ref, f->tol);
    }
    return text;
}

/* ---- random numbers ---- */

uint64_t hcl_ts_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t hcl_ts_seed(void) {
    const char *env = getenv("HCL_SEED");
    char *end = NULL;
    if (env && *env) {
        uint64_t s = strtoull(env, &end, 0);
        if (*end == '\0') return s;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    return hcl_ts_splitmix64(&s) % 1000000000u;
}

double hcl_ts_rand_unit(uint64_t *state) { return (double)(hcl_ts_splitmix64(state) >> 11) * 0x1.0p-53; }

float hcl_ts_rand_float(uint64_t *state, float lo, float hi) {
    float x = (float)(lo + (hi - lo) * hcl_ts_rand_unit(state));
    return x < hi ? x : lo;
}

int hcl_ts_rand_int(uint64_t *state, int lo, int hi) {
    return lo + (int)(hcl_ts_splitmix64(state) % (uint64_t)(hi - lo + 1));
}

void hcl_ts_fill_uniform(uint64_t *state, float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) x[i] = hcl_ts_rand_float(state, lo, hi);
}

/* ---- checks ---- */

static int g_checks, g_failures;

bool hcl_ts_check_at(bool ok, const char *file, int line, const char *fmt, ...) {
    g_checks++;
    if (ok) return true;
    g_failures++;
    printf("FAIL %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return false;
}

int hcl_ts_checks(void) { return g_checks; }
int hcl_ts_failures(void) { return g_failures; }

void hcl_ts_appendf(char *buf, size_t size, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* ---- files ---- */

void *hcl_ts_read_file(const char *path, size_t *out_size) {
    *out_size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    const long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    unsigned char *data = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc(n > 0 ? (size_t)n : 1) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data) *out_size = (size_t)n;
    return data;
}
