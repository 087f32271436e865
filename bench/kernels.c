/* The four measured kernels: size plans, the timed-run loop, and the checks against a float64 reference computed
 * on the host (hcl_testsupport: its references, and the tolerance rule HCL_TS_BENCH, which says why each
 * tolerance is what it is). The baseline of each row runs on the same HCL buffers and inputs right after HCL's
 * kernel and is checked against the same reference.
 *
 * Rates count bytes as BabelStream does (vecadd: 3 arrays, softmax: read + write, reduce: the input read once; a
 * copy baseline: read + write) and GEMM as 2*m*n*k floating-point operations, in the row's element type (f16 and bf16:
 * 2 bytes). A 16-bit row's inputs are drawn as floats and rounded to the type first, so the reference sees what the
 * device sees; its tolerance adds the one rounding of a 16-bit output, and TF32's adds the rounding of the inputs. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------------------
 * Size plans
 * ------------------------------------------------------------------------------------------------------- */

/* Bytes on the device, bytes on the host and the largest single buffer of a case (the baseline's extra buffer
 * included). */
static void footprint(const bcase *c, double *dev, double *host, double *largest) {
    const double f = 4.0;
    switch (c->kernel) {
    case K_VECADD: *dev = 3 * f * (double)c->d[0], *host = *dev, *largest = f * (double)c->d[0]; break;
    case K_GEMM: {
        double m = (double)c->d[0], n = (double)c->d[1], k = (double)c->d[2];
        *dev = f * (m * k + k * n + m * n), *host = *dev;
        *largest = f * fmax(m * k, fmax(k * n, m * n));
        break;
    }
    case K_SOFTMAX: *dev = 2 * f * (double)c->d[0] * (double)c->d[1], *host = *dev, *largest = *dev / 2; break;
    default: /* reduce: the input, and a copy (or CUB's scratch) for the baseline */
        *dev = 2 * f * (double)c->d[0], *host = *dev, *largest = f * (double)c->d[0];
        break;
    }
}

static size_t scaled(size_t base, double f) {
    double v = (double)base * f;
    return v < 1.0 ? 1 : (size_t)(v + 0.5);
}

void format_shape(const bcase *c, char *out, size_t size) {
    switch (c->kernel) {
    case K_GEMM: snprintf(out, size, "%zux%zux%zu", c->d[0], c->d[1], c->d[2]); break;
    case K_SOFTMAX: snprintf(out, size, "%zux%zu", c->d[0], c->d[1]); break;
    default: snprintf(out, size, "n=%zu", c->d[0]); break;
    }
    if (c->type != BT_F32) { /* f32 rows keep the shapes of older runs (--compare matches on them) */
        size_t used = strlen(out);
        snprintf(out + used, size - used, " %s", type_names[c->type]);
    }
}

static int add_typed_case(bcase *out, int *count, int max, int kernel, size_t d0, size_t d1, size_t d2, int type,
                          int set) {
    for (int i = 0; i < *count; i++) /* scaling can make two sizes equal */
        if (out[i].kernel == kernel && out[i].d[0] == d0 && out[i].d[1] == d1 && out[i].d[2] == d2 &&
            out[i].type == type)
            return 0;
    if (*count >= max) return -1;
    out[*count] = (bcase){kernel, {d0, d1, d2}, type, set};
    (*count)++;
    return 0;
}

static int add_case(bcase *out, int *count, int max, int kernel, size_t d0, size_t d1, size_t d2) {
    return add_typed_case(out, count, max, kernel, d0, d1, d2, BT_F32, GS_NONE);
}

/* A gemm dimension at most this stays as it is when a case is scaled or shrunk: the skinny set's 1, 7 and 127 are
 * what its rows are about (the square sizes all lie above it). */
#define GEMM_KEEP_DIM 128

/* Shrink a default case until it fits the budgets: halve vector lengths and softmax rows, halve GEMM dims (those
 * above GEMM_KEEP_DIM, or all of them when none is). */
static int fit(bcase *c, double dev_budget, double host_budget, double max_alloc) {
    int shrunk = 0;
    for (int guard = 0; guard < 64; guard++) {
        double dev, host, largest;
        footprint(c, &dev, &host, &largest);
        if (dev <= dev_budget && host <= host_budget && largest <= max_alloc) break;
        shrunk = 1;
        if (c->kernel == K_GEMM) {
            int big = c->d[0] > GEMM_KEEP_DIM || c->d[1] > GEMM_KEEP_DIM || c->d[2] > GEMM_KEEP_DIM;
            for (int i = 0; i < 3; i++)
                if (!big || c->d[i] > GEMM_KEEP_DIM) c->d[i] = c->d[i] > 1 ? c->d[i] / 2 : 1;
        } else if (c->d[0] > 1) {
            c->d[0] /= 2;
        } else {
            break;
        }
    }
    return shrunk;
}

/* The default gemm shapes of the sets asked for (--gemm-set), square first; --scale multiplies the dimensions above
 * GEMM_KEEP_DIM by the cube root of its factor. */
static void add_gemm_sets(const options *o, int cpu, double cube, bcase *tmp, int *ntmp) {
    for (int set = 0; set < GS_COUNT; set++) {
        if (!(o->gemm_sets & (1u << set))) continue;
        size_t shapes[32][3];
        int n = gemm_set_shapes(set, cpu, o->quick, shapes, 32);
        for (int i = 0; i < n; i++) {
            size_t d[3];
            for (int j = 0; j < 3; j++) d[j] = shapes[i][j] > GEMM_KEEP_DIM ? scaled(shapes[i][j], cube) : shapes[i][j];
            add_typed_case(tmp, ntmp, BENCH_MAX_CASES, K_GEMM, d[0], d[1], d[2], BT_F32, set);
        }
    }
}

