/* Every built-in op (hcl_kop) run through the public API, for the driver flow tests under drivers/ (see
 * test_builtins.h). Shapes cover each op's launch shapes on the common devices (vecadd below and above a group,
 * gemm in every transpose and the C = beta * C rules, softmax from a few columns to rows beyond a group's local
 * memory, reduce in one and two launches and of nothing); with `check` every result is compared with a float64
 * reference and the conformance suite's tolerances. */
#define _POSIX_C_SOURCE 200809L
#include "test_builtins.h"

#include "hcl_plan.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
    hcl_device dev;
    hcl_queue q;
    int check;
    hcl_test_report_fn report;
    void *ctx;
    int failures;
    unsigned seed;
} run;

static void step(run *r, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void step(run *r, int ok, const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!ok) r->failures++;
    if (r->report) r->report(r->ctx, ok, what);
}

/* A call's status: a step of its own (named by `what`) only when it failed; returns whether it succeeded. */
static int ok_call(run *r, hcl_status st, const char *what) {
    if (st != HCL_SUCCESS) step(r, 0, "%s: %s: %s", what, hcl_status_name(st), hcl_last_message());
    return st == HCL_SUCCESS;
}

static float frand(run *r) { /* uniform in [-0.5, 0.5) */
    r->seed = r->seed * 1664525u + 1013904223u;
    return (float)(r->seed >> 8) / 16777216.0f - 0.5f;
}

/* A buffer of `bytes` (at least 4: an operand the call does not read may hold nothing), written from `init`. */
static hcl_buffer make(run *r, size_t bytes, const void *init) {
    hcl_buffer b = NULL;
    if (!ok_call(r, hcl_buffer_create(r->dev, bytes ? bytes : 4, 0, &b), "hcl_buffer_create")) return NULL;
    if (init && bytes && !ok_call(r, hcl_buffer_write(r->q, b, 0, bytes, init), "hcl_buffer_write")) {
        hcl_buffer_release(b);
        return NULL;
    }
    return b;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

/* The call's event, waited for and released. */
static void take_event(run *r, hcl_event ev, const char *what) {
    if (!ev) return;
    ok_call(r, hcl_event_wait(ev), what);
    hcl_event_release(ev);
}

/* ---- vecadd ---- */
static void vecadd(run *r) {
    static const size_t sizes[] = {1001, 7, 65539};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        float *x = xcalloc(n, 4), *y = xcalloc(n, 4), *z = xcalloc(n, 4);
        for (size_t i = 0; i < n; i++) x[i] = frand(r), y[i] = frand(r);
        hcl_buffer bx = make(r, n * 4, x), by = make(r, n * 4, y), bz = make(r, n * 4, NULL);
        char what[96];
        snprintf(what, sizeof what, "vecadd n=%zu%s", n, s == 0 ? " with event" : "");
        hcl_event ev = NULL;
        int ok = bx && by && bz && ok_call(r, hcl_vecadd_f32(r->q, n, bx, by, bz, s == 0 ? &ev : NULL), what);
        take_event(r, ev, what);
        if (ok && ok_call(r, hcl_buffer_read(r->q, bz, 0, n * 4, z), "hcl_buffer_read")) {
            size_t bad = 0;
            for (size_t i = 0; r->check && i < n; i++) bad += z[i] != x[i] + y[i];
            step(r, bad == 0, "%s%s: %zu wrong", what, r->check ? "" : " (not checked)", bad);
        }
        if (bx) hcl_buffer_release(bx);
        if (by) hcl_buffer_release(by);
        if (bz) hcl_buffer_release(bz);
        free(x), free(y), free(z);
    }
}

