/* bench: run HCL's four built-in kernels on one device and report time, rate and whether the result is right.
 *
 * The device comes from the environment (HCL_BACKEND, HCL_DEVICE) through hcl_device_open(NULL), or from
 * --device. Each kernel gets fresh random inputs (the seed is printed), its output is poisoned with NaN before
 * every run, warm-up runs are discarded, and the timed runs are measured with the device events the calls
 * return. The last run's output is checked against a float64 reference computed here on the host.
 *
 * Rates count bytes as BabelStream does (vecadd: 3 arrays, softmax: read + write, reduce: the input read once)
 * and GEMM as 2*m*n*k floating-point operations.
 */
#define _POSIX_C_SOURCE 200809L

#include <hcl/hcl.h>

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPEATS 1000

enum { K_VECADD = 1, K_GEMM = 2, K_SOFTMAX = 4, K_REDUCE = 8, K_ALL = 15 };

typedef struct options {
    const char *selector; /* NULL: the environment */
    uint64_t seed;
    int repeats, warmup, verify;
    unsigned kernels;
    double scale;
    size_t vec_n, gemm_m, gemm_n, gemm_k, sm_rows, sm_cols, red_n; /* 0: the default for the device type */
} options;

/* One row of the table. */
typedef struct result {
    char shape[64];
    double first_s;             /* wall time of the first call, event wait included (any kernel build too) */
    double med_s, min_s, max_s; /* device time of the timed runs */
    double work;                /* bytes (GB/s) or flops (GFLOP/s) per run */
    int is_flops;
    int ran;           /* timed runs completed */
    int checked;       /* 1 when the output was compared with the reference */
    int failed;        /* 1 when it was and it did not match, or an HCL call failed */
    double err, tol;   /* largest error seen and the tolerance, in the kernel's own measure */
    char check[96];    /* what was checked: "full", "16 rows + 16 cols", ... */
} result;

typedef struct bench {
    hcl_device device;
    hcl_queue queue;
    const options *opt;
    uint64_t rng;
} bench;

/* ----------------------------------------------------------------------------------------------------- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform floats in [lo, hi), 24 random bits each. */
static void fill_random(uint64_t *rng, float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) {
        float u = (float)(splitmix64(rng) >> 40) * (1.0f / 16777216.0f);
        x[i] = lo + (hi - lo) * u;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Report a failed HCL call and mark the row failed. Returns 1 so callers can write `return call_failed(...)`. */
static int call_failed(result *r, const char *what, hcl_status st) {
    printf("  error: %s: %s: %s\n", what, hcl_status_name(st), hcl_last_message());
    r->failed = 1;
    return 1;
}

static void *xmalloc(size_t n, result *r) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("  error: out of host memory (%zu bytes)\n", n);
        r->failed = 1;
    }
    return p;
}

static int make_buffer(bench *b, size_t bytes, const float *init, hcl_buffer *out, result *r) {
    hcl_status st = hcl_buffer_create(b->device, bytes, 0, out);
    if (st != HCL_SUCCESS) {
        *out = NULL;
        return call_failed(r, "hcl_buffer_create", st);
    }
    if (init) {
        st = hcl_buffer_write(b->queue, *out, 0, bytes, init);
        if (st != HCL_SUCCESS)
            return call_failed(r, "hcl_buffer_write", st);
    }
    return 0;
}

static void release_buffers(hcl_buffer *bufs, int n) {
    for (int i = 0; i < n; i++)
        if (bufs[i])
            hcl_buffer_release(bufs[i]);
}

/* The submit half of one kernel: enqueue one run and return its event. */
typedef hcl_status (*submit_fn)(bench *b, void *arg, hcl_event *out_event);