int plan_cases(const options *o, const hcl_device_info *info, bcase *out, int max, char *note, size_t note_size) {
    int cpu = info->type == HCL_DEVICE_TYPE_CPU, count = 0;
    const double s = o->scale, cube = cbrt(o->scale);
    bcase tmp[BENCH_MAX_CASES];
    int ntmp = 0;
    snprintf(note, note_size, "%s", o->quick ? "--quick sizes" : cpu ? "CPU sizes" : "GPU sizes");
    for (int k = 0; k < K_COUNT; k++) {
        if (!(o->kernels & (1u << k))) continue;
        int explicit_size = (k == K_VECADD && o->vec_n) || (k == K_GEMM && o->gemm_m) ||
                            (k == K_SOFTMAX && o->sm_rows) || (k == K_REDUCE && o->red_n);
        if (explicit_size) {
            if (k == K_VECADD) add_case(out, &count, max, k, o->vec_n, 0, 0);
            if (k == K_GEMM) add_case(out, &count, max, k, o->gemm_m, o->gemm_n, o->gemm_k);
            if (k == K_SOFTMAX) add_case(out, &count, max, k, o->sm_rows, o->sm_cols, 0);
            if (k == K_REDUCE) add_case(out, &count, max, k, o->red_n, 0, 0);
            continue;
        }
        if (o->quick) {
            /* Odd shapes that cross tile and work-group edges; a few seconds on PoCL. */
            if (k == K_VECADD) add_case(tmp, &ntmp, BENCH_MAX_CASES, k, scaled(1000003, s), 0, 0);
            if (k == K_GEMM) add_gemm_sets(o, cpu, cube, tmp, &ntmp);
            if (k == K_SOFTMAX) {
                add_case(tmp, &ntmp, BENCH_MAX_CASES, k, scaled(257, s), 1001, 0);
                add_case(tmp, &ntmp, BENCH_MAX_CASES, k, scaled(3, s), 20011, 0);
            }
            if (k == K_REDUCE) add_case(tmp, &ntmp, BENCH_MAX_CASES, k, scaled(1000003, s), 0, 0);
            continue;
        }
        /* Defaults: a large GPU is filled (2^28-element vectors, GEMM up to 8192, softmax of 2^27 elements); a CPU
         * device gets sizes that keep a 2-core run of every kernel and baseline within about two minutes. */
        static const size_t sm_cols[] = {32, 256, 1024, 4096, 16384, 32768, 65536, 131072, 262144};
        if (k == K_VECADD || k == K_REDUCE) {
            /* 2^25 on both: the CPU's size, so --all has a shape to compare with the host driver */
            if (!cpu) add_case(tmp, &ntmp, BENCH_MAX_CASES, k, scaled((size_t)1 << 25, s), 0, 0);
            add_case(tmp, &ntmp, BENCH_MAX_CASES, k, scaled((size_t)1 << (cpu ? 25 : 28), s), 0, 0);
        } else if (k == K_GEMM) {
            add_gemm_sets(o, cpu, cube, tmp, &ntmp);
        } else {
            size_t total = (size_t)1 << (cpu ? 23 : 27);
            for (size_t i = 0; i < sizeof sm_cols / sizeof sm_cols[0]; i++) {
                size_t rows = scaled(total / sm_cols[i], s);
                add_case(tmp, &ntmp, BENCH_MAX_CASES, k, rows ? rows : 1, sm_cols[i], 0);
            }
        }
    }
    /* Fit the default plan to this device's memory and to the host's (inputs and read-backs live there too). */
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    double dev_budget = info->global_mem_bytes ? 0.45 * (double)info->global_mem_bytes : 1e30;
    double host_budget = ram > 0 ? 0.35 * ram : 1e30;
    double max_alloc = info->max_alloc_bytes ? (double)info->max_alloc_bytes : 1e30;
    int shrunk = 0;
    for (int i = 0; i < ntmp; i++) {
        shrunk |= fit(&tmp[i], dev_budget, host_budget, max_alloc);
        if (add_typed_case(out, &count, max, tmp[i].kernel, tmp[i].d[0], tmp[i].d[1], tmp[i].d[2], BT_F32, tmp[i].set))
            break;
    }
    if (shrunk) {
        size_t used = strlen(note);
        snprintf(note + used, note_size - used,
                 ", scaled down to fit %.1f GiB of device memory and %.1f GiB of host "
                 "memory",
                 dev_budget / 1073741824.0, host_budget / 1073741824.0);
    }
    if ((o->kernels & (1u << K_GEMM)) && !o->gemm_m && o->gemm_sets != GS_DEFAULT)
        for (int set = 0, first = 1; set < GS_COUNT; set++)
            if (o->gemm_sets & (1u << set)) {
                size_t used = strlen(note);
                snprintf(note + used, note_size - used, "%s%s", first ? ", --gemm-set " : ",", gemm_set_names[set]);
                first = 0;
            }
    if (s != 1.0) {
        size_t used = strlen(note);
        snprintf(note + used, note_size - used, ", --scale %g", s);
    }
    /* every planned shape in each other type asked for: TF32 for gemm where the matrix unit has it; f32 rows only
     * when f32 was asked for */
    const int f32_cases = count;
    for (int t = BT_TF32; t < BT_COUNT; t++) {
        if (!(o->types & (1u << t))) continue;
        for (int i = 0; i < f32_cases; i++) {
            if (t == BT_TF32 && (out[i].kernel != K_GEMM || !(info->matrix_types & HCL_TYPE_BIT_TF32))) continue;
            add_typed_case(out, &count, max, out[i].kernel, out[i].d[0], out[i].d[1], out[i].d[2], t, out[i].set);
        }
    }
    if ((o->types & (1u << BT_TF32)) && (o->kernels & (1u << K_GEMM)) && !(info->matrix_types & HCL_TYPE_BIT_TF32)) {
        size_t used = strlen(note);
        snprintf(note + used, note_size - used, ", no tf32 rows (no matrix unit with TF32 through this backend)");
    }
    if (!(o->types & (1u << BT_F32))) {
        memmove(out, out + f32_cases, (size_t)(count - f32_cases) * sizeof *out);
        count -= f32_cases;
    }
    /* kernel order: vecadd, gemm, softmax, reduce (a stable sort of the planned cases) */
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && out[j].kernel < out[j - 1].kernel; j--) {
            bcase t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return count;
}

