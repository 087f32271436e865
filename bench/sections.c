/* bench's sections beside the kernel table:
 *
 *   transfer  host-to-device and device-to-host bandwidth (as CUDA's bandwidthTest): hcl_buffer_write_async and
 *             hcl_buffer_read_async from pageable memory (malloc) and from page-locked memory (hcl_host_alloc), a
 *             few sizes each, timed by the event each call returns, every copy checked bit for bit;
 *   peak      the device's peaks (as clpeak): its copy rate (the device's copy baseline, else hcl_buffer_copy), its
 *             FMA rate in f32 and f16 from a chain of multiply-adds compiled from source through HCL's module API
 *             (OpenCL C; CUDA C through NVRTC; HIP C through hiprtc, f32 only; a host C function table on the host
 *             driver), every output checked exactly, and the theoretical f32 peak from the clock and units.
 *
 * The FMA chain: each lane runs x = x*a + b with a = 1 and b = 2^-12 from a start x0 in [1, 2.2), so every step is
 * exact in float (x stays below 2^11 with a 2^-12 grid) whether the device fuses or not, and the result, x0 +
 * iters*b, proves the count of steps too. The f16 chain alternates b and -b (2^-10; x stays in [1, 2)): each pair
 * is exact, the result is x0 again. a and b are kernel arguments, so no compiler can fold the chain. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PEAK_X86 1
#include <immintrin.h>
#endif

/* =========================================================================================================
 * Transfer
 * ======================================================================================================= */
typedef struct xfer_ctx {
    hcl_buffer buf;
    void *host; /* source (H2D) or destination (D2H) */
    size_t bytes;
    int dir;
} xfer_ctx;

/* The end of a timed enqueue that returned st and ev: waits for ev, its device time in out_s, and releases it; on
 * failure (no event is one) the status with what in m->error. Returns 1 on failure. */
static int event_time(hcl_status st, hcl_event ev, double *out_s, measure *m, const char *what) {
    if (st == HCL_SUCCESS && !ev) st = HCL_ERROR_VENDOR;
    if (st == HCL_SUCCESS) st = hcl_event_wait(ev);
    if (st == HCL_SUCCESS) st = hcl_event_elapsed(ev, ev, out_s);
    if (ev) hcl_event_release(ev);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(m->error, sizeof m->error, st, "%s", what);
        return 1;
    }
    return 0;
}

static int xfer_one(bdev *b, void *ctx, double *out_s, measure *m) {
    xfer_ctx *x = ctx;
    hcl_event ev = NULL;
    hcl_status st;
    if (x->dir == XFER_D2H) memset(x->host, 0xA5, x->bytes); /* poison: a copy that did not happen fails */
    if (x->dir == XFER_H2D)
        st = hcl_buffer_write_async(b->queue, x->buf, 0, x->bytes, x->host, 0, NULL, &ev);
    else
        st = hcl_buffer_read_async(b->queue, x->buf, 0, x->bytes, x->host, 0, NULL, &ev);
    return event_time(st, ev, out_s, m, x->dir == XFER_H2D ? "hcl_buffer_write_async" : "hcl_buffer_read_async");
}

/* A pattern no copy of other bytes makes: word i holds a mix of i. */
static void fill_pattern(void *p, size_t bytes, uint64_t salt) {
    uint32_t *w = p;
    for (size_t i = 0; i < bytes / 4; i++) w[i] = (uint32_t)((i + salt) * 0x9E3779B97F4A7C15ull >> 32);
}

static void check_same(measure *m, const void *got, const void *want, size_t bytes) {
    m->checked = 1;
    m->tol = 0.0;
    m->err = memcmp(got, want, bytes) ? INFINITY : 0.0;
    snprintf(m->check, sizeof m->check, m->err == 0.0 ? "all %zu bytes, bit-exact" : "%zu bytes: they differ", bytes);
}

