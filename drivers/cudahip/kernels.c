/* Built-in kernels: loaded per device on first use from the embedded binary (CUDA: a fatbin with SASS for
 * sm_75..sm_90 and PTX for newer GPUs; HIP: a code-object bundle for the gfx targets the build had), or, when the
 * build had no nvcc / hipcc, when the binary does not load on this GPU, or when HCL_CUDA_BUILTINS=nvrtc /
 * HCL_HIP_BUILTINS=hiprtc, from the embedded sources compiled by the run-time compiler for the device (cached on
 * disk). Then the launch shapes. Shared by the CUDA and HIP drivers (gpu.h); the one shape that depends on the
 * warp width (the softmax warp kernels) takes it from the device. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HCL_GPU_HAVE_BUILTIN_BINARY
extern const unsigned char hcl_gpu_builtins_binary[]; /* the fatbin / the code-object bundle */
extern const size_t hcl_gpu_builtins_binary_size;
#endif

static const char *const g_fn_names[HCL_GPU_FN_COUNT] = {
    [HCL_GPU_FN_VECADD] = "hcl_vecadd_f32",
    [HCL_GPU_FN_GEMM_128_NN] = "hcl_gemm_f32_128_nn",
    [HCL_GPU_FN_GEMM_128_NT] = "hcl_gemm_f32_128_nt",
    [HCL_GPU_FN_GEMM_128_TN] = "hcl_gemm_f32_128_tn",
    [HCL_GPU_FN_GEMM_128_TT] = "hcl_gemm_f32_128_tt",
    [HCL_GPU_FN_GEMM_64_NN] = "hcl_gemm_f32_64_nn",
    [HCL_GPU_FN_GEMM_64_NT] = "hcl_gemm_f32_64_nt",
    [HCL_GPU_FN_GEMM_64_TN] = "hcl_gemm_f32_64_tn",
    [HCL_GPU_FN_GEMM_64_TT] = "hcl_gemm_f32_64_tt",
    [HCL_GPU_FN_GEMM_SCALE] = "hcl_gemm_scale_f32",
    [HCL_GPU_FN_SOFTMAX_WARP1] = "hcl_softmax_warp1_f32",
    [HCL_GPU_FN_SOFTMAX_WARP2] = "hcl_softmax_warp2_f32",
    [HCL_GPU_FN_SOFTMAX_WARP4] = "hcl_softmax_warp4_f32",
    [HCL_GPU_FN_SOFTMAX_WARP8] = "hcl_softmax_warp8_f32",
    [HCL_GPU_FN_SOFTMAX_WARP16] = "hcl_softmax_warp16_f32",
    [HCL_GPU_FN_SOFTMAX_WARP32] = "hcl_softmax_warp32_f32",
    [HCL_GPU_FN_SOFTMAX_BLOCK_STAGED] = "hcl_softmax_block_staged_f32",
    [HCL_GPU_FN_SOFTMAX_BLOCK] = "hcl_softmax_block_f32",
    [HCL_GPU_FN_REDUCE_SUM] = "hcl_reduce_sum_f32",
    [HCL_GPU_FN_REDUCE_MAX] = "hcl_reduce_max_f32",
    [HCL_GPU_FN_REDUCE_MIN] = "hcl_reduce_min_f32",
    [HCL_GPU_FN_FILL] = "hcl_fill_u64",
};

/* Shapes the kernels were written for (kernels/<name>/<name>.cu). */
#define REDUCE_THREADS 256
#define REDUCE_MAX_BLOCKS 1024
#define REDUCE_SCRATCH_BYTES (REDUCE_MAX_BLOCKS * sizeof(float) + 256) /* partials, then the ticket */
#define GEMM_THREADS 256
#define SOFTMAX_WARP_THREADS 256 /* 8 rows per block at 32 lanes, 4 at 64 */
#define SOFTMAX_MAX_COLS 0x7fffffffu