/* ---------------------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------------------- */

static int call_failed(measure *m, const char *what, hcl_status st) {
    hcl_ts_status_text(m->error, sizeof m->error, st, "%s", what);
    m->failed = 1;
    return 1;
}

static void *host_alloc(size_t bytes, measure *m) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        snprintf(m->error, sizeof m->error, "out of host memory (%zu bytes)", bytes);
        m->failed = 1;
    }
    return p;
}

static int make_buffer(bdev *b, size_t bytes, const float *init, hcl_buffer *out, measure *m) {
    hcl_status st = hcl_buffer_create(b->device, bytes, 0, out);
    if (st != HCL_SUCCESS) {
        *out = NULL;
        return call_failed(m, "hcl_buffer_create", st);
    }
    if (init && (st = hcl_buffer_write(b->queue, *out, 0, bytes, init)) != HCL_SUCCESS)
        return call_failed(m, "hcl_buffer_write", st);
    return 0;
}

static int read_buffer(bdev *b, hcl_buffer buf, size_t bytes, void *dst, measure *m) {
    hcl_status st = hcl_buffer_read(b->queue, buf, 0, bytes, dst);
    return st == HCL_SUCCESS ? 0 : call_failed(m, "hcl_buffer_read", st);
}

/* ---- element types ---- */
/* Output bytes to poison: whole 4-byte words (typed buffers are made a multiple of 4 bytes long). */
static size_t word_bytes(size_t bytes) { return (bytes + 3) / 4 * 4; }

static size_t esize_of(int type) { return hcl_dtype_size(bench_dtype(type)); }

/* Round x[0..n) to the row's type in place (so the reference sees the stored values) and return the bytes to
 * upload in `raw` (NULL for f32: x itself). Returns 0, or 1 with m->error set. */
static int to_type(int type, float *x, size_t n, void **raw, measure *m) {
    *raw = NULL;
    if (bench_dtype(type) == HCL_DTYPE_F32) return 0;
    *raw = host_alloc(n * 2, m);
    if (!*raw) return 1;
    hcl_convert(bench_dtype(type), *raw, HCL_DTYPE_F32, x, n);
    hcl_convert(HCL_DTYPE_F32, x, bench_dtype(type), *raw, n);
    return 0;
}

/* A device buffer of n elements of the type (a whole number of 4-byte words), holding x (or raw) when given. */
static int make_typed(bdev *b, int type, size_t n, const float *x, const void *raw, hcl_buffer *out, measure *m) {
    size_t bytes = n * esize_of(type);
    hcl_status st = hcl_buffer_create(b->device, word_bytes(bytes), 0, out);
    if (st != HCL_SUCCESS) {
        *out = NULL;
        return call_failed(m, "hcl_buffer_create", st);
    }
    const void *src = raw ? raw : (const void *)x;
    if (src && (st = hcl_buffer_write(b->queue, *out, 0, bytes, src)) != HCL_SUCCESS)
        return call_failed(m, "hcl_buffer_write", st);
    return 0;
}

/* Read n elements of the type, widened to floats. */
static int read_typed(bdev *b, int type, hcl_buffer buf, size_t n, float *dst, measure *m) {
    if (bench_dtype(type) == HCL_DTYPE_F32) return read_buffer(b, buf, n * sizeof(float), dst, m);
    void *raw = host_alloc(n * 2, m);
    if (!raw) return 1;
    int rc = read_buffer(b, buf, n * 2, raw, m);
    if (!rc) hcl_convert(HCL_DTYPE_F32, dst, bench_dtype(type), raw, n);
    free(raw);
    return rc;
}

/* The relative tolerance a 16-bit output adds: its one rounding (the unit roundoff u, relative to the reference's
 * scale), and u times the float32 result's own error (1/512 of u covers it). */
static double output_rtol(int type) {
    return type == BT_F16 ? 0x1p-11 + 0x1p-20 : type == BT_BF16 ? 0x1p-8 + 0x1p-17 : 0.0;
}

/* f16 results below 2^-14 are subnormal, spaced 2^-24 apart: a relative tolerance cannot hold there, so an f16
 * output's scale is floored to make the tolerance at least that spacing (its rounding is half of it, and the
 * float32 result's own error near there is another part of it). */
static void floor_scale(int type, double *scale, size_t n, double rtol) {
    if (type != BT_F16) return;
    for (size_t i = 0; i < n; i++) scale[i] = fmax(scale[i], 0x1p-24 / rtol);
}

/* Fold a comparison under HCL_TS_BENCH into a measure: its largest relative error (+inf for an element that is NaN,
 * such as one never written and still poisoned) against the kernel's relative tolerance. */
static void note_check(measure *m, const hcl_ts_cmp *c, double rtol) {
    if (c->max_rel > m->err) m->err = c->max_rel;
    m->tol = rtol;
    m->checked = 1;
}

/* ---------------------------------------------------------------------------------------------------------
 * The timed-run loop: poison the output (HCL_TS_POISON_BITS, a NaN), sum the gate (--gate-bytes: the device is still
 * reading it while the host submits the run, so the run's device time holds no wait for the host's submission, and
 * the caches hold none of the run's data and nothing dirty to write back), run, take the device time of the run;
 * warm-up runs are discarded. Without --repeats, a slow case stops after about 3 s of timed runs (at least 3 runs). Then the energy window (energy.c):
 * more runs of the call alone.
 * ------------------------------------------------------------------------------------------------------- */
