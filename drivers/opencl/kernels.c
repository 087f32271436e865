/* Built-in kernels: the OpenCL C sources of kernels/<name>/<name>.cl, embedded as text, built on first use per
 * device (through the program cache) and launched with work-group sizes chosen within the device's limits. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char hcl_kernel_vecadd_cl[];
extern const size_t hcl_kernel_vecadd_cl_size;
extern const unsigned char hcl_kernel_gemm_cl[];
extern const size_t hcl_kernel_gemm_cl_size;
extern const unsigned char hcl_kernel_softmax_cl[];
extern const size_t hcl_kernel_softmax_cl_size;
extern const unsigned char hcl_kernel_reduce_cl[];
extern const size_t hcl_kernel_reduce_cl_size;

/* -cl-fast-relaxed-math is deliberately absent: it lets the compiler assume there is no infinity, and softmax
 * and reduce rely on -inf. */
#define HCL_OCL_BUILTIN_OPTIONS "-cl-std=CL1.2"
#ifndef HCL_OCL_GEMM_CPU_WG
#define HCL_OCL_GEMM_CPU_WG 8
#endif

static const struct {
    const char *name;
    const unsigned char *source;
    const size_t *size;
    const char *kernels[HCL_OCL_BUILTIN_MAX_KERNELS];
} g_builtins[HCL_OCL_BUILTIN_COUNT] = {
    [HCL_OCL_BUILTIN_VECADD] = {"vecadd", hcl_kernel_vecadd_cl, &hcl_kernel_vecadd_cl_size, {"hcl_vecadd_f32"}},
    [HCL_OCL_BUILTIN_GEMM] = {"gemm", hcl_kernel_gemm_cl, &hcl_kernel_gemm_cl_size,
                              {"hcl_gemm_nn_f32", "hcl_gemm_nt_f32", "hcl_gemm_tn_f32", "hcl_gemm_tt_f32"}},
    [HCL_OCL_BUILTIN_SOFTMAX] = {"softmax", hcl_kernel_softmax_cl, &hcl_kernel_softmax_cl_size,
                                 {"hcl_softmax_f32", "hcl_softmax_cached_f32"}},
    [HCL_OCL_BUILTIN_REDUCE] = {"reduce", hcl_kernel_reduce_cl, &hcl_kernel_reduce_cl_size,
                                {"hcl_reduce_sum_f32", "hcl_reduce_max_f32", "hcl_reduce_min_f32"}},
};

/* The gemm kernels' shape (kernels/gemm/gemm.cl): a WG x WG work-group computes an 8*WG square tile of C. */
static void gemm_shape(const hcl__ocl_device *dev, int *out_wg, int *out_prefetch);

void hcl__ocl_builtins_init(hcl__ocl_device *dev) {
    for (int i = 0; i < HCL_OCL_BUILTIN_COUNT; i++) {
        memset(&dev->builtins[i], 0, sizeof dev->builtins[i]);
        pthread_mutex_init(&dev->builtins[i].lock, NULL);
    }
}

static void release_builtin(hcl__ocl_builtin *b) {
    for (int k = 0; k < HCL_OCL_BUILTIN_MAX_KERNELS; k++) {
        if (b->kernels[k]) hcl__cl.clReleaseKernel(b->kernels[k]);
        b->kernels[k] = NULL;
    }
    if (b->program) hcl__cl.clReleaseProgram(b->program);
    b->program = NULL;
}

void hcl__ocl_builtins_release(hcl__ocl_device *dev) {
    for (int i = 0; i < HCL_OCL_BUILTIN_COUNT; i++) {
        release_builtin(&dev->builtins[i]);
        pthread_mutex_destroy(&dev->builtins[i].lock);
    }
}

/* Lock built-in `which` of the device, building it first if this is its first use. On success the lock is
 * held and the caller unlocks after it has set the arguments and enqueued. */