static void transfer_size(bdev *b, transfer_result *t, size_t bytes, void *pinned) {
    hcl_buffer buf = NULL;
    unsigned char *src = malloc(bytes), *dst = malloc(bytes);
    hcl_status st = hcl_buffer_create(b->device, bytes, 0, &buf);
    if (!src || !dst || st != HCL_SUCCESS) {
        snprintf(t->error, sizeof t->error, "%zu bytes: %s", bytes,
                 st != HCL_SUCCESS ? hcl_last_message() : "out of host memory");
        goto cleanup;
    }
    for (int mem = 0; mem < XMEM_KINDS; mem++)
        for (int dir = 0; dir < XFER_DIRS && t->nrows < (int)(sizeof t->rows / sizeof t->rows[0]); dir++) {
            transfer_row *row = &t->rows[t->nrows++];
            row->dir = dir, row->mem = mem, row->bytes = bytes;
            unsigned char *host = mem == XMEM_PINNED ? pinned : dir == XFER_H2D ? src : dst;
            fill_pattern(src, bytes, (uint64_t)t->nrows);
            if (dir == XFER_H2D && host != src) memcpy(host, src, bytes);
            if (dir == XFER_D2H && (st = hcl_buffer_write(b->queue, buf, 0, bytes, src)) != HCL_SUCCESS) {
                hcl_ts_status_text(row->m.error, sizeof row->m.error, st, "hcl_buffer_write");
                row->m.failed = 1;
                continue;
            }
            xfer_ctx x = {buf, host, bytes, dir};
            char what[96];
            snprintf(what, sizeof what, "transfer %s %s %zu bytes", dir == XFER_H2D ? "H2D" : "D2H",
                     mem == XMEM_PINNED ? "page-locked" : "pageable", bytes);
            if (run_timed(b, what, xfer_one, &x, dir == XFER_H2D ? buf : NULL, bytes & ~(size_t)3, 0xFFFFFFFFu,
                          &row->m))
                continue;
            if (dir == XFER_H2D) {
                if ((st = hcl_buffer_read(b->queue, buf, 0, bytes, dst)) != HCL_SUCCESS) {
                    hcl_ts_status_text(row->m.error, sizeof row->m.error, st, "hcl_buffer_read (check)");
                    row->m.failed = 1;
                    continue;
                }
                check_same(&row->m, dst, src, bytes);
            } else {
                check_same(&row->m, host, src, bytes);
            }
        }
cleanup:
    if (buf) hcl_buffer_release(buf);
    free(src), free(dst);
}

void measure_transfer(bdev *b, transfer_result *t) {
    static const size_t gpu[] = {1u << 20, 16u << 20, 256u << 20}, cpu[] = {1u << 20, 16u << 20, 128u << 20},
                        quick[] = {64u << 10, 4u << 20};
    measure_transfer_sizes(b, t, b->opt->quick ? quick : b->cpu ? cpu : gpu, b->opt->quick ? 2 : 3);
}

void measure_transfer_sizes(bdev *b, transfer_result *t, const size_t *sizes, int n) {
    memset(t, 0, sizeof *t);
    if (n > XFER_MAX_SIZES) n = XFER_MAX_SIZES;
    while (n > 1 && (sizes[n - 1] > b->info.max_alloc_bytes / 2 || sizes[n - 1] > b->info.global_mem_bytes / 8)) n--;
    size_t largest = sizes[n - 1];
    const char *backend = b->info.backend;
    snprintf(t->pinned_note, sizeof t->pinned_note, "%s",
             !strcmp(backend, "host") || !strcmp(backend, "opencl")
                 ? "hcl_host_alloc: ordinary aligned memory on this backend (no portable pinning)"
                 : "hcl_host_alloc: page-locked (pinned) memory");
    void *pinned = NULL;
    hcl_status st = hcl_host_alloc(b->device, largest, &pinned);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(t->error, sizeof t->error, st, "hcl_host_alloc(%zu)", largest);
        return;
    }
    t->ran = 1;
    for (int i = 0; i < n; i++) transfer_size(b, t, sizes[i], pinned);
    hcl_host_free(b->device, pinned);
}

/* =========================================================================================================
 * Peak: the FMA chain in each form
 * ======================================================================================================= */