/* Poison `poison` with NaN, then run warm-up + timed runs of `submit`; record times in r. */
static int run_timed(bench *b, submit_fn submit, void *arg, hcl_buffer poison, size_t poison_bytes, result *r) {
    const float nan_pattern = NAN;
    double times[MAX_REPEATS];
    int total = b->opt->warmup + b->opt->repeats;
    r->ran = 0;
    for (int it = 0; it < total; it++) {
        hcl_status st = hcl_buffer_fill(b->queue, poison, 0, poison_bytes, &nan_pattern, sizeof nan_pattern);
        if (st != HCL_SUCCESS)
            return call_failed(r, "hcl_buffer_fill (poison)", st);
        hcl_event ev = NULL;
        double t0 = now_s();
        st = submit(b, arg, &ev);
        if (st != HCL_SUCCESS)
            return call_failed(r, "kernel call", st);
        if (!ev) {
            printf("  error: the kernel call returned no event\n");
            r->failed = 1;
            return 1;
        }
        st = hcl_event_wait(ev);
        double t1 = now_s();
        double s = 0.0;
        if (st == HCL_SUCCESS)
            st = hcl_event_elapsed(ev, ev, &s);
        hcl_event_release(ev);
        if (st != HCL_SUCCESS)
            return call_failed(r, "hcl_event_wait/hcl_event_elapsed", st);
        if (it == 0)
            r->first_s = t1 - t0;
        if (it >= b->opt->warmup)
            times[r->ran++] = s;
    }
    qsort(times, (size_t)r->ran, sizeof times[0], cmp_double);
    r->min_s = times[0];
    r->max_s = times[r->ran - 1];
    r->med_s = r->ran % 2 ? times[r->ran / 2] : 0.5 * (times[r->ran / 2 - 1] + times[r->ran / 2]);
    return 0;
}

/* Track the largest error; NaN (an unwritten, still poisoned element) counts as infinite. */
static void note_error(result *r, double err) {
    if (isnan(err))
        err = INFINITY;
    if (err > r->err)
        r->err = err;
}

/* ----------------------------------------------------------------------------------------------------- */
/* vecadd: c = a + b. Error: |c - ref| / |ref| (one rounding: at most 2^-24). */

typedef struct vecadd_arg {
    size_t n;
    hcl_buffer a, b, c;
} vecadd_arg;

static hcl_status vecadd_submit(bench *b, void *p, hcl_event *ev) {
    vecadd_arg *v = p;
    return hcl_vecadd_f32(b->queue, v->n, v->a, v->b, v->c, ev);
}

static void bench_vecadd(bench *b, size_t n, result *r) {
    snprintf(r->shape, sizeof r->shape, "n=%zu", n);
    r->work = 3.0 * 4.0 * (double)n;
    size_t bytes = n * sizeof(float);
    float *a = xmalloc(bytes, r), *bb = xmalloc(bytes, r), *c = xmalloc(bytes, r);
    hcl_buffer bufs[3] = {NULL, NULL, NULL};
    vecadd_arg arg = {n, NULL, NULL, NULL};
    if (!a || !bb || !c)
        goto cleanup;
    fill_random(&b->rng, a, n, -1.0f, 1.0f);
    fill_random(&b->rng, bb, n, -1.0f, 1.0f);
    if (make_buffer(b, bytes, a, &bufs[0], r) || make_buffer(b, bytes, bb, &bufs[1], r) ||
        make_buffer(b, bytes, NULL, &bufs[2], r))
        goto cleanup;
    arg.a = bufs[0], arg.b = bufs[1], arg.c = bufs[2];
    if (run_timed(b, vecadd_submit, &arg, bufs[2], bytes, r))
        goto cleanup;
    if (!b->opt->verify)
        goto cleanup;
    hcl_status st = hcl_buffer_read(b->queue, bufs[2], 0, bytes, c);
    if (st != HCL_SUCCESS) {
        call_failed(r, "hcl_buffer_read", st);
        goto cleanup;
    }
    r->tol = ldexp(1.0, -23);
    for (size_t i = 0; i < n; i++) {
        double ref = (double)a[i] + (double)bb[i];
        note_error(r, fabs((double)c[i] - ref) / fmax(fabs(ref), (double)FLT_MIN));
    }
    r->checked = 1;
    snprintf(r->check, sizeof r->check, "all %zu, rel.", n);
cleanup:
    release_buffers(bufs, 3);
    free(a), free(bb), free(c);
}