static hcl_status acquire(hcl__ocl_device *dev, int which, hcl__ocl_builtin **out_builtin) {
    hcl__ocl_builtin *b = &dev->builtins[which];
    hcl_status status = HCL_SUCCESS;
    pthread_mutex_lock(&b->lock);
    if (b->program) {
        *out_builtin = b;
        return HCL_SUCCESS;
    }
    char options[160] = HCL_OCL_BUILTIN_OPTIONS;
    if (which == HCL_OCL_BUILTIN_GEMM) {
        int prefetch = 1;
        gemm_shape(dev, &b->gemm_wg, &prefetch);
        snprintf(options, sizeof options, "%s -DHCL_GEMM_WG=%d -DHCL_GEMM_PREFETCH=%d", HCL_OCL_BUILTIN_OPTIONS,
                 b->gemm_wg, prefetch);
    }
    status = hcl__ocl_program_build(dev, (const char *)g_builtins[which].source, *g_builtins[which].size, options,
                                    &b->program);
    if (status != HCL_SUCCESS) goto cleanup;
    for (int k = 0; k < HCL_OCL_BUILTIN_MAX_KERNELS && g_builtins[which].kernels[k]; k++) {
        const char *name = g_builtins[which].kernels[k];
        cl_int err = CL_SUCCESS;
        b->kernels[k] = hcl__cl.clCreateKernel(b->program, name, &err);
        HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateKernel", "built-in kernel '%s'", name);
        HCL_OCL_CHECK(hcl__cl.clGetKernelWorkGroupInfo(b->kernels[k], dev->id, CL_KERNEL_WORK_GROUP_SIZE,
                                                       sizeof b->kernel_wg_max[k], &b->kernel_wg_max[k], NULL),
                      HCL_OCL_CALL, "clGetKernelWorkGroupInfo", "CL_KERNEL_WORK_GROUP_SIZE of '%s'", name);
        HCL_OCL_LOG("built-in '%s' on '%s': up to %zu work-items per group", name, dev->entry->info.name,
                    b->kernel_wg_max[k]);
    }
    *out_builtin = b;
    return HCL_SUCCESS;
cleanup:
    release_builtin(b);
    pthread_mutex_unlock(&b->lock);
    return status;
}