/* 8 float4 accumulators a work-item (explicit vectors: a CPU runtime such as PoCL vectorises a loop inside a
 * work-item no other way; a GPU splits them into lanes); out[gid * 32 + 4 * j + l] = lane l of x_j. */
static const char peak_cl_f32[] =
    "__kernel void hcl_bench_peak_f32(__global float *out, float a, float b, int iters) {\n"
    "    size_t g = get_global_id(0);\n"
    "    float4 va = (float4)(a), vb = (float4)(b), x[8];\n"
    "    for (int j = 0; j < 8; j++) x[j] = (float4)(1.0f + (float)(g & 7) * 0.125f + (float)j * 0.0078125f);\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "        x[0] = mad(x[0], va, vb); x[1] = mad(x[1], va, vb); x[2] = mad(x[2], va, vb); x[3] = mad(x[3], va, vb);\n"
    "        x[4] = mad(x[4], va, vb); x[5] = mad(x[5], va, vb); x[6] = mad(x[6], va, vb); x[7] = mad(x[7], va, vb);\n"
    "    }\n"
    "    for (int j = 0; j < 8; j++) vstore4(x[j], g * 8 + j, out);\n"
    "}\n";

/* half2: 8 accumulators a work-item, each step a pair (+b, then +c = -b); out[gid * 8 + j]: x_j's bits. */
static const char peak_cl_f16[] =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "__kernel void hcl_bench_peak_f16(__global uint *out, uint a_bits, uint b_bits, uint c_bits, int iters) {\n"
    "    size_t g = get_global_id(0);\n"
    "    half2 a = as_half2(a_bits), b = as_half2(b_bits), c = as_half2(c_bits), x[8];\n"
    "    for (int j = 0; j < 8; j++) x[j] = as_half2((uint)(0x3C003C00u | (g & 7) << 7 | (g & 7) << 23 | j << 4 |\n"
    "                                                       j << 20));\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < 8; j++) { x[j] = mad(x[j], a, b); x[j] = mad(x[j], a, c); }\n"
    "    }\n"
    "    for (int j = 0; j < 8; j++) out[g * 8 + j] = as_uint(x[j]);\n"
    "}\n";

static const char peak_cuda_f32[] =
    "extern \"C\" __global__ void hcl_bench_peak_f32(float *out, float a, float b, int iters) {\n"
    "    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float x[8];\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < 8; j++) x[j] = 1.0f + (float)(g & 7) * 0.125f + (float)j * 0.0078125f;\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < 8; j++) x[j] = fmaf(x[j], a, b);\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < 8; j++) out[g * 8 + j] = x[j];\n"
    "}\n";

/* f16x2 FMA by inline PTX (sm_53 and newer), so no header is needed. */
static const char peak_cuda_f16[] =
    "extern \"C\" __global__ void hcl_bench_peak_f16(unsigned *out, unsigned a, unsigned b, unsigned c, int iters) {\n"
    "    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    unsigned x[8];\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < 8; j++)\n"
    "        x[j] = 0x3C003C00u | (unsigned)(g & 7) << 7 | (unsigned)(g & 7) << 23 | j << 4 | j << 20;\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < 8; j++) {\n"
    "            asm volatile(\"fma.rn.f16x2 %0, %0, %1, %2;\" : \"+r\"(x[j]) : \"r\"(a), \"r\"(b));\n"
    "            asm volatile(\"fma.rn.f16x2 %0, %0, %1, %2;\" : \"+r\"(x[j]) : \"r\"(a), \"r\"(c));\n"
    "        }\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < 8; j++) out[g * 8 + j] = x[j];\n"
    "}\n";

/* The host: one work-group a thread; 12 vector accumulators in registers, FMA where the CPU has it (chosen at run
 * time: bench is built for the baseline ISA). */
#define PEAK_HOST_ACC 12
#define REP12(S, V) S(0, V) S(1, V) S(2, V) S(3, V) S(4, V) S(5, V) S(6, V) S(7, V) S(8, V) S(9, V) S(10, V) S(11, V)
static float peak_x0(size_t group, int j) { return 1.0f + (float)(group & 7) * 0.125f + (float)j * 0.0078125f; }