int run_timed(bdev *b, const char *what, one_run_fn fn, void *ctx, hcl_buffer out, size_t out_bytes, uint32_t poison,
              measure *m) {
    double times[BENCH_MAX_REPEATS];
    int warmup = b->opt->warmup, repeats = b->opt->repeats;
    m->present = 1;
    m->ran = 0;
    for (int it = 0; it < warmup + repeats; it++) {
        progress("%s:%u %s (%s %d/%d)", b->info.backend, b->info.index, what, it < warmup ? "warm-up" : "run",
                 it < warmup ? it + 1 : it - warmup + 1, it < warmup ? warmup : repeats);
        hcl_status st = out ? hcl_buffer_fill(b->queue, out, 0, out_bytes, &poison, sizeof poison) : HCL_SUCCESS;
        if (st != HCL_SUCCESS) return call_failed(m, "hcl_buffer_fill (NaN poison)", st);
        if (b->gate) { /* the device busy while the host submits the run (--gate-bytes), and the caches cold */
            st = hcl_reduce(b->queue, HCL_DTYPE_F32, HCL_REDUCE_SUM, b->run->gate_bytes / sizeof(float), b->gate,
                            b->gate_sum, NULL);
            if (st != HCL_SUCCESS) return call_failed(m, "hcl_reduce (the gate)", st);
        }
        double t0 = now_s(), s = 0.0;
        if (fn(b, ctx, &s, m)) {
            m->failed = 1;
            return 1;
        }
        if (it == 0) m->first_s = now_s() - t0;
        if (it >= warmup) {
            times[m->ran++] = s;
            if (m->ran == 1) repeats = repeats_within_budget(s, repeats, b->opt->repeats_set);
        }
    }
    measure_summarize(m, times);
    return energy_window(b, fn, ctx, m); /* runs of the call alone (no poison fill or gate sum in it) */
}

/* HCL's own calls: submit with an event, wait, and take the event's device time. */
typedef hcl_status (*submit_fn)(bdev *b, void *ctx, hcl_event *out_event);
typedef struct hcl_ctx {
    submit_fn submit;
    void *arg;
} hcl_ctx;

static int hcl_one_run(bdev *b, void *ctx, double *out_s, measure *m) {
    hcl_ctx *h = ctx;
    hcl_event ev = NULL;
    hcl_status st = h->submit(b, h->arg, &ev);
    if (st != HCL_SUCCESS) return call_failed(m, "kernel call", st);
    if (!ev) {
        snprintf(m->error, sizeof m->error, "the kernel call returned no event");
        return 1;
    }
    st = hcl_event_wait(ev);
    if (st == HCL_SUCCESS) st = hcl_event_elapsed(ev, ev, out_s);
    hcl_event_release(ev);
    return st == HCL_SUCCESS ? 0 : call_failed(m, "hcl_event_wait/hcl_event_elapsed", st);
}

/* Baseline runs (baselines.c does the vendor call and its timing). */
typedef struct base_ctx {
    int kind;
    size_t m, n, k, bytes;
    hcl_buffer a, b, c;
} base_ctx;

static int base_one_run(bdev *b, void *ctx, double *out_s, measure *m) {
    base_ctx *x = ctx;
    if (x->kind == BASE_GEMM) return base_gemm_run(b, x->m, x->n, x->k, x->a, x->b, x->c, out_s, m);
    if (x->kind >= BASE_GEMM_TF32) return base_gemm_typed_run(b, x->kind, x->m, x->n, x->k, x->a, x->b, x->c, out_s, m);
    if (x->kind == BASE_REDUCE) return base_reduce_run(b, x->a, x->c, x->n, out_s, m);
    return base_copy_run(b, x->a, x->c, x->bytes, out_s, m);
}

/* The NaN that fills an output of `type` before each run: HCL_TS_POISON_BITS for floats, a 16-bit NaN with a payload
 * no kernel makes in both halves of the word for f16 and bf16. */
static uint32_t poison_of(int type) {
    return type == BT_F16 ? 0x7d5a7d5au : type == BT_BF16 ? 0x7f9a7f9au : HCL_TS_POISON_BITS;
}

static int run_hcl(bdev *b, const result *r, submit_fn fn, void *arg, hcl_buffer out, size_t bytes, int out_type,
                   measure *m) {
    char what[96];
    snprintf(what, sizeof what, "%s %s HCL", kernel_names[r->kernel], r->shape);
    hcl_ctx h = {fn, arg};
    snprintf(m->name, sizeof m->name, "HCL");
    return run_timed(b, what, hcl_one_run, &h, out, word_bytes(bytes), poison_of(out_type), m);
}

/* On a CPU device HCL's worker threads (OpenMP's, PoCL's, the host gemm's) and a baseline's (OpenBLAS's) share the
 * cores, and by default each pool keeps its threads spinning for a while after its work (libgomp's and OpenBLAS's
 * wait policies: OpenBLAS's 2^28 cycles of OPENBLAS_THREAD_TIMEOUT, a tenth of a second or more), which would slow the
 * other pool's runs. So the pools take turns, with a pause in between that lets spinning threads go to sleep: 250 ms
 * (H100 host, 16 cores, 100 ms: HCL's 1024x1x1024 gemm ran at 7-8 GFLOP/s after OpenBLAS's rows, 37-43 in a run
 * without them). (Other processes on the machine disturb CPU timings far more: on a loaded 2-core machine an OpenMP
 * region can wait a whole scheduler tick, 4 ms, for a descheduled thread.) */