/* ---- gemm (conformance/test_gemm.c's tolerance) ---- */
static void gemm_one(run *r, int ta, int tb, size_t m, size_t n, size_t k, float alpha, float beta, int c_nan,
                     int with_event) {
    size_t lda = ta ? m : k, ldb = tb ? k : n, ldc = n;
    if (!lda) lda = 1;
    if (!ldb) ldb = 1;
    size_t len_a = (ta ? k : m) * lda, len_b = (tb ? n : k) * ldb, len_c = m * ldc;
    float *a = xcalloc(len_a, 4), *b = xcalloc(len_b, 4), *c = xcalloc(len_c, 4), *got = xcalloc(len_c, 4);
    for (size_t i = 0; i < len_a; i++) a[i] = frand(r);
    for (size_t i = 0; i < len_b; i++) b[i] = frand(r);
    for (size_t i = 0; i < len_c; i++) c[i] = c_nan ? NAN : frand(r);
    hcl_buffer ba = make(r, len_a * 4, a), bb = make(r, len_b * 4, b), bc = make(r, len_c * 4, c);
    char what[160];
    snprintf(what, sizeof what, "gemm %c%c %zux%zux%zu alpha=%g beta=%g%s%s", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k,
             alpha, beta, c_nan ? " over a NaN C" : "", with_event ? " with event" : "");
    hcl_event ev = NULL;
    int ok = ba && bb && bc &&
             ok_call(r,
                     hcl_gemm_f32(r->q, ta ? HCL_TRANS : HCL_NO_TRANS, tb ? HCL_TRANS : HCL_NO_TRANS, m, n, k, alpha,
                                  ba, lda, bb, ldb, beta, bc, ldc, with_event ? &ev : NULL),
                     what);
    take_event(r, ev, what);
    if (ok && ok_call(r, hcl_buffer_read(r->q, bc, 0, len_c * 4, got), "hcl_buffer_read")) {
        size_t bad = 0;
        for (size_t i = 0; r->check && i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double sum = 0.0, bound = 0.0;
                if (alpha != 0.0f)
                    for (size_t p = 0; p < k; p++) {
                        double av = ta ? a[p * lda + i] : a[i * lda + p], bv = tb ? b[j * ldb + p] : b[p * ldb + j];
                        sum += av * bv;
                        bound += fabs(av * bv);
                    }
                double cterm = beta != 0.0f ? (double)beta * c[i * ldc + j] : 0.0;
                double ref = (double)alpha * sum + cterm;
                double tol = (double)(k + 3) * FLT_EPSILON * (fabs(alpha) * bound + fabs(cterm)) + FLT_MIN;
                double g = got[i * ldc + j];
                bad += !(fabs(g - ref) <= tol);
            }
        step(r, bad == 0, "%s%s: %zu wrong", what, r->check ? "" : " (not checked)", bad);
    }
    if (ba) hcl_buffer_release(ba);
    if (bb) hcl_buffer_release(bb);
    if (bc) hcl_buffer_release(bc);
    free(a), free(b), free(c), free(got);
}

static void gemm(run *r) {
    for (int t = 0; t < 4; t++) gemm_one(r, t & 1, t >> 1, 33, 17, 9, 1.5f, 0.5f, 0, 1);
    gemm_one(r, 0, 0, 130, 200, 70, 1.0f, 0.0f, 1, 0); /* beta 0: C is not read */
    gemm_one(r, 0, 1, 9, 10, 11, 0.0f, 0.5f, 0, 0);    /* alpha 0: C = beta C */
    gemm_one(r, 1, 0, 5, 5, 0, 1.0f, 0.0f, 1, 0);      /* k 0, beta 0 over NaN: zeros */
    /* few rows, and few columns (swapped operands): a GPU's few-rows kernels over slices of k, then the sum kernel */
    for (int t = 0; t < 4; t++) gemm_one(r, t & 1, t >> 1, 3, 150, 200, 1.25f, 0.5f, 0, 0);
    gemm_one(r, 1, 0, 300, 2, 130, 1.0f, 0.0f, 1, 0);
}