#if defined(PEAK_X86)
/* One function per vector width V (256 or 512 bits: the __mV type, its _mmV_ intrinsics, V / 32 lanes), the 12
 * accumulators named x0..x11 (separate variables, so they stay in registers). */
#define P_INIT(j, V) __m##V x##j = _mm##V##_set1_ps(peak_x0(g, j));
#define P_STEP(j, V) x##j = _mm##V##_fmadd_ps(x##j, va, vb);
#define P_STORE(j, V) _mm##V##_storeu_ps(out + (V) / 32 * (j), x##j);
#define PEAK_SIMD(NAME, TARGET, V)                                                                                     \
    __attribute__((target(TARGET))) static void NAME(float *out, size_t g, float a, float b, int iters) {              \
        const __m##V va = _mm##V##_set1_ps(a), vb = _mm##V##_set1_ps(b);                                               \
        REP12(P_INIT, V)                                                                                               \
        for (int i = 0; i < iters; i++) {                                                                              \
            REP12(P_STEP, V)                                                                                           \
        }                                                                                                              \
        REP12(P_STORE, V)                                                                                              \
    }
PEAK_SIMD(peak_avx512, "avx512f,fma", 512)
PEAK_SIMD(peak_avx2, "avx2,fma", 256)
#endif

/* No FMA: a multiply and an add, 4 lanes each (what the compiler makes of it). */
static void peak_plain(float *out, size_t g, float a, float b, int iters) {
    float x[PEAK_HOST_ACC][4];
    for (int j = 0; j < PEAK_HOST_ACC; j++)
        for (int l = 0; l < 4; l++) x[j][l] = peak_x0(g, j);
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < PEAK_HOST_ACC; j++)
            for (int l = 0; l < 4; l++) x[j][l] = x[j][l] * a + b;
    for (int j = 0; j < PEAK_HOST_ACC; j++)
        for (int l = 0; l < 4; l++) out[4 * j + l] = x[j][l];
}

typedef void (*peak_host_fn)(float *out, size_t g, float a, float b, int iters);
static struct {
    peak_host_fn fn;
    int width; /* lanes of one accumulator */
    const char *name;
} peak_host;

static void peak_host_pick(void) {
    peak_host.fn = peak_plain, peak_host.width = 4, peak_host.name = "host C, mul + add, 4 lanes";
#if defined(PEAK_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
        peak_host.fn = peak_avx512, peak_host.width = 16, peak_host.name = "host C, AVX-512 FMA";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        peak_host.fn = peak_avx2, peak_host.width = 8, peak_host.name = "host C, AVX2 FMA";
#endif
}

/* args: out, a, b, iters; the group's lanes are out[group * lanes ...]. */
static void peak_host_kernel(const hcl_host_launch *l, void *const *args) {
    float *out = *(float *const *)args[0];
    const float a = *(const float *)args[1], b = *(const float *)args[2];
    const int iters = *(const int *)args[3];
    const size_t g = l->group_id.x, lanes = (size_t)peak_host.width * PEAK_HOST_ACC;
    peak_host.fn(out + g * lanes, g, a, b, iters);
}

/* =========================================================================================================
 * Peak: running a chain
 * ======================================================================================================= */
typedef struct peak_ctx {
    hcl_kernel kernel;
    hcl_dim3 grid, block;
    int f16;
    hcl_buffer out;
    int iters;
} peak_ctx;

static int peak_one(bdev *b, void *ctx, double *out_s, measure *m) {
    peak_ctx *p = ctx;
    const float a = 1.0f, bb = 0x1p-12f;
    const uint32_t ha = 0x3C003C00u, hb = 0x14001400u, hc = 0x94009400u; /* half2 (1, 1), (2^-10, ..), (-2^-10, ..) */
    hcl_arg args[5];
    uint32_t n = 0;
    args[n++] = hcl_arg_buffer(p->out);
    if (p->f16) {
        args[n++] = hcl_arg_value(&ha, 4), args[n++] = hcl_arg_value(&hb, 4), args[n++] = hcl_arg_value(&hc, 4);
    } else {
        args[n++] = hcl_arg_value(&a, 4), args[n++] = hcl_arg_value(&bb, 4);
    }
    args[n++] = hcl_arg_value(&p->iters, sizeof p->iters);
    hcl_event ev = NULL;
    hcl_status st = hcl_kernel_launch(b->queue, p->kernel, p->grid, p->block, 0, n, args, 0, NULL, &ev);
    return event_time(st, ev, out_s, m, "hcl_kernel_launch (FMA chain)");
}

