/* Vendor baselines, opened with dlopen at run time so that bench links none of them (readelf -d shows no vendor
 * library): on cuda, cuBLAS SGEMM, a device-to-device copy (cuMemcpyDtoDAsync) and CUB's DeviceReduce::Sum
 * (baselines_cuda.c); on opencl, CLBlast SGEMM and clEnqueueCopyBuffer (baselines_opencl.c); on vulkan,
 * vkCmdCopyBuffer (baselines_vulkan.c); on host, OpenBLAS
 * cblas_sgemm and a parallel copy (baselines_host.c). Each runs on HCL's own queue and buffers through the interop calls
 * (hcl_*_get_native) and is timed by the vendor's own means: CUDA events on that stream, OpenCL profiling events,
 * or the wall clock on host.
 *
 * Every vendor prototype comes from the vendor's header (function pointers are declared with __typeof__ of the
 * header's declaration), so a signature cannot be wrong; a header missing at build time leaves that baseline out,
 * reported as "not built".
 *
 * This file: the dispatch by backend (vendor_lib.c opens the libraries). */
#define _POSIX_C_SOURCE 200809L

#include "vendor.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int which_backend(const char *name) {
    if (!strcmp(name, "host")) return BK_HOST;
    if (!strcmp(name, "opencl")) return BK_OPENCL;
    if (!strcmp(name, "cuda")) return BK_CUDA;
    if (!strcmp(name, "vulkan")) return BK_VULKAN;
    return BK_OTHER;
}

/* The GPU vendors with baselines: their entry points (NULL: not built, for want of `header`), and what names their
 * baselines and their raw launch when they are not built. */
#if defined(BENCH_HAVE_CUDA)
#define CUDA_OPS (&cuda_ops)
#else
#define CUDA_OPS NULL
#endif
#if defined(BENCH_HAVE_OPENCL)
#define OPENCL_OPS (&opencl_ops)
#else
#define OPENCL_OPS NULL
#endif
#if defined(BENCH_HAVE_VULKAN)
#define VULKAN_OPS (&vulkan_ops)
#else
#define VULKAN_OPS NULL
#endif
typedef struct vendor {
    int backend;
    const vendor_ops *ops;
    const char *header, *missing; /* the header bench was built without; what the baselines say is missing */
    const char *libs;             /* its line in baselines_print_libs */
    const char *launch;           /* the raw launch call */
    const char *bases[BASE_COUNT];
} vendor;
static const vendor vendors[] = {
    {BK_CUDA,
     CUDA_OPS,
     "cuda.h",
     "cuda.h (the CUDA toolkit)",
     "CUDA baselines",
     "cuLaunchKernel",
     {"cuBLAS SGEMM", "cuMemcpyDtoDAsync", "CUB DeviceReduce::Sum", "cuBLAS GemmEx TF32", "cuBLAS GemmEx f16",
      "cuBLAS GemmEx bf16"}},
    {BK_OPENCL,
     OPENCL_OPS,
     "CL/cl.h",
     "CL/cl.h",
     "OpenCL baselines",
     "clEnqueueNDRangeKernel",
     {"CLBlast SGEMM", "clEnqueueCopyBuffer", NULL}},
    {BK_VULKAN,
     VULKAN_OPS,
     "vulkan/vulkan.h",
     "vulkan/vulkan.h (libvulkan-dev)",
     "Vulkan baselines",
     "vkCmdDispatch",
     {NULL, "vkCmdCopyBuffer", NULL}},
};

static const vendor *vendor_of(int backend) {
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (vendors[i].backend == backend) return &vendors[i];
    return NULL;
}

/* The vendor's entry points on this device's backend; NULL when it has none built. */
static const vendor_ops *ops_of(const struct baselines *bl) {
    const vendor *v = vendor_of(bl->backend);
    return v ? v->ops : NULL;
}

/* =========================================================================================================
 * Dispatch
 * ======================================================================================================= */