void settle_cpu(const bdev *b) {
    if (!b->cpu) return;
    struct timespec ts = {0, 250 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static int run_base(bdev *b, result *r, base_ctx *x, hcl_buffer out, size_t bytes, int out_type) {
    const base_info *bi = &b->run->bases[x->kind];
    char what[160];
    snprintf(what, sizeof what, "%s %s %s", kernel_names[r->kernel], r->shape, bi->name);
    snprintf(r->base.name, sizeof r->base.name, "%s", bi->name);
    r->base_kind = x->kind;
    settle_cpu(b);
    int rc = run_timed(b, what, base_one_run, x, out, word_bytes(bytes), poison_of(out_type), &r->base);
    settle_cpu(b);
    return rc;
}

/* Copy baseline check: the copy of n elements of esize bytes must equal its source bit for bit. */
static void check_copy(bdev *b, result *r, hcl_buffer dst, const void *src, size_t n, size_t esize) {
    measure *m = &r->base;
    unsigned char *got = host_alloc(n * esize, m);
    if (!got || read_buffer(b, dst, n * esize, got, m)) {
        free(got);
        return;
    }
    m->tol = 0.0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * esize, (const unsigned char *)src + i * esize, esize) != 0) bad++;
    m->err = bad ? INFINITY : 0.0;
    m->checked = 1;
    snprintf(m->check, sizeof m->check, bad ? "%zu of %zu elements differ" : "all %zu, bit-exact", bad ? bad : n, n);
    free(got);
}

static int want_base(bdev *b, int kind) { return b->opt->baselines && b->run->bases[kind].available; }

/* The copy baseline: in's n elements of e bytes (of bench type t) copied into out, checked bit for bit against src,
 * the bytes uploaded to in. */
static void copy_base(bdev *b, result *r, hcl_buffer in, hcl_buffer out, const void *src, size_t n, size_t e, int t) {
    base_ctx x = {.kind = BASE_COPY, .bytes = n * e, .n = n, .a = in, .c = out};
    if (!run_base(b, r, &x, out, n * e, t) && b->opt->verify) check_copy(b, r, out, src, n, e);
}

/* The buffers of a bench, those that were made. */
static void release_buffers(hcl_buffer *bufs, int count) {
    for (int i = 0; i < count; i++)
        if (bufs[i]) hcl_buffer_release(bufs[i]);
}

/* ---------------------------------------------------------------------------------------------------------
 * vecadd: c = a + b. Error |c - ref| / |ref|, checked in chunks (the reference of 2^28 elements would not fit the
 * host memory plan). Baseline: a copy of a into c.
 * ------------------------------------------------------------------------------------------------------- */
typedef struct vecadd_arg {
    size_t n;
    hcl_dtype type;
    hcl_buffer a, b, c;
} vecadd_arg;

static hcl_status vecadd_submit(bdev *b, void *p, hcl_event *ev) {
    vecadd_arg *v = p;
    return hcl_vecadd(b->queue, v->type, v->n, v->a, v->b, v->c, ev);
}

static void bench_vecadd(bdev *b, result *r) {
    const int t = r->type;
    const size_t n = r->dims[0], e = esize_of(t), bytes = n * e;
    r->work = 3.0 * (double)e * (double)n;
    r->base_work = 2.0 * (double)e * (double)n;
    float *a = host_alloc(n * sizeof(float), &r->hcl), *bb = host_alloc(n * sizeof(float), &r->hcl),
          *c = host_alloc(n * sizeof(float), &r->hcl);
    void *ra = NULL, *rb = NULL;
    hcl_buffer bufs[3] = {NULL, NULL, NULL};
    if (!a || !bb || !c) goto cleanup;
    hcl_ts_fill_uniform(&b->rng, a, n, -1.0f, 1.0f);
    hcl_ts_fill_uniform(&b->rng, bb, n, -1.0f, 1.0f);
    if (to_type(t, a, n, &ra, &r->hcl) || to_type(t, bb, n, &rb, &r->hcl) ||
        make_typed(b, t, n, a, ra, &bufs[0], &r->hcl) || make_typed(b, t, n, bb, rb, &bufs[1], &r->hcl) ||
        make_typed(b, t, n, NULL, NULL, &bufs[2], &r->hcl))
        goto cleanup;
    vecadd_arg arg = {n, bench_dtype(t), bufs[0], bufs[1], bufs[2]};
    if (run_hcl(b, r, vecadd_submit, &arg, bufs[2], bytes, t, &r->hcl)) goto cleanup;
    if (b->opt->verify && !read_typed(b, t, bufs[2], n, c, &r->hcl)) {
        enum { CHUNK = 2048 };
        double ref[CHUNK], scale[CHUNK], rtol = hcl_ts_bench_rtol(HCL_TS_VECADD, n) + output_rtol(t);
        hcl_ts_cmp cmp;
        hcl_ts_cmp_init(&cmp);
        for (size_t i = 0; i < n; i += CHUNK) {
            size_t len = n - i < CHUNK ? n - i : CHUNK;
            hcl_ts_ref_vecadd(HCL_TS_BENCH, a + i, bb + i, len, ref, scale);
            floor_scale(t, scale, len, rtol);
            hcl_ts_compare(&cmp, c + i, ref, scale, rtol, len);
        }
        note_check(&r->hcl, &cmp, rtol);
        snprintf(r->hcl.check, sizeof r->hcl.check, "all %zu, rel.", n);
    }
    if (want_base(b, BASE_COPY)) copy_base(b, r, bufs[0], bufs[2], ra ? ra : (void *)a, n, e, t);
cleanup:
    release_buffers(bufs, 3);
    free(a), free(bb), free(c), free(ra), free(rb);
}

/* ---------------------------------------------------------------------------------------------------------
 * gemm: C = A * B (row-major, no transpose, alpha 1, beta 0). Error of C[i][j]: |C - ref| / sum_p |A[i][p] B[p][j]|,
 * within min(k + 1, 64) * 2^-23, so that a GEMM that quietly drops to TF32 (a baseline's math mode included) fails
 * instead of being reported as float32, up to k of about 10^4: TF32's error relative to the sum of |a b| falls like
 * 2^-11 / sqrt(k), while float32's stays near 2^-24 at any k, the products of these inputs having mean zero (so the
 * cap of 64 holds at k = 2^20: 1.2e-8 measured). The reference is computed once (every element up to 2^27
 * multiply-adds and 2^24 elements, else 16 whole rows and 16 whole columns) and serves HCL and the baseline.
 * ------------------------------------------------------------------------------------------------------- */