/* Every output exactly as the chain must leave it. per_item: outputs of one work-item (host: one group), in
 * accumulators of acc_width lanes. */
static void peak_check(bdev *b, peak_ctx *p, size_t outputs, size_t per_item, int acc_width, measure *m) {
    uint32_t *got = malloc(outputs * 4);
    hcl_status st = got ? hcl_buffer_read(b->queue, p->out, 0, outputs * 4, got) : HCL_ERROR_OUT_OF_MEMORY;
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(m->error, sizeof m->error, st, "reading the FMA chain's output");
        m->failed = 1;
        free(got);
        return;
    }
    size_t bad = 0;
    for (size_t i = 0; i < outputs; i++) {
        size_t g = i / per_item;
        int j = (int)(i % per_item / (size_t)acc_width);
        if (p->f16) {
            uint32_t want =
                0x3C003C00u | (uint32_t)(g & 7) << 7 | (uint32_t)(g & 7) << 23 | (uint32_t)j << 4 | (uint32_t)j << 20;
            bad += got[i] != want;
        } else {
            float f, want = peak_x0(g, j) + (float)p->iters * 0x1p-12f;
            memcpy(&f, &got[i], 4);
            bad += f != want;
        }
    }
    m->checked = 1;
    m->tol = 0.0;
    m->err = bad ? INFINITY : 0.0;
    snprintf(m->check, sizeof m->check, bad ? "%zu of %zu outputs differ" : "all %zu outputs exact",
             bad ? bad : outputs, outputs);
    free(got);
}

/* Build `kernel` from the sources, size the launch, find an iteration count that takes about `target_s`, time it,
 * check it. */
static void peak_chain(bdev *b, peak_rate *pr, const hcl_module_source *srcs, uint32_t nsrcs, const char *kernel,
                       int f16, int host, size_t acc_width) {
    hcl_module mod = NULL;
    peak_ctx p = {0};
    p.f16 = f16;
    hcl_status st = hcl_module_create(b->device, srcs, nsrcs, &mod);
    if (st == HCL_ERROR_UNSUPPORTED) {
        snprintf(pr->skipped, sizeof pr->skipped, "no FMA-chain source in bench that backend %s takes",
                 b->info.backend);
        return;
    }
    if (st == HCL_SUCCESS) st = hcl_kernel_create(mod, kernel, &p.kernel);
    size_t per_item = 8 * acc_width, items; /* outputs of a work-item: 8 accumulators of acc_width lanes */
    uint32_t block = b->info.max_work_group_size >= 256 ? 256 : (uint32_t)b->info.max_work_group_size;
    if (host) {
        int threads = host_threads(NULL, 0);
        per_item = (size_t)peak_host.width * PEAK_HOST_ACC;
        acc_width = (size_t)peak_host.width;
        p.grid = (hcl_dim3){(uint32_t)threads, 1, 1}, p.block = (hcl_dim3){1, 1, 1};
        items = (size_t)threads;
    } else {
        if (!block) block = 1;
        uint32_t groups = (b->info.compute_units ? b->info.compute_units : 1) * (b->cpu ? 4 : 16);
        p.grid = (hcl_dim3){groups, 1, 1}, p.block = (hcl_dim3){block, 1, 1};
        items = (size_t)groups * block;
    }
    const size_t outputs = items * per_item;
    if (st == HCL_SUCCESS) st = hcl_buffer_create(b->device, outputs * 4, 0, &p.out);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(pr->m.error, sizeof pr->m.error, st, "building or setting up %s", kernel);
        pr->m.failed = 1;
        pr->m.present = 1;
        goto cleanup;
    }
    /* calibrate: double the steps until a run takes target_s (the count stays far below the exact range) */
    const double target_s = b->opt->quick ? 0.005 : b->cpu ? 0.05 : 0.02;
    p.iters = 64;
    for (;;) {
        double s = 0.0;
        if (peak_one(b, &p, &s, &pr->m)) {
            pr->m.failed = 1;
            pr->m.present = 1;
            goto cleanup;
        }
        if (s >= target_s || p.iters >= (1 << 20)) break;
        int scale = s > 0 ? (int)fmin(16.0, ceil(target_s / s)) : 16;
        p.iters *= scale < 2 ? 2 : scale;
        if (p.iters > (1 << 20)) p.iters = 1 << 20;
    }
    /* flops: 2 per FMA per lane; f16: two half2 FMAs a step (4 lanes) */
    pr->work = (double)outputs * p.iters * (f16 ? 8.0 : 2.0);
    if (host) pr->work = (double)outputs * p.iters * 2.0;
    char what[96];
    snprintf(what, sizeof what, "peak %s (%d steps)", f16 ? "f16" : "f32", p.iters);
    if (run_timed(b, what, peak_one, &p, p.out, outputs * 4, 0xFFFFFFFFu, &pr->m)) goto cleanup;
    pr->ran = 1;
    peak_check(b, &p, outputs, per_item, (int)acc_width, &pr->m);