/* ----------------------------------------------------------------------------------------------------- */
/* gemm: C = A * B (row-major, no transpose, alpha 1, beta 0). Error of C[i][j]: |C - ref| / sum_p |A[i][p] B[p][j]|.
 * Any float32 summation order keeps it below (k+1) * 2^-23 (the classic dot-product bound, with a factor 2 to
 * spare), and with these random inputs it stays near 2^-24 at any k, since rounding errors add up like a random
 * walk while sum|a*b| grows with k. So the tolerance is that bound, capped at 64 * 2^-23 (7.6e-6): well above what
 * float32 gives, and below the ~2^-11/sqrt(k) that TF32 or fp16 inputs give up to k of about 10^4, so a GEMM
 * that quietly drops to TF32 fails instead of being reported as float32. */

typedef struct gemm_arg {
    size_t m, n, k;
    hcl_buffer a, b, c;
} gemm_arg;

static hcl_status gemm_submit(bench *b, void *p, hcl_event *ev) {
    gemm_arg *g = p;
    return hcl_gemm_f32(b->queue, HCL_NO_TRANS, HCL_NO_TRANS, g->m, g->n, g->k, 1.0f, g->a, g->k, g->b, g->n, 0.0f,
                        g->c, g->n, ev);
}

static void gemm_check_row(result *r, const float *A, const float *B, const float *C, size_t n, size_t k, size_t i,
                           double *acc, double *abs_acc) {
    for (size_t j = 0; j < n; j++)
        acc[j] = abs_acc[j] = 0.0;
    for (size_t p = 0; p < k; p++) {
        double aip = A[i * k + p];
        const float *brow = B + p * n;
        for (size_t j = 0; j < n; j++) {
            double t = aip * (double)brow[j];
            acc[j] += t;
            abs_acc[j] += fabs(t);
        }
    }
    for (size_t j = 0; j < n; j++)
        note_error(r, fabs((double)C[i * n + j] - acc[j]) / fmax(abs_acc[j], (double)FLT_MIN));
}

static void gemm_check_col(result *r, const float *A, const float *B, const float *C, size_t m, size_t n, size_t k,
                           size_t j) {
    for (size_t i = 0; i < m; i++) {
        double acc = 0.0, abs_acc = 0.0;
        for (size_t p = 0; p < k; p++) {
            double t = (double)A[i * k + p] * (double)B[p * n + j];
            acc += t;
            abs_acc += fabs(t);
        }
        note_error(r, fabs((double)C[i * n + j] - acc) / fmax(abs_acc, (double)FLT_MIN));
    }
}

static void bench_gemm(bench *b, size_t m, size_t n, size_t k, result *r) {
    snprintf(r->shape, sizeof r->shape, "%zux%zux%zu", m, n, k);
    r->work = 2.0 * (double)m * (double)n * (double)k;
    r->is_flops = 1;
    float *A = xmalloc(m * k * sizeof(float), r), *B = xmalloc(k * n * sizeof(float), r),
          *C = xmalloc(m * n * sizeof(float), r);
    double *acc = xmalloc(2 * n * sizeof(double), r);
    hcl_buffer bufs[3] = {NULL, NULL, NULL};
    gemm_arg arg = {m, n, k, NULL, NULL, NULL};
    if (!A || !B || !C || !acc)
        goto cleanup;
    fill_random(&b->rng, A, m * k, -1.0f, 1.0f);
    fill_random(&b->rng, B, k * n, -1.0f, 1.0f);
    if (make_buffer(b, m * k * sizeof(float), A, &bufs[0], r) || make_buffer(b, k * n * sizeof(float), B, &bufs[1], r) ||
        make_buffer(b, m * n * sizeof(float), NULL, &bufs[2], r))
        goto cleanup;
    arg.a = bufs[0], arg.b = bufs[1], arg.c = bufs[2];
    if (run_timed(b, gemm_submit, &arg, bufs[2], m * n * sizeof(float), r))
        goto cleanup;
    if (!b->opt->verify)
        goto cleanup;
    hcl_status st = hcl_buffer_read(b->queue, bufs[2], 0, m * n * sizeof(float), C);
    if (st != HCL_SUCCESS) {
        call_failed(r, "hcl_buffer_read", st);
        goto cleanup;
    }
    r->tol = (double)(k + 1 < 64 ? k + 1 : 64) * ldexp(1.0, -23);
    if ((double)m * (double)n * (double)k <= 268435456.0) { /* 2^28 multiply-adds: a fraction of a second */
        for (size_t i = 0; i < m; i++)
            gemm_check_row(r, A, B, C, n, k, i, acc, acc + n);
        snprintf(r->check, sizeof r->check, "all %zux%zu", m, n);
    } else {
        /* 16 whole rows and 16 whole columns: the first, the last and random ones, so every tile position in
         * both directions is covered. */
        const size_t samples = 16;
        size_t rows = m < samples ? m : samples, cols = n < samples ? n : samples;
        for (size_t s = 0; s < rows; s++) {
            size_t i = s == 0 ? 0 : s == 1 ? m - 1 : (size_t)(splitmix64(&b->rng) % m);
            gemm_check_row(r, A, B, C, n, k, i, acc, acc + n);
        }
        for (size_t s = 0; s < cols; s++) {
            size_t j = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)(splitmix64(&b->rng) % n);
            gemm_check_col(r, A, B, C, m, n, k, j);
        }
        snprintf(r->check, sizeof r->check, "%zu rows + %zu cols", rows, cols);
    }
    r->checked = 1;