typedef struct gemm_ref {
    size_t nrows, ncols;
    size_t *rows, *cols;
    double *row_ref, *row_scale; /* nrows x n */
    double *col_ref, *col_scale; /* ncols x m */
    int full;
} gemm_ref;

static int gemm_ref_make(bdev *b, const float *A, const float *B, size_t m, size_t n, size_t k, gemm_ref *g,
                         measure *ms) {
    memset(g, 0, sizeof *g);
    /* every element when the reference is cheap in time and in memory (two doubles per element: 2^24 elements is
     * 256 MiB; the skinny set's 8191x8191x1 would take 1 GiB) */
    g->full = (double)m * (double)n * (double)k <= 134217728.0 && (double)m * (double)n <= 16777216.0;
    const size_t samples = 16;
    g->nrows = g->full ? m : (m < samples ? m : samples);
    g->ncols = g->full ? 0 : (n < samples ? n : samples);
    g->rows = host_alloc(g->nrows * sizeof(size_t), ms);
    g->cols = host_alloc((g->ncols ? g->ncols : 1) * sizeof(size_t), ms);
    g->row_ref = host_alloc(g->nrows * n * sizeof(double), ms);
    g->row_scale = host_alloc(g->nrows * n * sizeof(double), ms);
    size_t col_elems = g->ncols * m > 0 ? g->ncols * m : 1;
    g->col_ref = host_alloc(col_elems * sizeof(double), ms);
    g->col_scale = host_alloc(col_elems * sizeof(double), ms);
    float *bcol = host_alloc(k * sizeof(float), ms);
    if (!g->rows || !g->cols || !g->row_ref || !g->row_scale || !g->col_ref || !g->col_scale || !bcol) {
        free(bcol);
        return 1;
    }
    /* the first and the last row and column, and random ones: every tile position in both directions */
    for (size_t s = 0; s < g->nrows; s++)
        g->rows[s] = g->full ? s : s == 0 ? 0 : s == 1 ? m - 1 : (size_t)(hcl_ts_splitmix64(&b->rng) % m);
    for (size_t s = 0; s < g->ncols; s++)
        g->cols[s] = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)(hcl_ts_splitmix64(&b->rng) % n);
    /* the rows on the host's threads when they are much work (an llm row's 16 x 128256 x 4096 multiply-adds: seconds
     * on one core); small ones in this thread */
    progress("%s:%u gemm reference (%zu rows)", b->info.backend, b->info.index, g->nrows);
#pragma omp parallel for schedule(dynamic, 1) if ((double)g->nrows * (double)n * (double)k > 67108864.0)
    for (size_t s = 0; s < g->nrows; s++)
        hcl_ts_ref_gemm(HCL_TS_BENCH, HCL_NO_TRANS, HCL_NO_TRANS, 1, n, k, 1.0f, A + g->rows[s] * k, k, B, n, 0.0f,
                        NULL, n, g->row_ref + s * n, g->row_scale + s * n);
    for (size_t s = 0; s < g->ncols; s++) {
        progress("%s:%u gemm reference (column %zu of %zu)", b->info.backend, b->info.index, s, g->ncols);
        for (size_t p = 0; p < k; p++) /* the column, gathered: read along it m times */
            bcol[p] = B[p * n + g->cols[s]];
        hcl_ts_ref_gemm(HCL_TS_BENCH, HCL_NO_TRANS, HCL_NO_TRANS, m, 1, k, 1.0f, A, k, bcol, 1, 0.0f, NULL, 1,
                        g->col_ref + s * m, g->col_scale + s * m);
    }
    free(bcol);
    return 0;
}

static void gemm_ref_free(gemm_ref *g) {
    free(g->rows), free(g->cols), free(g->row_ref), free(g->row_scale), free(g->col_ref), free(g->col_scale);
}

/* extra_rtol: what the row's type adds (a 16-bit C's rounding; TF32's shortening of both inputs, 2 * 2^-10) */
static void gemm_check(const gemm_ref *g, const float *C, size_t m, size_t n, size_t k, double extra_rtol,
                       measure *ms) {
    double rtol = hcl_ts_bench_rtol(HCL_TS_GEMM, k) + extra_rtol;
    hcl_ts_cmp cmp;
    hcl_ts_cmp_init(&cmp);
    for (size_t s = 0; s < g->nrows; s++)
        hcl_ts_compare(&cmp, C + g->rows[s] * n, g->row_ref + s * n, g->row_scale + s * n, rtol, n);
    for (size_t s = 0; s < g->ncols; s++)
        for (size_t i = 0; i < m; i++)
            hcl_ts_compare(&cmp, &C[i * n + g->cols[s]], &g->col_ref[s * m + i], &g->col_scale[s * m + i], rtol, 1);
    note_check(ms, &cmp, rtol);
    if (g->full)
        snprintf(ms->check, sizeof ms->check, "all %zux%zu", m, n);
    else
        snprintf(ms->check, sizeof ms->check, "%zu rows + %zu cols", g->nrows, g->ncols);
}

typedef struct gemm_arg {
    size_t m, n, k;
    hcl_dtype type;
    hcl_compute compute;
    hcl_buffer a, b, c;
} gemm_arg;

static hcl_status gemm_submit(bdev *b, void *p, hcl_event *ev) {
    gemm_arg *g = p;
    return hcl_gemm(b->queue, HCL_NO_TRANS, HCL_NO_TRANS, g->m, g->n, g->k, 1.0f, g->type, g->a, g->k, g->type, g->b,
                    g->n, 0.0f, g->type, g->c, g->n, g->compute, ev);
}