cleanup:
    if (p.out) hcl_buffer_release(p.out);
    if (p.kernel) hcl_kernel_release(p.kernel);
    if (mod) hcl_module_release(mod);
}

/* The copy rate: the device's copy baseline where it has one, else hcl_buffer_copy (device time of its event). */
typedef struct copy_ctx {
    hcl_buffer src, dst;
    size_t bytes;
} copy_ctx;

static int copy_one(bdev *b, void *ctx, double *out_s, measure *m) {
    copy_ctx *c = ctx;
    if (b->opt->baselines && b->run->bases[BASE_COPY].available)
        return base_copy_run(b, c->src, c->dst, c->bytes, out_s, m);
    hcl_event ev = NULL;
    hcl_status st = hcl_buffer_copy_async(b->queue, c->dst, 0, c->src, 0, c->bytes, 0, NULL, &ev);
    return event_time(st, ev, out_s, m, "hcl_buffer_copy_async");
}

static void peak_copy(bdev *b, peak_rate *pr) {
    size_t bytes = b->opt->quick ? (8u << 20) : b->cpu ? (128u << 20) : (512u << 20);
    while (bytes > (1u << 20) && (bytes > b->info.max_alloc_bytes / 2 || bytes > b->info.global_mem_bytes / 8))
        bytes /= 2;
    copy_ctx c = {NULL, NULL, bytes};
    unsigned char *src = malloc(bytes), *got = malloc(bytes);
    const int base = b->opt->baselines && b->run->bases[BASE_COPY].available;
    snprintf(pr->kernel, sizeof pr->kernel, "%s", base ? b->run->bases[BASE_COPY].name : "hcl_buffer_copy");
    snprintf(pr->m.name, sizeof pr->m.name, "%s", pr->kernel);
    hcl_status st = src && got ? HCL_SUCCESS : HCL_ERROR_OUT_OF_MEMORY;
    if (st == HCL_SUCCESS) st = hcl_buffer_create(b->device, bytes, 0, &c.src);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(b->device, bytes, 0, &c.dst);
    if (st == HCL_SUCCESS) fill_pattern(src, bytes, 7);
    if (st == HCL_SUCCESS) st = hcl_buffer_write(b->queue, c.src, 0, bytes, src);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(pr->m.error, sizeof pr->m.error, st, "setting up the copy (%zu bytes)", bytes);
        pr->m.failed = pr->m.present = 1;
        goto cleanup;
    }
    pr->work = 2.0 * (double)bytes;
    settle_cpu(b);
    if (run_timed(b, "peak copy", copy_one, &c, c.dst, bytes, 0xFFFFFFFFu, &pr->m)) goto cleanup;
    settle_cpu(b);
    pr->ran = 1;
    if ((st = hcl_buffer_read(b->queue, c.dst, 0, bytes, got)) != HCL_SUCCESS) {
        hcl_ts_status_text(pr->m.error, sizeof pr->m.error, st, "reading the copy");
        pr->m.failed = 1;
        goto cleanup;
    }
    check_same(&pr->m, got, src, bytes);