cleanup:
    release_buffers(bufs, 3);
    free(A), free(B), free(C), free(acc);
}

/* ----------------------------------------------------------------------------------------------------- */
/* softmax: inputs in [-8, 8) so no output underflows. Error: |out - ref| / ref (ref > 0). The float32 sum of a
 * row of `cols` terms is good to about cols * 2^-24; exp adds a few ulp. */

typedef struct softmax_arg {
    size_t rows, cols;
    hcl_buffer in, out;
} softmax_arg;

static hcl_status softmax_submit(bench *b, void *p, hcl_event *ev) {
    softmax_arg *s = p;
    return hcl_softmax_f32(b->queue, s->rows, s->cols, s->in, s->out, ev);
}

static void bench_softmax(bench *b, size_t rows, size_t cols, result *r) {
    snprintf(r->shape, sizeof r->shape, "%zux%zu", rows, cols);
    r->work = 2.0 * 4.0 * (double)rows * (double)cols;
    size_t bytes = rows * cols * sizeof(float);
    float *in = xmalloc(bytes, r), *out = xmalloc(bytes, r);
    hcl_buffer bufs[2] = {NULL, NULL};
    softmax_arg arg = {rows, cols, NULL, NULL};
    if (!in || !out)
        goto cleanup;
    fill_random(&b->rng, in, rows * cols, -8.0f, 8.0f);
    if (make_buffer(b, bytes, in, &bufs[0], r) || make_buffer(b, bytes, NULL, &bufs[1], r))
        goto cleanup;
    arg.in = bufs[0], arg.out = bufs[1];
    if (run_timed(b, softmax_submit, &arg, bufs[1], bytes, r))
        goto cleanup;
    if (!b->opt->verify)
        goto cleanup;
    hcl_status st = hcl_buffer_read(b->queue, bufs[1], 0, bytes, out);
    if (st != HCL_SUCCESS) {
        call_failed(r, "hcl_buffer_read", st);
        goto cleanup;
    }
    r->tol = (double)(cols + 32) * ldexp(1.0, -24);
    for (size_t i = 0; i < rows; i++) {
        const float *x = in + i * cols;
        double mx = -INFINITY, sum = 0.0;
        for (size_t j = 0; j < cols; j++)
            mx = fmax(mx, (double)x[j]);
        for (size_t j = 0; j < cols; j++)
            sum += exp((double)x[j] - mx);
        for (size_t j = 0; j < cols; j++) {
            double ref = exp((double)x[j] - mx) / sum;
            note_error(r, fabs((double)out[i * cols + j] - ref) / ref);
        }
    }
    r->checked = 1;
    snprintf(r->check, sizeof r->check, "all %zux%zu, rel.", rows, cols);
cleanup:
    release_buffers(bufs, 2);
    free(in), free(out);
}