/* gemm in the row's type: A, B and C of f32 (also TF32), f16 or bf16 (C in the inputs' type, as cuBLAS's HGEMM). */
static void bench_gemm(bdev *b, result *r) {
    const int t = r->type;
    size_t m = r->dims[0], n = r->dims[1], k = r->dims[2];
    r->work = r->base_work = 2.0 * (double)m * (double)n * (double)k;
    r->is_flops = 1;
    float *A = host_alloc(m * k * sizeof(float), &r->hcl), *B = host_alloc(k * n * sizeof(float), &r->hcl),
          *C = host_alloc(m * n * sizeof(float), &r->hcl);
    void *ra = NULL, *rb = NULL;
    hcl_buffer bufs[3] = {NULL, NULL, NULL};
    gemm_ref ref;
    memset(&ref, 0, sizeof ref);
    if (!A || !B || !C) goto cleanup;
    hcl_ts_fill_uniform(&b->rng, A, m * k, -1.0f, 1.0f);
    hcl_ts_fill_uniform(&b->rng, B, k * n, -1.0f, 1.0f);
    if (to_type(t, A, m * k, &ra, &r->hcl) || to_type(t, B, k * n, &rb, &r->hcl) ||
        make_typed(b, t, m * k, A, ra, &bufs[0], &r->hcl) || make_typed(b, t, k * n, B, rb, &bufs[1], &r->hcl) ||
        make_typed(b, t, m * n, NULL, NULL, &bufs[2], &r->hcl))
        goto cleanup;
    const double extra = output_rtol(t) + (t == BT_TF32 ? 0x1p-9 : 0.0);
    gemm_arg arg = {m,       n,       k,      bench_dtype(t), t == BT_TF32 ? HCL_COMPUTE_TF32 : HCL_COMPUTE_F32,
                    bufs[0], bufs[1], bufs[2]};
    if (run_hcl(b, r, gemm_submit, &arg, bufs[2], m * n * esize_of(t), t, &r->hcl)) goto cleanup;
    int have_ref = b->opt->verify && !gemm_ref_make(b, A, B, m, n, k, &ref, &r->hcl);
    if (have_ref) { /* an f16 C below 2^-14 is subnormal: small k (k = 1: one product) reaches there */
        const double rtol = hcl_ts_bench_rtol(HCL_TS_GEMM, k) + extra;
        floor_scale(t, ref.row_scale, ref.nrows * n, rtol);
        floor_scale(t, ref.col_scale, ref.ncols * m, rtol);
    }
    if (have_ref && !read_typed(b, t, bufs[2], m * n, C, &r->hcl)) gemm_check(&ref, C, m, n, k, extra, &r->hcl);
    const int kind = t == BT_F32    ? BASE_GEMM
                     : t == BT_TF32 ? BASE_GEMM_TF32
                     : t == BT_F16  ? BASE_GEMM_F16
                                    : BASE_GEMM_BF16;
    if (want_base(b, kind)) {
        base_ctx x = {.kind = kind, .m = m, .n = n, .k = k, .a = bufs[0], .b = bufs[1], .c = bufs[2]};
        if (!run_base(b, r, &x, bufs[2], m * n * esize_of(t), t) && have_ref &&
            !read_typed(b, t, bufs[2], m * n, C, &r->base))
            gemm_check(&ref, C, m, n, k, extra, &r->base);
    }
cleanup:
    gemm_ref_free(&ref);
    release_buffers(bufs, 3);
    free(A), free(B), free(C), free(ra), free(rb);
}

/* ---------------------------------------------------------------------------------------------------------
 * softmax: inputs in [-8, 8) so no output underflows. Error |out - ref| / ref (ref > 0), within (cols + 32) * 2^-24.
 * Every row up to 2^23 elements, else 64 rows (the first, the last and random ones). Baseline: a copy of the input
 * into the output.
 * ------------------------------------------------------------------------------------------------------- */
typedef struct softmax_arg {
    size_t rows, cols;
    hcl_dtype type;
    hcl_buffer in, out;
} softmax_arg;

static hcl_status softmax_submit(bdev *b, void *p, hcl_event *ev) {
    softmax_arg *s = p;
    return hcl_softmax(b->queue, s->type, s->rows, s->cols, s->in, s->out, ev);
}

static void bench_softmax(bdev *b, result *r) {
    const int t = r->type;
    const size_t rows = r->dims[0], cols = r->dims[1], count = rows * cols, e = esize_of(t), bytes = count * e;
    r->work = r->base_work = 2.0 * (double)e * (double)rows * (double)cols;
    float *in = host_alloc(count * sizeof(float), &r->hcl), *out = host_alloc(count * sizeof(float), &r->hcl);
    void *raw = NULL;
    double *ref = NULL; /* a row's reference and its scales */
    hcl_buffer bufs[2] = {NULL, NULL};
    if (!in || !out) goto cleanup;
    hcl_ts_fill_uniform(&b->rng, in, count, -8.0f, 8.0f);
    if (to_type(t, in, count, &raw, &r->hcl) || make_typed(b, t, count, in, raw, &bufs[0], &r->hcl) ||
        make_typed(b, t, count, NULL, NULL, &bufs[1], &r->hcl))
        goto cleanup;
    softmax_arg arg = {rows, cols, bench_dtype(t), bufs[0], bufs[1]};
    if (run_hcl(b, r, softmax_submit, &arg, bufs[1], bytes, t, &r->hcl)) goto cleanup;
    if (b->opt->verify && !read_typed(b, t, bufs[1], count, out, &r->hcl) &&
        (ref = host_alloc(2 * cols * sizeof(double), &r->hcl))) {
        double rtol = hcl_ts_bench_rtol(HCL_TS_SOFTMAX, cols) + output_rtol(t);
        int full = (double)rows * (double)cols <= 8388608.0;
        size_t nrows = full ? rows : (rows < 64 ? rows : 64);
        hcl_ts_cmp cmp;
        hcl_ts_cmp_init(&cmp);
        for (size_t s = 0; s < nrows; s++) {
            size_t i = full ? s : s == 0 ? 0 : s == 1 ? rows - 1 : (size_t)(hcl_ts_splitmix64(&b->rng) % rows);
            hcl_ts_ref_softmax(HCL_TS_BENCH, in + i * cols, 1, cols, ref, ref + cols);
            floor_scale(t, ref + cols, cols, rtol);
            hcl_ts_compare(&cmp, out + i * cols, ref, ref + cols, rtol, cols);
        }
        note_check(&r->hcl, &cmp, rtol);
        if (full)
            snprintf(r->hcl.check, sizeof r->hcl.check, "all %zux%zu, rel.", rows, cols);
        else
            snprintf(r->hcl.check, sizeof r->hcl.check, "%zu of %zu rows, rel.", nrows, rows);
    }
    if (want_base(b, BASE_COPY)) copy_base(b, r, bufs[0], bufs[1], raw ? raw : (void *)in, count, e, t);
cleanup:
    release_buffers(bufs, 2);
    free(in), free(out), free(ref), free(raw);
}