#ifdef HCL_GPU_HAVE_BUILTIN_BINARY
/* "sm_90" / "gfx90a:sramecc+:xnack-", for messages */
static const char *arch_label(const hcl__gpu_device *d, char *buf, size_t size) {
#if HCL_GPU_CUDA
    snprintf(buf, size, "sm_%d%d", d->cc_major, d->cc_minor);
#else
    snprintf(buf, size, "%.80s", d->arch[0] ? d->arch : "unknown gfx target");
#endif
    return buf;
}
#endif

static hcl_status compile_builtins(hcl__gpu_device *d, hcl_gpu_module *out_module) {
    hcl__gpu_rtc_job job;
    hcl__gpu_builtins_job(&job);
    job.driver_version = hcl__gpu_driver_version;
    hcl__gpu_rtc_job_target(d, &job);
    void *image = NULL;
    size_t size = 0;
    int is_binary = 0;
    hcl_status st = hcl__gpu_rtc_compile(&job, &image, &size, &is_binary);
    if (st != HCL_SUCCESS) return st;
#if HCL_GPU_CUDA
    st = hcl__gpu_module_load(image, is_binary ? "the built-ins' CUBIN from NVRTC" : "the built-ins' PTX from NVRTC",
                              out_module);
#else
    st = hcl__gpu_module_load(image, "the built-ins' code object from hiprtc", out_module);
#endif
    free(image);
    return st;
}

static hcl_status load_locked(hcl__gpu_device *d) {
    const char *force = getenv(HCL_GPU_BUILTINS_ENV);
    int want_rtc = force && strcmp(force, HCL_GPU_BUILTINS_RTC) == 0;
    hcl_status st = HCL_ERROR_INTERNAL;
    hcl_gpu_module mod = NULL;
    const char *from = HCL_GPU_BUILTINS_RTC;
    hcl_status binary_status = HCL_SUCCESS;
    char binary_failure[1024] = "";
    (void)binary_status;
#ifdef HCL_GPU_HAVE_BUILTIN_BINARY
    if (!want_rtc) {
        char arch[96];
        /* a fatbin header wants 8-byte alignment; the x86-64 ABI gives large arrays 16, but do not rely on it */
        void *copy = NULL;
        const void *image = hcl_gpu_builtins_binary;
        if ((uintptr_t)image % 8 != 0) {
            if (!(copy = malloc(hcl_gpu_builtins_binary_size))) return hcl__gpu_oom("built-in binary copy");
            memcpy(copy, hcl_gpu_builtins_binary, hcl_gpu_builtins_binary_size);
            image = copy;
        }
        st = hcl__gpu_module_load(image, "the built-in kernels' " HCL_GPU_BUILTIN_BINARY_NAME, &mod);
        free(copy);
        if (st == HCL_SUCCESS) {
            from = HCL_GPU_BUILTIN_BINARY_NAME;
        } else {
            binary_status = st;
            snprintf(binary_failure, sizeof binary_failure, "%s", hcl__gpu_last_failure());
            HCL_GPU_LOG("device %u (%s): the built-in %s did not load (%s); compiling the sources with %s", d->index,
                        arch_label(d, arch, sizeof arch), HCL_GPU_BUILTIN_BINARY_NAME, binary_failure,
                        HCL_GPU_RTC_NAME);
        }
    }
#else
    (void)want_rtc;
#endif
    if (!mod && (st = compile_builtins(d, &mod)) != HCL_SUCCESS) {
        /* the compiler absent: the binary's failure is the cause worth reporting */
        if (st == HCL_ERROR_UNSUPPORTED && binary_status != HCL_SUCCESS)
            return hcl__gpu_host->set_message(binary_status, "%s; and %s, to compile the built-ins instead: %s",
                                              binary_failure, HCL_GPU_RTC_NAME, hcl__gpu_rtc_reason());
        return st;
    }
    for (int i = 0; i < HCL_GPU_FN_COUNT; i++) {
        st = HCL_GPU(ModuleGetFunction, (&d->fn[i], mod, g_fn_names[i]), "built-in kernel '%s' (from %s)",
                     g_fn_names[i], from);
        if (st != HCL_SUCCESS) {
            hcl__gpu.HCL_GPU_SYM_ModuleUnload(mod);
            memset(d->fn, 0, sizeof d->fn);
            return st;
        }
    }
    d->builtins = mod;
    d->builtins_from = from;
    HCL_GPU_LOG("device %u: built-in kernels loaded from %s", d->index, from);
    return HCL_SUCCESS;
}