static size_t pow2_floor(size_t v) {
    size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The largest work-group for a kernel: its CL_KERNEL_WORK_GROUP_SIZE, at most 1024, within the device's limit and
 * local memory (one float per work-item), a multiple of 32 where it can be. */
static size_t group_limit(const hcl__ocl_device *dev, size_t kernel_max) {
    size_t g = min_size(min_size(1024, kernel_max), dev->entry->info.max_work_group_size);
    while (g > 1 && g * sizeof(float) > dev->entry->info.local_mem_bytes) g /= 2;
    if (g >= 32) g -= g % 32;
    return g > 0 ? g : 1;
}

/* A CPU device runs a work-group's work-items as a loop: it wants few work-items with contiguous runs, where a
 * GPU wants many work-items reading neighbouring addresses. */
static int is_cpu(const hcl__ocl_device *dev) { return dev->entry->info.type == HCL_DEVICE_TYPE_CPU; }

/* GPU: 16 x 16 work-items, 128 x 128 tiles, the next step prefetched into registers (measured on an H100:
 * about 32-38 TFLOP/s at 4096^3, against 22-25 for 64 x 64 tiles of 4 x 4). CPU: 8 x 8 work-items (64 x 64
 * tiles), no prefetch: PoCL 3.1 runs a group's work-items as a loop, and there this was fastest (about 20
 * GFLOP/s at 512^3 on 2 cores, against 15 for 16 x 16 and 10-14 with the prefetch). */
static void gemm_shape(const hcl__ocl_device *dev, int *out_wg, int *out_prefetch) {
    int wg = 16, prefetch = 1;
    if (is_cpu(dev)) wg = HCL_OCL_GEMM_CPU_WG, prefetch = 0;
    /* within the device's work-group limit and local memory (two 16 x (8*WG + 4) float tiles) */
    while (wg > 4 && ((uint64_t)wg * wg > dev->entry->info.max_work_group_size ||
                      2u * 16u * (8u * (uint64_t)wg + 4u) * sizeof(float) > dev->entry->info.local_mem_bytes))
        wg /= 2;
    *out_wg = wg;
    *out_prefetch = prefetch;
}

/* Set consecutive kernel arguments: (size, pointer) pairs. */
typedef struct {
    size_t size;
    const void *value;
} hcl__ocl_karg;

static hcl_status set_args_from(cl_kernel kernel, const char *name, cl_uint first, const hcl__ocl_karg *args,
                                cl_uint count) {
    hcl_status status = HCL_SUCCESS;
    for (cl_uint i = first; i < first + count; i++)
        HCL_OCL_CHECK(hcl__cl.clSetKernelArg(kernel, i, args[i - first].size, args[i - first].value), HCL_OCL_CALL,
                      "clSetKernelArg", "built-in '%s' argument %u (%zu bytes)", name, i, args[i - first].size);
cleanup:
    return status;
}

static hcl_status set_args(cl_kernel kernel, const char *name, const hcl__ocl_karg *args, cl_uint count) {
    return set_args_from(kernel, name, 0, args, count);
}

/* The built-ins have no wait list: the queue is in order. */
static hcl_status launch(hcl__ocl_queue *q, cl_kernel kernel, const char *name, cl_uint dims, const size_t *global,
                         const size_t *local, cl_event *out_ev) {
    return hcl__ocl_enqueue(q, kernel, name, dims, global, local, 0, NULL, out_ev);
}

static hcl_status wrap_single(cl_event ev, void **out_event) {
    if (!out_event) return HCL_SUCCESS;
    return hcl__ocl_event_wrap(ev, ev, 0, out_event);
}

hcl_status hcl__ocl_vecadd_f32(void *queue, size_t n, void *a, void *b, void *c, void **out_event) {
    hcl__ocl_queue *q = queue;
    hcl__ocl_device *dev = q->device;
    if (n == 0) return out_event ? hcl__ocl_queue_marker(q, 0, NULL, out_event) : HCL_SUCCESS;
    hcl__ocl_builtin *bi = NULL;
    hcl_status status = acquire(dev, HCL_OCL_BUILTIN_VECADD, &bi);
    if (status != HCL_SUCCESS) return status;
    cl_mem ma = a, mb = b, mc = c;
    cl_ulong n64 = n;
    const hcl__ocl_karg args[] = {{sizeof ma, &ma}, {sizeof mb, &mb}, {sizeof mc, &mc}, {sizeof n64, &n64}};
    size_t wg = pow2_floor(min_size(256, bi->kernel_wg_max[0]));
    size_t items = n / 4 > 0 ? n / 4 : 1;
    size_t groups = (items + wg - 1) / wg;
    groups = min_size(groups, (size_t)1 << 18); /* past that, work-items stride over the rest */
    size_t global = groups * wg;
    cl_event ev = NULL;
    status = set_args(bi->kernels[0], "hcl_vecadd_f32", args, 4);
    if (status == HCL_SUCCESS)
        status = launch(q, bi->kernels[0], "hcl_vecadd_f32", 1, &global, &wg, out_event ? &ev : NULL);
    pthread_mutex_unlock(&bi->lock);
    if (status != HCL_SUCCESS) return status;
    return wrap_single(ev, out_event);
}

hcl_status hcl__ocl_gemm_f32(void *queue, const hcl_gemm_args *g, void **out_event) {
    hcl__ocl_queue *q = queue;
    hcl__ocl_device *dev = q->device;
    if (g->m == 0 || g->n == 0) return out_event ? hcl__ocl_queue_marker(q, 0, NULL, out_event) : HCL_SUCCESS;
    hcl__ocl_builtin *bi = NULL;
    hcl_status status = acquire(dev, HCL_OCL_BUILTIN_GEMM, &bi);
    if (status != HCL_SUCCESS) return status;
    const int which = (g->trans_a == HCL_TRANS ? 2 : 0) + (g->trans_b == HCL_TRANS ? 1 : 0);
    const char *name = g_builtins[HCL_OCL_BUILTIN_GEMM].kernels[which];
    cl_event ev = NULL;
    const size_t wg = (size_t)bi->gemm_wg, tile = 8 * (size_t)bi->gemm_wg;
    if (bi->kernel_wg_max[which] < wg * wg) {
        status = hcl__ocl_host->set_message(HCL_ERROR_UNSUPPORTED,
                                            "opencl: built-in '%s' needs work-groups of %zu work-items; '%s' allows "
                                            "%zu for it",
                                            name, wg * wg, dev->entry->info.name, bi->kernel_wg_max[which]);
        goto cleanup;
    }
    /* BLAS: with k or alpha 0, A and B are not read and C = beta * C */
    const int no_product = g->k == 0 || g->alpha == 0.0f;
    cl_ulong m = g->m, n = g->n, k = no_product ? 0 : g->k, lda = g->lda, ldb = g->ldb, ldc = g->ldc;
    float alpha = no_product ? 0.0f : g->alpha, beta = g->beta;
    cl_mem a = g->a, b = g->b, c = g->c;
    const hcl__ocl_karg args[] = {{sizeof m, &m},         {sizeof n, &n},         {sizeof k, &k},
                                  {sizeof alpha, &alpha}, {sizeof a, &a},         {sizeof lda, &lda},
                                  {sizeof b, &b},         {sizeof ldb, &ldb},     {sizeof beta, &beta},
                                  {sizeof c, &c},         {sizeof ldc, &ldc}};
    size_t local[2] = {wg, wg};
    size_t global[2] = {(g->n + tile - 1) / tile * wg, (g->m + tile - 1) / tile * wg};
    status = set_args(bi->kernels[which], name, args, 11);
    if (status == HCL_SUCCESS) status = launch(q, bi->kernels[which], name, 2, global, local, out_event ? &ev : NULL);
cleanup:
    pthread_mutex_unlock(&bi->lock);
    if (status != HCL_SUCCESS) return status;
    return wrap_single(ev, out_event);
}

hcl_status hcl__ocl_softmax_f32(void *queue, size_t rows, size_t cols, void *in, void *out, void **out_event) {
    hcl__ocl_queue *q = queue;
    hcl__ocl_device *dev = q->device;
    if (rows == 0 || cols == 0) return out_event ? hcl__ocl_queue_marker(q, 0, NULL, out_event) : HCL_SUCCESS;
    hcl__ocl_builtin *bi = NULL;
    hcl_status status = acquire(dev, HCL_OCL_BUILTIN_SOFTMAX, &bi);
    if (status != HCL_SUCCESS) return status;
    /* GPU, rows of up to 16 columns per work-item of the largest group: the cached kernel with just enough
     * work-items (a multiple of 32) for each to hold 16 columns in registers; the per-work-item cost of the
     * folds dominates otherwise (H100, 65536 x 1024: 2.9 TB/s with 64 work-items of 16 columns, 1.6 with 128
     * of 8, 0.9 with 256 of 4). Wider rows: the streamed kernel, coalesced (chunk 1), the largest group.
     * NVIDIA's runtime (580.159) reports CL_KERNEL_WORK_GROUP_SIZE 256 for both kernels, so rows above 4096
     * columns stream there (about 0.5-0.7 TB/s), although groups of 512 and 1024 launch and hold them in
     * registers at 1.5-2.3 TB/s: the reported limit is the contract, so it is kept.
     * CPU: the streamed kernel with one work-item per row over the whole row (a CPU device runs a group on one
     * core, looping over its work-items: wider groups only cost; on PoCL 3.1 this was fastest).
     * The fold needs a float of local memory per work-item. */
    int which = 0;
    size_t wg = 1, chunk = cols;
    if (!is_cpu(dev)) {
        size_t max_cached = group_limit(dev, bi->kernel_wg_max[1]);
        size_t max_streamed = group_limit(dev, bi->kernel_wg_max[0]);
        chunk = 1;
        if (cols <= 16 * max_cached) {
            which = 1;
            wg = ((cols + 15) / 16 + 31) / 32 * 32;
            if (wg > max_cached) wg = max_cached;
        } else {
            wg = max_streamed;
        }
    }
    const char *name = g_builtins[HCL_OCL_BUILTIN_SOFTMAX].kernels[which];
    cl_kernel kernel = bi->kernels[which];
    cl_mem mi = in, mo = out;
    cl_ulong c64 = cols, chunk64 = chunk, row_begin = 0;
    const hcl__ocl_karg args[] = {{sizeof mi, &mi},   {sizeof mo, &mo},           {sizeof row_begin, &row_begin},
                                  {sizeof c64, &c64}, {sizeof chunk64, &chunk64}, {wg * sizeof(float), NULL}};
    cl_event first = NULL, last = NULL;
    status = set_args(kernel, name, args, 6);
    /* one work-group per row, in batches that keep the global size modest */
    const size_t batch = (size_t)1 << 20;
    for (size_t r0 = 0; r0 < rows && status == HCL_SUCCESS; r0 += batch) {
        row_begin = r0;
        status = set_args_from(kernel, name, 2, &args[2], 1);
        size_t global = min_size(batch, rows - r0) * wg;
        cl_event ev = NULL;
        if (status == HCL_SUCCESS)
            status = launch(q, kernel, name, 1, &global, &wg, out_event ? &ev : NULL);
        if (ev && !first) first = ev;
        else if (ev) {
            if (last) hcl__cl.clReleaseEvent(last);
            last = ev;
        }
    }
    pthread_mutex_unlock(&bi->lock);
    if (status != HCL_SUCCESS) {
        if (first) hcl__cl.clReleaseEvent(first);
        if (last) hcl__cl.clReleaseEvent(last);
        return status;
    }
    if (!out_event) return HCL_SUCCESS;
    return hcl__ocl_event_wrap(first, last ? last : first, 0, out_event);
}

/* The first pass's group count depends only on n and the device, so a reduction's order is always the same. */
static size_t reduce_max_groups(const hcl__ocl_device *dev) {
    size_t g = (size_t)dev->entry->info.compute_units * 8;
    if (g < 1) g = 1;
    return g > 1024 ? 1024 : g;
}

hcl_status hcl__ocl_reduce_f32(void *queue, hcl_reduce_op op, size_t n, void *in, void *out, void **out_event) {
    hcl__ocl_queue *q = queue;
    hcl__ocl_device *dev = q->device;
    hcl_status status = HCL_SUCCESS;
    cl_event first = NULL, last = NULL;
    const int which = op == HCL_REDUCE_MAX ? 1 : op == HCL_REDUCE_MIN ? 2 : 0;
    const char *name = g_builtins[HCL_OCL_BUILTIN_REDUCE].kernels[which];
    if (n == 0) {
        const float identity = which == 0 ? 0.0f : which == 1 ? -INFINITY : INFINITY;
        return hcl__ocl_buffer_fill(q, out, 0, sizeof identity, &identity, sizeof identity, 0, 0, NULL, out_event);
    }
    const size_t max_groups = reduce_max_groups(dev);
    if (!q->reduce_partials) {
        cl_int err = CL_SUCCESS;
        q->reduce_partials = hcl__cl.clCreateBuffer(dev->context, CL_MEM_READ_WRITE, max_groups * sizeof(float), NULL,
                                                    &err);
        if (err != CL_SUCCESS) {
            q->reduce_partials = NULL;
            return hcl__ocl_fail(err, HCL_OCL_ALLOC, "clCreateBuffer", "%zu partial sums for reduce",
                                 max_groups);
        }
    }
    hcl__ocl_builtin *bi = NULL;
    status = acquire(dev, HCL_OCL_BUILTIN_REDUCE, &bi);
    if (status != HCL_SUCCESS) return status;
    cl_kernel kernel = bi->kernels[which];
    size_t wg = pow2_floor(min_size(min_size(is_cpu(dev) ? 16 : 256, bi->kernel_wg_max[which]),
                                    dev->entry->info.max_work_group_size));
    while (wg > 1 && wg * sizeof(float) > dev->entry->info.local_mem_bytes) wg /= 2;
    size_t groups = min_size((n + wg - 1) / wg, max_groups);
    /* GPU: coalesced, chunk 1; CPU: one contiguous run per work-item */
    size_t chunk1 = is_cpu(dev) ? (n + groups * wg - 1) / (groups * wg) : 1;
    size_t chunk2 = is_cpu(dev) ? (groups + wg - 1) / wg : 1;
    cl_mem min_ = in, mout = out, mpart = q->reduce_partials;
    cl_ulong n64 = n, g64 = groups, c1 = chunk1, c2 = chunk2;

    /* one pass when one group covers it; else partials, then one group over them */
    const hcl__ocl_karg pass1[] = {{sizeof min_, &min_},
                                   {sizeof(cl_mem), groups == 1 ? &mout : &mpart},
                                   {sizeof n64, &n64},
                                   {sizeof c1, &c1},
                                   {wg * sizeof(float), NULL}};
    size_t global = groups * wg;
    status = set_args(kernel, name, pass1, 5);
    if (status == HCL_SUCCESS) status = launch(q, kernel, name, 1, &global, &wg, out_event ? &first : NULL);
    if (status == HCL_SUCCESS && groups > 1) {
        const hcl__ocl_karg pass2[] = {{sizeof mpart, &mpart},
                                       {sizeof mout, &mout},
                                       {sizeof g64, &g64},
                                       {sizeof c2, &c2},
                                       {wg * sizeof(float), NULL}};
        status = set_args(kernel, name, pass2, 5);
        if (status == HCL_SUCCESS) status = launch(q, kernel, name, 1, &wg, &wg, out_event ? &last : NULL);
    }
    pthread_mutex_unlock(&bi->lock);
    if (status != HCL_SUCCESS) {
        if (first) hcl__cl.clReleaseEvent(first);
        if (last) hcl__cl.clReleaseEvent(last);
        return status;
    }
    if (!out_event) return HCL_SUCCESS;
    return hcl__ocl_event_wrap(first, last ? last : first, 0, out_event);
}