void baselines_open(bdev *b) {
    struct baselines *bl = xcalloc(1, sizeof *bl);
    b->bl = bl;
    base_info *bases = b->run->bases;
    memset(bases, 0, sizeof b->run->bases);
    bl->backend = which_backend(b->info.backend);
    if (!b->opt->baselines) {
        for (int i = 0; i < BASE_COUNT; i++) snprintf(bases[i].reason, sizeof bases[i].reason, "--no-baselines");
        return;
    }
    const vendor *v = vendor_of(bl->backend);
    if (v && v->ops) {
        v->ops->open(b, bl);
    } else if (v) {
        for (int i = 0; i < BASE_COUNT; i++)
            if (v->bases[i]) {
                set_base(&bases[i], v->bases[i], "");
                NOT_BUILT(&bases[i], v->missing);
            }
    } else if (bl->backend == BK_HOST) {
        host_open(b);
    }
    for (int i = 0; i < BASE_COUNT; i++)
        if (!bases[i].applicable)
            snprintf(bases[i].reason, sizeof bases[i].reason, "none for backend %s", b->info.backend);
}

void baselines_close(bdev *b) {
    struct baselines *bl = b->bl;
    if (!bl) return;
    const vendor_ops *ops = ops_of(bl);
    if (ops) ops->close(bl);
    free(bl);
    b->bl = NULL;
}

int base_gemm_run(bdev *b, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C, double *out_s,
                  measure *ms) {
    const vendor_ops *ops = ops_of(b->bl);
    if (ops && ops->gemm) return ops->gemm(b->bl, m, n, k, A, B, C, out_s, ms->error, sizeof ms->error);
    if (b->bl->backend == BK_HOST) return host_gemm(m, n, k, A, B, C, out_s, ms);
    snprintf(ms->error, sizeof ms->error, "no GEMM baseline for backend %s", b->info.backend);
    return 1;
}

int base_gemm_typed_run(bdev *b, int kind, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C,
                        double *out_s, measure *ms) {
    const vendor_ops *ops = ops_of(b->bl);
    if (ops && ops->gemm_typed)
        return ops->gemm_typed(b->bl, kind, m, n, k, A, B, C, out_s, ms->error, sizeof ms->error);
    snprintf(ms->error, sizeof ms->error, "no typed GEMM baseline for backend %s", b->info.backend);
    return 1;
}

int base_copy_run(bdev *b, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, measure *ms) {
    const vendor_ops *ops = ops_of(b->bl);
    if (ops && ops->copy) return ops->copy(b->bl, src, dst, bytes, out_s, ms->error, sizeof ms->error);
    if (b->bl->backend == BK_HOST) return host_copy(src, dst, bytes, out_s, ms);
    snprintf(ms->error, sizeof ms->error, "no copy baseline for backend %s", b->info.backend);
    return 1;
}

int base_reduce_run(bdev *b, hcl_buffer in, hcl_buffer out, size_t n, double *out_s, measure *ms) {
    const vendor_ops *ops = ops_of(b->bl);
    if (ops && ops->reduce) return ops->reduce(b, b->bl, in, out, n, out_s, ms->error, sizeof ms->error);
    snprintf(ms->error, sizeof ms->error, "no reduce baseline for backend %s", b->info.backend);
    return 1;
}

void vendor_launch_cost(bdev *b, int n_submit, int n_sync, launch_side *hcl, int nhcl, launch_cost *lc) {
    const vendor *v = vendor_of(b->bl->backend);
    if (v) {
        snprintf(lc->vendor_name, sizeof lc->vendor_name, "%s", v->launch);
        if (v->ops)
            v->ops->launch(b->bl, n_submit, n_sync, hcl, nhcl, lc, lc->vendor_reason, sizeof lc->vendor_reason);
        else
            snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "not built: %s was not found when bench was built",
                     v->header);
    } else if (b->bl->backend == BK_HOST) {
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "no vendor launch on the host backend");
    } else {
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "no raw launch path in bench for backend %s",
                 b->info.backend);
    }
}

void baselines_print_libs(void) {
    printf("Vendor libraries of the baselines (opened with dlopen; no device is used):\n");
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (vendors[i].ops)
            vendors[i].ops->print_libs();
        else
            printf("  %-22s not built: %s was not found when bench was built\n", vendors[i].libs, vendors[i].header);
    host_print_libs();
}