hcl_status hcl__gpu_builtins_get(hcl__gpu_device *d) {
    pthread_mutex_lock(&d->lock);
    hcl_status st = d->builtins ? HCL_SUCCESS : load_locked(d);
    pthread_mutex_unlock(&d->lock);
    return st;
}

void hcl__gpu_builtins_release(hcl__gpu_device *d) {
    pthread_mutex_lock(&d->lock);
    if (d->builtins) hcl__gpu.HCL_GPU_SYM_ModuleUnload(d->builtins);
    d->builtins = NULL;
    memset(d->fn, 0, sizeof d->fn);
    pthread_mutex_unlock(&d->lock);
}

static unsigned int min_u(unsigned long long a, unsigned long long b) { return (unsigned int)(a < b ? a : b); }
static unsigned long long ceil_div(unsigned long long a, unsigned long long b) { return (a + b - 1) / b; }

/* Blocks for a grid-stride loop over `items` with `threads` per block: enough to fill the GPU several times. */
static unsigned int stride_blocks(const hcl__gpu_device *d, unsigned long long items, unsigned int threads) {
    unsigned long long want = ceil_div(items, threads);
    unsigned long long cap = (unsigned long long)(d->sm_count > 0 ? d->sm_count : 1) * 32;
    unsigned int b = min_u(want, cap);
    return b ? b : 1;
}

static hcl_status launch(hcl__gpu_queue *q, int fn, unsigned int gx, unsigned int gy, unsigned int threads,
                         unsigned int smem, void **params, const char *detail) {
    return HCL_GPU(LaunchKernel, (q->dev->fn[fn], gx, gy, 1, threads, 1, 1, smem, q->stream, params, NULL),
                   "built-in '%s' grid (%u, %u) block %u shared %u: %s", g_fn_names[fn], gx, gy, threads, smem,
                   detail);
}

hcl_status hcl__gpu_builtins_prepare(hcl__gpu_queue *q, int need_scratch) {
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(q->dev, &scope);
    if (st != HCL_SUCCESS) return st;
    st = hcl__gpu_builtins_get(q->dev);
    if (st == HCL_SUCCESS && need_scratch && !q->scratch) {
        st = HCL_GPU(MemAlloc, (&q->scratch, REDUCE_SCRATCH_BYTES), "reduce scratch, size=%zu",
                     (size_t)REDUCE_SCRATCH_BYTES);
        /* stream-ordered, so it lands before any reduction on this queue */
        if (st == HCL_SUCCESS)
            st = HCL_GPU(MemsetD32Async,
                         (HCL_GPU_DPTR_ADD(q->scratch, REDUCE_MAX_BLOCKS * sizeof(float)), 0, 1, q->stream),
                         "clearing the reduce ticket");
        if (st != HCL_SUCCESS && q->scratch) {
            hcl__gpu.HCL_GPU_SYM_MemFree(q->scratch);
            q->scratch = 0;
        }
    }
    hcl__gpu_leave(&scope);
    return st;
}

/* Begin a built-in command. The one-time work (loading the module, the reduce scratch) comes before the begin
 * event, so it never shows in a command's device time. */
static hcl_status builtin_begin(hcl__gpu_cmd *cmd, void *queue, int need_scratch, void **out_event) {
    hcl_status st = hcl__gpu_builtins_prepare(queue, need_scratch);
    if (st != HCL_SUCCESS) return st;
    return hcl__gpu_cmd_begin(cmd, queue, 0, NULL, out_event);
}