/* ----------------------------------------------------------------------------------------------------- */
/* reduce (sum): inputs in [-1, 1). Error: |sum - ref| / sum |x|. The worst-case bound for an arbitrary summation
 * order ((n-1) * 2^-24) is useless at large n, so the tolerance is a fixed 1e-6, far above what a sequential,
 * blocked or tree sum of random data gives and far below a lost block of elements. */

typedef struct reduce_arg {
    size_t n;
    hcl_buffer in, out;
} reduce_arg;

static hcl_status reduce_submit(bench *b, void *p, hcl_event *ev) {
    reduce_arg *s = p;
    return hcl_reduce_f32(b->queue, HCL_REDUCE_SUM, s->n, s->in, s->out, ev);
}

static void bench_reduce(bench *b, size_t n, result *r) {
    snprintf(r->shape, sizeof r->shape, "sum n=%zu", n);
    r->work = 4.0 * (double)n;
    size_t bytes = n * sizeof(float);
    float *in = xmalloc(bytes, r), out = 0.0f;
    hcl_buffer bufs[2] = {NULL, NULL};
    reduce_arg arg = {n, NULL, NULL};
    if (!in)
        goto cleanup;
    fill_random(&b->rng, in, n, -1.0f, 1.0f);
    if (make_buffer(b, bytes, in, &bufs[0], r) || make_buffer(b, sizeof(float), NULL, &bufs[1], r))
        goto cleanup;
    arg.in = bufs[0], arg.out = bufs[1];
    if (run_timed(b, reduce_submit, &arg, bufs[1], sizeof(float), r))
        goto cleanup;
    if (!b->opt->verify)
        goto cleanup;
    hcl_status st = hcl_buffer_read(b->queue, bufs[1], 0, sizeof(float), &out);
    if (st != HCL_SUCCESS) {
        call_failed(r, "hcl_buffer_read", st);
        goto cleanup;
    }
    double ref = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        ref += (double)in[i];
        abs_sum += fabs((double)in[i]);
    }
    r->tol = 1e-6;
    note_error(r, fabs((double)out - ref) / fmax(abs_sum, (double)FLT_MIN));
    r->checked = 1;
    snprintf(r->check, sizeof r->check, "rel. to sum|x|");
cleanup:
    release_buffers(bufs, 2);
    free(in);
}