/* ---- softmax (conformance/test_softmax.c's tolerance) ---- */
static void softmax(run *r) {
    static const size_t widths[] = {5, 100, 1000, 1500, 2048, 3000, 20000};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        size_t cols = widths[w], rows = 3, n = rows * cols;
        int in_place = w % 2 == 0;
        float *x = xcalloc(n, 4), *y = xcalloc(n, 4);
        for (size_t i = 0; i < n; i++) x[i] = 8.0f * frand(r);
        for (size_t j = 0; j < cols; j += 3) x[cols + j] = -INFINITY; /* a row with -inf entries */
        hcl_buffer bi = make(r, n * 4, x), bo = in_place ? bi : make(r, n * 4, NULL);
        char what[96];
        snprintf(what, sizeof what, "softmax %zu x %zu%s%s", rows, cols, in_place ? ", in place" : "",
                 w == 0 ? ", with event" : "");
        hcl_event ev = NULL;
        int ok = bi && bo && ok_call(r, hcl_softmax_f32(r->q, rows, cols, bi, bo, w == 0 ? &ev : NULL), what);
        take_event(r, ev, what);
        if (ok && ok_call(r, hcl_buffer_read(r->q, bo, 0, n * 4, y), "hcl_buffer_read")) {
            size_t bad = 0;
            double rtol = 1e-5 * fmax(1.0, sqrt((double)cols / 256.0));
            for (size_t row = 0; r->check && row < rows; row++) {
                const float *xr = x + row * cols;
                double mx = -INFINITY, sum = 0.0;
                for (size_t j = 0; j < cols; j++) mx = fmax(mx, (double)xr[j]);
                for (size_t j = 0; j < cols; j++) sum += exp((double)xr[j] - mx);
                for (size_t j = 0; j < cols; j++) {
                    double ref = exp((double)xr[j] - mx) / sum, g = y[row * cols + j];
                    double tol = xr[j] == -INFINITY ? 0.0 : rtol * ref + 4.0 * FLT_MIN;
                    bad += !(fabs(g - ref) <= tol);
                }
            }
            step(r, bad == 0, "%s%s: %zu wrong", what, r->check ? "" : " (not checked)", bad);
        }
        if (bi) hcl_buffer_release(bi);
        if (bo && bo != bi) hcl_buffer_release(bo);
        free(x), free(y);
    }
}

/* ---- reduce (conformance/test_reduce.c's tolerance) ---- */
static void reduce(run *r) {
    static const char *const names[] = {"sum", "max", "min"};
    static const hcl_reduce_op ops[] = {HCL_REDUCE_SUM, HCL_REDUCE_MAX, HCL_REDUCE_MIN};
    static const size_t sizes[] = {3, 1001, 4096, 100003, 0};
    for (int o = 0; o < 3; o++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            float *x = xcalloc(n, 4), got = NAN;
            for (size_t i = 0; i < n; i++) x[i] = frand(r);
            hcl_buffer bi = make(r, n * 4, x), bo = make(r, 4, NULL);
            char what[96];
            snprintf(what, sizeof what, "reduce %s n=%zu%s", names[o], n, s == 1 ? " with event" : "");
            hcl_event ev = NULL;
            int ok = bi && bo && ok_call(r, hcl_reduce_f32(r->q, ops[o], n, bi, bo, s == 1 ? &ev : NULL), what);
            take_event(r, ev, what);
            if (ok && ok_call(r, hcl_buffer_read(r->q, bo, 0, 4, &got), "hcl_buffer_read")) {
                double ref = ops[o] == HCL_REDUCE_SUM ? 0.0 : ops[o] == HCL_REDUCE_MAX ? -INFINITY : INFINITY;
                double abs_sum = 0.0, tol = 0.0;
                for (size_t i = 0; i < n; i++) {
                    ref = ops[o] == HCL_REDUCE_SUM   ? ref + x[i]
                          : ops[o] == HCL_REDUCE_MAX ? fmax(ref, x[i])
                                                     : fmin(ref, x[i]);
                    abs_sum += fabs((double)x[i]);
                }
                if (ops[o] == HCL_REDUCE_SUM && n > 1)
                    tol = 4.0 * (sqrt((double)n) + log2((double)n) + 1.0) * 0x1.0p-24 * abs_sum;
                int good = !r->check || (isinf(ref) ? got == ref : fabs((double)got - ref) <= tol);
                step(r, good, "%s%s: got %g, expected %g", what, r->check ? "" : " (not checked)", (double)got, ref);
            }
            if (bi) hcl_buffer_release(bi);
            if (bo) hcl_buffer_release(bo);
            free(x);
        }
}

int hcl_test_builtin_calls(hcl_device dev, hcl_queue q, int check, hcl_test_report_fn report, void *ctx) {
    run r = {dev, q, check, report, ctx, 0, 12345u};
    for (int op = 0; op < HCL_KOP_COUNT; op++) {
        switch ((hcl_kop)op) {
        case HCL_KOP_VECADD: vecadd(&r); break;
        case HCL_KOP_GEMM: gemm(&r); break;
        case HCL_KOP_SOFTMAX: softmax(&r); break;
        case HCL_KOP_REDUCE: reduce(&r); break;
        default: step(&r, 0, "built-in op %d has no calls in kernels/test_builtin_calls.c", op); break;
        }
    }
    ok_call(&r, hcl_queue_finish(q), "hcl_queue_finish");
    return r.failures;
}