hcl_status hcl__gpu_fill_kernel(hcl__gpu_queue *q, hcl_gpu_dptr dst, size_t size, const void *pattern,
                                size_t pattern_size) {
    hcl_status st = hcl__gpu_builtins_get(q->dev);
    if (st != HCL_SUCCESS) return st;
    struct {
        unsigned long long w[16];
    } pat;
    memset(&pat, 0, sizeof pat);
    memcpy(pat.w, pattern, pattern_size); /* 8..128 bytes, a power of two */
    unsigned long long count = size / 8;
    unsigned int words = (unsigned int)(pattern_size / 8);
    void *params[] = {&dst, &count, &pat, &words};
    char detail[96];
    snprintf(detail, sizeof detail, "size=%zu pattern_size=%zu", size, pattern_size);
    return launch(q, HCL_GPU_FN_FILL, stride_blocks(q->dev, count, 256), 1, 256, 0, params, detail);
}

hcl_status hcl__gpu_vecadd_f32(void *queue, size_t n, void *a, void *b, void *c, void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = builtin_begin(&cmd, queue, 0, out_event);
    if (st != HCL_SUCCESS) return st;
    hcl_gpu_dptr pa = hcl__gpu_ptr(a), pb = hcl__gpu_ptr(b), pc = hcl__gpu_ptr(c);
    unsigned long long nn = n;
    void *params[] = {&pa, &pb, &pc, &nn};
    char detail[64];
    snprintf(detail, sizeof detail, "n=%zu", n);
    st = launch(cmd.q, HCL_GPU_FN_VECADD, stride_blocks(cmd.q->dev, ceil_div(nn, 4), 256), 1, 256, 0, params,
                detail);
    return hcl__gpu_cmd_end(&cmd, st, 0, "vecadd", out_event);
}

hcl_status hcl__gpu_gemm_f32(void *queue, const hcl_gemm_args *g, void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = builtin_begin(&cmd, queue, 0, out_event);
    if (st != HCL_SUCCESS) return st;
    const hcl__gpu_device *d = cmd.q->dev;
    unsigned long long m = g->m, n = g->n, k = g->k, lda = g->lda, ldb = g->ldb, ldc = g->ldc;
    float alpha = g->alpha, beta = g->beta;
    hcl_gpu_dptr pa = hcl__gpu_ptr(g->a), pb = hcl__gpu_ptr(g->b), pc = hcl__gpu_ptr(g->c);
    char detail[160];
    snprintf(detail, sizeof detail, "m=%zu n=%zu k=%zu trans_a=%d trans_b=%d lda=%zu ldb=%zu ldc=%zu", g->m, g->n,
             g->k, (int)g->trans_a, (int)g->trans_b, g->lda, g->ldb, g->ldc);
    if (k == 0 || alpha == 0.0f) {
        /* C = beta * C without reading A or B (BLAS: NaN or Inf in them must not reach C) */
        void *params[] = {&m, &n, &beta, &pc, &ldc};
        st = launch(cmd.q, HCL_GPU_FN_GEMM_SCALE, stride_blocks(d, m * n, 256), 1, 256, 0, params, detail);
    } else {
        unsigned long long tiles128 = ceil_div(m, 128) * ceil_div(n, 128);
        int big = tiles128 >= 2ull * (unsigned long long)(d->sm_count > 0 ? d->sm_count : 1);
        unsigned int tile = big ? 128 : 64;
        int fn = (big ? HCL_GPU_FN_GEMM_128_NN : HCL_GPU_FN_GEMM_64_NN) + (g->trans_a == HCL_TRANS) * 2 +
                 (g->trans_b == HCL_TRANS);
        /* the kernel strides over tiles, so the grid may be capped at the device limits */
        unsigned int gx = min_u(ceil_div(n, tile), d->max_grid[0] > 0 ? (unsigned)d->max_grid[0] : 65535u);
        unsigned int gy = min_u(ceil_div(m, tile), d->max_grid[1] > 0 ? (unsigned)d->max_grid[1] : 65535u);
        void *params[] = {&m, &n, &k, &alpha, &pa, &lda, &pb, &ldb, &beta, &pc, &ldc};
        st = launch(cmd.q, fn, gx, gy, GEMM_THREADS, 0, params, detail);
    }
    return hcl__gpu_cmd_end(&cmd, st, 0, "gemm", out_event);
}

/* Threads per row for the block softmax: about 8 to 32 elements each. */
static unsigned int softmax_block_threads(size_t cols) {
    unsigned int t = 128;
    while (t < 1024 && (size_t)t * 8 < cols) t *= 2;
    return t;
}