/* ----------------------------------------------------------------------------------------------------- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: bench [options]\n"
            "\n"
            "Runs HCL's built-in kernels (vecadd, gemm, softmax, reduce sum) on one device and prints, per kernel,\n"
            "the device time of the timed runs (median, min, max, from the events the calls return), the rate\n"
            "at the median, and whether the output matched a float64 reference computed on the host.\n"
            "\n"
            "Device selection:\n"
            "  --device SEL        open SEL (\"host\", \"opencl:1\", \"cuda,opencl\"; see hcl_device_open)\n"
            "                      instead of the environment. Default: HCL_BACKEND / HCL_DEVICE, else the\n"
            "                      library's default (the first GPU of cuda, hip, levelzero, opencl, else host).\n"
            "\n"
            "What to run:\n"
            "  --kernels LIST      comma list of vecadd, gemm, softmax, reduce (default: all)\n"
            "  --repeats N         timed runs per kernel (default 7, at most %d)\n"
            "  --warmup N          untimed runs first (default 2; the first one includes any kernel build)\n"
            "  --seed N            seed of the random inputs (default: HCL_SEED, else from the clock;\n"
            "                      always printed)\n"
            "  --no-verify         skip the host reference check (the table then says \"not checked\")\n"
            "\n"
            "Sizes (N accepts 1000, 16M = 16*2^20, 1K = 2^10, 2^24):\n"
            "  --scale F           multiply the default element counts by F (gemm: each dimension by F^(1/3))\n"
            "  --vecadd-n N        vecadd length      (default CPU 2^24, GPU 2^26)\n"
            "  --gemm N|MxNxK      gemm shape         (default CPU 1024x1024x1024, GPU 4096x4096x4096)\n"
            "  --softmax RxC       softmax rows x cols (default CPU 4096x1024, GPU 16384x1024)\n"
            "  --reduce-n N        reduce length      (default CPU 2^24, GPU 2^26)\n"
            "\n"
            "Rates: vecadd 3*4*n bytes, softmax 2*4*rows*cols bytes, reduce 4*n bytes (BabelStream counting),\n"
            "gemm 2*m*n*k flops. Every run's output is first filled with NaN, so unwritten elements fail the check.\n"
            "Tolerances: vecadd |c-ref|/|ref| <= 2^-23; gemm |c-ref|/sum|a*b| <= min(k+1, 64)*2^-23 (tight enough\n"
            "that TF32 fails; a full check up to 2^28 multiply-adds, else 16 whole rows and 16 whole columns);\n"
            "softmax |y-ref|/ref <= (cols+32)*2^-24; reduce |s-ref|/sum|x| <= 1e-6.\n"
            "\n"
            "Exit status: 0 when every kernel ran and every check passed, 1 when the device could not be opened,\n"
            "a call failed or a check FAILED, 2 on a usage error.\n",
            MAX_REPEATS);
}

/* "1000", "16M", "4K", "1G", "2^24" -> value. */
static int parse_size(const char *s, size_t *out) {
    char *end = NULL;
    errno = 0;
    if (!strncmp(s, "2^", 2)) {
        unsigned long e = strtoul(s + 2, &end, 10);
        if (errno || end == s + 2 || *end || e >= 63)
            return -1;
        *out = (size_t)1 << e;
        return 0;
    }
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || (shift && v > (SIZE_MAX >> shift)))
        return -1;
    *out = (size_t)v << shift;
    return 0;
}

/* "AxB" or "AxBxC" (count 2 or 3); for count 3 a single "N" means NxNxN. */
static int parse_dims(const char *s, size_t *d, int count) {
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int got = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
        if (got == count || parse_size(tok, &d[got]))
            return -1;
        got++;
    }
    if (got == 1 && count == 3) {
        d[1] = d[2] = d[0];
        got = 3;
    }
    return got == count ? 0 : -1;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_kernels(const char *s, unsigned *out) {
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    unsigned mask = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "vecadd"))
            mask |= K_VECADD;
        else if (!strcmp(tok, "gemm"))
            mask |= K_GEMM;
        else if (!strcmp(tok, "softmax"))
            mask |= K_SOFTMAX;
        else if (!strcmp(tok, "reduce"))
            mask |= K_REDUCE;
        else if (!strcmp(tok, "all"))
            mask |= K_ALL;
        else
            return -1;
    }
    if (!mask)
        return -1;
    *out = mask;
    return 0;
}

static int parse_args(int argc, char **argv, options *o) {
    int seed_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--no-verify")) {
            o->verify = 0;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench: unknown option or missing value: '%s'\n", a);
            return -1;
        }
        const char *v = argv[++i];
        int bad = 0;
        if (!strcmp(a, "--device")) {
            o->selector = v;
        } else if (!strcmp(a, "--kernels") || !strcmp(a, "--only")) {
            bad = parse_kernels(v, &o->kernels);
        } else if (!strcmp(a, "--repeats")) {
            bad = parse_int(v, 1, MAX_REPEATS, &o->repeats);
        } else if (!strcmp(a, "--warmup")) {
            bad = parse_int(v, 0, 100, &o->warmup);
        } else if (!strcmp(a, "--seed")) {
            char *end = NULL;
            errno = 0;
            o->seed = strtoull(v, &end, 0);
            bad = errno || end == v || *end;
            seed_set = 1;
        } else if (!strcmp(a, "--scale")) {
            char *end = NULL;
            o->scale = strtod(v, &end);
            bad = end == v || *end || !(o->scale > 0.0) || o->scale > 1e6;
        } else if (!strcmp(a, "--vecadd-n")) {
            bad = parse_size(v, &o->vec_n) || o->vec_n == 0;
        } else if (!strcmp(a, "--reduce-n")) {
            bad = parse_size(v, &o->red_n) || o->red_n == 0;
        } else if (!strcmp(a, "--gemm")) {
            size_t d[3];
            bad = parse_dims(v, d, 3) || !d[0] || !d[1] || !d[2];
            if (!bad)
                o->gemm_m = d[0], o->gemm_n = d[1], o->gemm_k = d[2];
        } else if (!strcmp(a, "--softmax")) {
            size_t d[2];
            bad = parse_dims(v, d, 2) || !d[0] || !d[1];
            if (!bad)
                o->sm_rows = d[0], o->sm_cols = d[1];
        } else {
            fprintf(stderr, "bench: unknown option '%s'\n", a);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "bench: bad value for %s: '%s'\n", a, v);
            return -1;
        }
    }
    if (!seed_set) {
        const char *env = getenv("HCL_SEED");
        char *end = NULL;
        if (env && *env && (o->seed = strtoull(env, &end, 0), *end == '\0'))
            seed_set = 1;
    }
    if (!seed_set) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
        o->seed = splitmix64(&s) % 1000000000u; /* short enough to retype */
    }
    return 0;
}