/* ---------------------------------------------------------------------------------------------------------
 * reduce (sum): inputs in [-1, 1). Error |sum - ref| / sum |x|, within a fixed 1e-6 (the worst-case bound of an
 * arbitrary summation order, (n-1) * 2^-24, is useless at large n). Baseline: CUB's DeviceReduce::Sum where there
 * is one (checked the same way), else a copy of the input.
 * ------------------------------------------------------------------------------------------------------- */
typedef struct reduce_arg {
    size_t n;
    hcl_dtype type;
    hcl_buffer in, out;
} reduce_arg;

static hcl_status reduce_submit(bdev *b, void *p, hcl_event *ev) {
    reduce_arg *s = p;
    return hcl_reduce(b->queue, s->type, HCL_REDUCE_SUM, s->n, s->in, s->out, ev);
}

static void reduce_check(double ref, double scale, float got, measure *m) {
    double rtol = hcl_ts_bench_rtol(HCL_TS_REDUCE, 0);
    hcl_ts_cmp cmp;
    hcl_ts_cmp_init(&cmp);
    hcl_ts_compare(&cmp, &got, &ref, &scale, rtol, 1);
    note_check(m, &cmp, rtol);
    snprintf(m->check, sizeof m->check, "rel. to sum|x|");
}

/* reduce in the row's type (the sum is one float for every type); the baseline of a 16-bit row is a copy of the same
 * bytes (CUB's runs on floats). */
static void bench_reduce(bdev *b, result *r) {
    const int t = r->type;
    const size_t n = r->dims[0], e = esize_of(t);
    r->work = (double)e * (double)n;
    float *in = host_alloc(n * sizeof(float), &r->hcl), out = 0.0f;
    void *raw = NULL;
    hcl_buffer bufs[3] = {NULL, NULL, NULL};
    double ref = 0.0, scale = 0.0;
    if (!in) goto cleanup;
    hcl_ts_fill_uniform(&b->rng, in, n, -1.0f, 1.0f);
    if (to_type(t, in, n, &raw, &r->hcl) || make_typed(b, t, n, in, raw, &bufs[0], &r->hcl) ||
        make_buffer(b, sizeof(float), NULL, &bufs[1], &r->hcl))
        goto cleanup;
    reduce_arg arg = {n, bench_dtype(t), bufs[0], bufs[1]};
    if (run_hcl(b, r, reduce_submit, &arg, bufs[1], sizeof(float), BT_F32, &r->hcl)) goto cleanup;
    if (b->opt->verify) {
        ref = hcl_ts_ref_reduce(HCL_TS_BENCH, HCL_REDUCE_SUM, in, n, &scale);
        if (!read_buffer(b, bufs[1], sizeof(float), &out, &r->hcl)) reduce_check(ref, scale, out, &r->hcl);
    }
    if (t == BT_F32 && want_base(b, BASE_REDUCE)) {
        r->base_work = 4.0 * (double)n;
        base_ctx x = {.kind = BASE_REDUCE, .n = n, .a = bufs[0], .c = bufs[1]};
        if (!run_base(b, r, &x, bufs[1], sizeof(float), BT_F32) && b->opt->verify &&
            !read_buffer(b, bufs[1], sizeof(float), &out, &r->base))
            reduce_check(ref, scale, out, &r->base);
    } else if (want_base(b, BASE_COPY)) {
        r->base_work = 2.0 * (double)e * (double)n;
        if (make_typed(b, t, n, NULL, NULL, &bufs[2], &r->base)) goto cleanup;
        copy_base(b, r, bufs[0], bufs[2], raw ? raw : (void *)in, n, e, t);
    }
cleanup:
    release_buffers(bufs, 3);
    free(in), free(raw);
}

/* ------------------------------------------------------------------------------------------------------- */

void run_case(bdev *b, const bcase *c, result *r) {
    memset(r, 0, sizeof *r);
    r->kernel = c->kernel;
    r->type = c->type;
    r->set = c->set;
    memcpy(r->dims, c->d, sizeof r->dims);
    r->base_kind = -1;
    format_shape(c, r->shape, sizeof r->shape);
    switch (c->kernel) {
    case K_VECADD: bench_vecadd(b, r); break;
    case K_GEMM: bench_gemm(b, r); break;
    case K_SOFTMAX: bench_softmax(b, r); break;
    default: bench_reduce(b, r); break;
    }
    /* a measurement that was never started stays absent; one that started is reported whatever happened */
    if (r->hcl.failed) r->hcl.present = 1;
    /* name the baseline this row would have had, when it is missing */
    if (!r->base.present && b->opt->baselines) {
        const base_info *bases = b->run->bases;
        static const int gemm_kind[BT_COUNT] = {BASE_GEMM, BASE_GEMM_TF32, BASE_GEMM_F16, BASE_GEMM_BF16};
        int kind = c->kernel == K_GEMM                                                           ? gemm_kind[c->type]
                   : c->kernel == K_REDUCE && c->type == BT_F32 && bases[BASE_REDUCE].applicable ? BASE_REDUCE
                                                                                                 : BASE_COPY;
        if (bases[kind].applicable && !bases[kind].available)
            snprintf(r->base.name, sizeof r->base.name, "%.40s: missing", bases[kind].name);
    }
}