hcl_status hcl__gpu_softmax_f32(void *queue, size_t rows, size_t cols, void *in, void *out, void **out_event) {
    if (cols > SOFTMAX_MAX_COLS)
        return hcl__gpu_host->set_message(HCL_ERROR_UNSUPPORTED, "%s: softmax rows of %zu columns (above %u)",
                                          HCL_GPU_NAME, cols, SOFTMAX_MAX_COLS);
    hcl__gpu_cmd cmd;
    hcl_status st = builtin_begin(&cmd, queue, 0, out_event);
    if (st != HCL_SUCCESS) return st;
    const hcl__gpu_device *d = cmd.q->dev;
    hcl_gpu_dptr pi = hcl__gpu_ptr(in), po = hcl__gpu_ptr(out);
    unsigned long long r = rows;
    unsigned int c = (unsigned int)cols;
    void *params[] = {&pi, &po, &r, &c};
    char detail[96];
    snprintf(detail, sizeof detail, "rows=%zu cols=%zu", rows, cols);
    unsigned int max_gx = d->max_grid[0] > 0 ? (unsigned)d->max_grid[0] : 65535u;
    /* A warp kernel holds V values per lane, V * wave columns per row, wave rows per 256-thread block; `wave` is
     * the device's warp / wavefront width (32 on NVIDIA, 64 or 32 on AMD), which the kernel sees as warpSize. */
    const unsigned int wave = d->wave;
    if (cols <= 32ull * wave) {
        int fn = HCL_GPU_FN_SOFTMAX_WARP1;
        for (size_t v = 1; v * wave < cols; v *= 2) fn++;
        unsigned int gx = min_u(ceil_div(rows, SOFTMAX_WARP_THREADS / wave), max_gx);
        st = launch(cmd.q, fn, gx, 1, SOFTMAX_WARP_THREADS, 0, params, detail);
    } else {
        /* stage the row in shared memory only when it fits the default limit with room for the kernel's own */
        int staged = cols * sizeof(float) + 1024 <= (size_t)d->smem_default;
        unsigned int gx = min_u(rows, max_gx);
        st = launch(cmd.q, staged ? HCL_GPU_FN_SOFTMAX_BLOCK_STAGED : HCL_GPU_FN_SOFTMAX_BLOCK, gx, 1,
                    softmax_block_threads(cols), staged ? (unsigned int)(cols * sizeof(float)) : 0, params, detail);
    }
    return hcl__gpu_cmd_end(&cmd, st, 0, "softmax", out_event);
}

hcl_status hcl__gpu_reduce_f32(void *queue, hcl_reduce_op op, size_t n, void *in, void *out, void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = builtin_begin(&cmd, queue, 1, out_event);
    if (st != HCL_SUCCESS) return st;
    hcl__gpu_queue *q = cmd.q;
    {
        hcl_gpu_dptr pi = hcl__gpu_ptr(in), po = hcl__gpu_ptr(out);
        hcl_gpu_dptr partials = q->scratch;
        hcl_gpu_dptr ticket = HCL_GPU_DPTR_ADD(q->scratch, REDUCE_MAX_BLOCKS * sizeof(float));
        unsigned long long nn = n;
        void *params[] = {&pi, &nn, &partials, &ticket, &po};
        /* the grid depends on n alone, so the folding order, and with it the result's bits, do too */
        unsigned int blocks = min_u(ceil_div(nn, REDUCE_THREADS * 8ull), REDUCE_MAX_BLOCKS);
        int fn = op == HCL_REDUCE_MAX ? HCL_GPU_FN_REDUCE_MAX : op == HCL_REDUCE_MIN ? HCL_GPU_FN_REDUCE_MIN
                                                                                   : HCL_GPU_FN_REDUCE_SUM;
        char detail[64];
        snprintf(detail, sizeof detail, "n=%zu op=%d", n, (int)op);
        st = launch(q, fn, blocks ? blocks : 1, 1, REDUCE_THREADS, 0, params, detail);
    }
    return hcl__gpu_cmd_end(&cmd, st, 0, "reduce", out_event);
}