static size_t scaled(size_t base, double f) {
    double v = (double)base * f;
    return v < 1.0 ? 1 : (size_t)(v + 0.5);
}

static void print_row(const char *name, const result *r) {
    char rate[32] = "-", times[64] = "", check[160];
    if (r->ran > 0) {
        snprintf(rate, sizeof rate, "%.2f %s", r->work / r->med_s / 1e9, r->is_flops ? "GFLOP/s" : "GB/s");
        snprintf(times, sizeof times, "%10.3f %10.3f %10.3f %10.3f", 1e3 * r->first_s, 1e3 * r->med_s,
                 1e3 * r->min_s, 1e3 * r->max_s);
    } else {
        snprintf(times, sizeof times, "%10s %10s %10s %10s", "-", "-", "-", "-");
    }
    if (r->checked && !(r->err <= r->tol))
        snprintf(check, sizeof check, "FAILED: max err %.3g > tol %.3g (%s)", r->err, r->tol, r->check);
    else if (r->checked)
        snprintf(check, sizeof check, "verified: max err %.3g <= tol %.3g (%s)", r->err, r->tol, r->check);
    else if (r->failed)
        snprintf(check, sizeof check, "ERROR (see above)");
    else
        snprintf(check, sizeof check, "not checked");
    printf("%-8s %-16s %s %16s  %s\n", name, r->shape, times, rate, check);
    fflush(stdout);
}