cleanup:
    if (c.src) hcl_buffer_release(c.src);
    if (c.dst) hcl_buffer_release(c.dst);
    free(src), free(got);
}

void measure_peak(bdev *b, peak_result *p) {
    memset(p, 0, sizeof *p);
    p->ran = 1;
    const char *be = b->info.backend;
    const int host = !strcmp(be, "host");
    p->theoretical_gflops = theoretical_fp32(&b->info, p->theoretical_how, sizeof p->theoretical_how);
    peak_copy(b, &p->copy);
    if (host) peak_host_pick();
    static const hcl_host_function host_fn[] = {{"hcl_bench_peak_f32", peak_host_kernel}};
    hcl_module_source f32[5] = {
        {HCL_SOURCE_OPENCL_C, peak_cl_f32, strlen(peak_cl_f32), NULL},
        {HCL_SOURCE_CUDA_C, peak_cuda_f32, strlen(peak_cuda_f32), NULL},
        {HCL_SOURCE_HIP_C, peak_cuda_f32, strlen(peak_cuda_f32), NULL}, /* HIP takes CUDA's syntax here */
        {HCL_SOURCE_HOST_TABLE, host_fn, 1, NULL},
    };
    const uint32_t nf32 = bench_vulkan_source(&f32[4]) ? 5 : 4;
    snprintf(p->fp32.kernel, sizeof p->fp32.kernel, "%s",
             host                    ? peak_host.name
             : !strcmp(be, "cuda")   ? "CUDA C fmaf (NVRTC)"
             : !strcmp(be, "hip")    ? "HIP C fmaf (hiprtc)"
             : !strcmp(be, "opencl") ? "OpenCL C mad, float4"
             : !strcmp(be, "vulkan") ? "GLSL fma, vec4 (SPIR-V)"
                                     : "the form the backend takes");
    snprintf(p->fp32.m.name, sizeof p->fp32.m.name, "fp32");
    peak_chain(b, &p->fp32, f32, nf32, "hcl_bench_peak_f32", 0, host,
               !strcmp(be, "opencl") || !strcmp(be, "vulkan") ? 4 : 1);

    snprintf(p->fp16.m.name, sizeof p->fp16.m.name, "fp16");
    if (host) {
        snprintf(p->fp16.skipped, sizeof p->fp16.skipped,
                 "the host driver computes f16 in f32 (no f16 arithmetic path in bench for the CPU)");
    } else if (!strcmp(be, "cuda")) {
        snprintf(p->fp16.kernel, sizeof p->fp16.kernel, "CUDA C fma.rn.f16x2 (NVRTC)");
        const hcl_module_source s = {HCL_SOURCE_CUDA_C, peak_cuda_f16, strlen(peak_cuda_f16), NULL};
        peak_chain(b, &p->fp16, &s, 1, "hcl_bench_peak_f16", 1, 0, 1);
    } else if (!strcmp(be, "opencl") && b->info.has_fp16) {
        snprintf(p->fp16.kernel, sizeof p->fp16.kernel, "OpenCL C mad, half2");
        const hcl_module_source s = {HCL_SOURCE_OPENCL_C, peak_cl_f16, strlen(peak_cl_f16), NULL};
        peak_chain(b, &p->fp16, &s, 1, "hcl_bench_peak_f16", 1, 0, 1);
    } else if (!strcmp(be, "opencl")) {
        snprintf(p->fp16.skipped, sizeof p->fp16.skipped, "the device has no f16 arithmetic (no cl_khr_fp16)");
    } else {
        snprintf(p->fp16.skipped, sizeof p->fp16.skipped, "bench has no f16 FMA-chain source for backend %s", be);
    }
}