int main(int argc, char **argv) {
    options o = {.selector = NULL, .repeats = 7, .warmup = 2, .verify = 1, .kernels = K_ALL, .scale = 1.0};
    if (parse_args(argc, argv, &o)) {
        fprintf(stderr, "run 'bench --help' for the options\n");
        return 2;
    }

    bench b = {NULL, NULL, &o, o.seed};
    hcl_status st = hcl_device_open(o.selector, &b.device);
    if (st != HCL_SUCCESS) {
        fprintf(stderr, "bench: cannot open device %s: %s: %s\n",
                o.selector ? o.selector : "(from the environment)", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    hcl_device_info info;
    st = hcl_device_get_info(b.device, &info);
    if (st != HCL_SUCCESS) {
        fprintf(stderr, "bench: hcl_device_get_info: %s: %s\n", hcl_status_name(st), hcl_last_message());
        hcl_device_release(b.device);
        return 1;
    }
    st = hcl_queue_create(b.device, &b.queue);
    if (st != HCL_SUCCESS) {
        fprintf(stderr, "bench: hcl_queue_create: %s: %s\n", hcl_status_name(st), hcl_last_message());
        hcl_device_release(b.device);
        return 1;
    }

    int cpu = info.type == HCL_DEVICE_TYPE_CPU;
    double cube = cbrt(o.scale);
    size_t vec_n = o.vec_n ? o.vec_n : scaled(cpu ? (size_t)1 << 24 : (size_t)1 << 26, o.scale);
    size_t red_n = o.red_n ? o.red_n : scaled(cpu ? (size_t)1 << 24 : (size_t)1 << 26, o.scale);
    size_t gm = o.gemm_m ? o.gemm_m : scaled(cpu ? 1024 : 4096, cube);
    size_t gn = o.gemm_m ? o.gemm_n : gm, gk = o.gemm_m ? o.gemm_k : gm;
    size_t sr = o.sm_rows ? o.sm_rows : scaled(cpu ? 4096 : 16384, o.scale);
    size_t sc = o.sm_rows ? o.sm_cols : 1024;

    const char *env_be = getenv("HCL_BACKEND"), *env_dev = getenv("HCL_DEVICE");
    printf("hcl bench: HCL %d.%d.%d\n", HCL_VERSION_MAJOR, HCL_VERSION_MINOR, HCL_VERSION_PATCH);
    printf("device:    %s:%" PRIu32 " %s (%s, %s, %" PRIu32 " compute units, %.1f GiB)\n", info.backend,
           info.index, info.name, info.vendor,
           cpu ? "CPU" : info.type == HCL_DEVICE_TYPE_GPU ? "GPU" : "other", info.compute_units,
           (double)info.global_mem_bytes / 1073741824.0);
    printf("driver:    %s\n", info.driver_version);
    if (o.selector)
        printf("selected:  --device %s\n", o.selector);
    else
        printf("selected:  HCL_BACKEND=%s HCL_DEVICE=%s\n", env_be ? env_be : "(unset)",
               env_dev ? env_dev : "(unset)");
    printf("seed:      %" PRIu64 " (--seed to repeat)\n", o.seed);
    printf("runs:      %d warm-up (discarded) + %d timed per kernel, output filled with NaN before each run\n",
           o.warmup, o.repeats);
    printf("columns:   first = wall time of the first call, any kernel build included; median/min/max = device\n"
           "           time of the timed runs (event of each call); rate at the median; all times in ms\n\n");
    printf("%-8s %-16s %10s %10s %10s %10s %16s  %s\n", "kernel", "shape", "first", "median", "min", "max",
           "rate (median)", "check");
    fflush(stdout);

    int bad = 0, unchecked = 0;
    if (o.kernels & K_VECADD) {
        result r = {0};
        bench_vecadd(&b, vec_n, &r);
        print_row("vecadd", &r);
        bad |= r.failed || (r.checked && !(r.err <= r.tol));
        unchecked += !r.checked;
    }
    if (o.kernels & K_GEMM) {
        result r = {0};
        bench_gemm(&b, gm, gn, gk, &r);
        print_row("gemm", &r);
        bad |= r.failed || (r.checked && !(r.err <= r.tol));
        unchecked += !r.checked;
    }
    if (o.kernels & K_SOFTMAX) {
        result r = {0};
        bench_softmax(&b, sr, sc, &r);
        print_row("softmax", &r);
        bad |= r.failed || (r.checked && !(r.err <= r.tol));
        unchecked += !r.checked;
    }
    if (o.kernels & K_REDUCE) {
        result r = {0};
        bench_reduce(&b, red_n, &r);
        print_row("reduce", &r);
        bad |= r.failed || (r.checked && !(r.err <= r.tol));
        unchecked += !r.checked;
    }

    st = hcl_queue_release(b.queue);
    if (st != HCL_SUCCESS) {
        printf("error: hcl_queue_release: %s: %s\n", hcl_status_name(st), hcl_last_message());
        bad = 1;
    }
    st = hcl_device_release(b.device);
    if (st != HCL_SUCCESS) {
        printf("error: hcl_device_release: %s: %s\n", hcl_status_name(st), hcl_last_message());
        bad = 1;
    }
    if (bad)
        printf("\nbench: FAILED (see above)\n");
    else if (unchecked)
        printf("\nbench: all kernels ran; %d not checked (--no-verify)\n", unchecked);
    else
        printf("\nbench: all kernels ran and every result was verified\n");
    return bad ? 1 : 0;
}
