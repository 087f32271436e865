/* The driver's own helper kernels: today one, hcl_fill_u64 (fill.cu), which buffer_fill uses for patterns of 8 to
 * 128 bytes (the runtime's memsets take 1, 2 and 4). Loaded per device on first use from the embedded binary (CUDA:
 * a fatbin with SASS for HCL_CUDA_ARCHS and PTX for newer GPUs; HIP: a code-object bundle for HCL_HIP_TARGETS), or,
 * when the build had no nvcc / hipcc or the binary does not load on this GPU, from fill.cu compiled by the run-time
 * compiler for the device (cached on disk). Shared by the CUDA and HIP drivers (gpu.h). The built-in kernels are
 * not the driver's: the core runs them as ordinary modules and launches. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HCL_GPU_HAVE_HELPER_BINARY
extern const unsigned char hcl_gpu_helpers_binary[]; /* the fatbin / the code-object bundle of fill.cu */
extern const size_t hcl_gpu_helpers_binary_size;
#endif

#define FILL_NAME "hcl_fill_u64"
#define FILL_THREADS 256

#ifdef HCL_GPU_HAVE_HELPER_BINARY
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

static hcl_status compile_helpers(hcl__gpu_device *d, hcl_gpu_module *out_module) {
    hcl__gpu_rtc_job job;
    hcl__gpu_helpers_job(&job);
    return hcl__gpu_rtc_build(d, &job, out_module, NULL, NULL);
}

static hcl_status load_locked(hcl__gpu_device *d) {
    hcl_status st = HCL_ERROR_INTERNAL;
    hcl_gpu_module mod = NULL;
    const char *from = HCL_GPU_RTC_NAME;
    hcl_status binary_status = HCL_SUCCESS;
    char binary_failure[1024] = "";
    (void)binary_status;
#ifdef HCL_GPU_HAVE_HELPER_BINARY
    {
        char arch[96];
        /* a fatbin header wants 8-byte alignment; the x86-64 ABI gives large arrays 16, but do not rely on it */
        void *copy = NULL;
        const void *image = hcl_gpu_helpers_binary;
        if ((uintptr_t)image % 8 != 0) {
            if (!(copy = malloc(hcl_gpu_helpers_binary_size))) return hcl__gpu_oom("helper binary copy");
            memcpy(copy, hcl_gpu_helpers_binary, hcl_gpu_helpers_binary_size);
            image = copy;
        }
        st = hcl__gpu_module_load(image, "the helper kernels' " HCL_GPU_HELPER_BINARY_NAME, &mod);
        free(copy);
        if (st == HCL_SUCCESS) {
            from = HCL_GPU_HELPER_BINARY_NAME;
        } else {
            binary_status = st;
            snprintf(binary_failure, sizeof binary_failure, "%s", hcl__gpu_last_failure());
            HCL_GPU_LOG("device %u (%s): the helper kernels' %s did not load (%s); compiling fill.cu with %s", d->index,
                        arch_label(d, arch, sizeof arch), HCL_GPU_HELPER_BINARY_NAME, binary_failure, HCL_GPU_RTC_NAME);
        }
    }
#endif
    if (!mod && (st = compile_helpers(d, &mod)) != HCL_SUCCESS) {
        /* the compiler absent: the binary's failure is the cause worth reporting */
        if (st == HCL_ERROR_UNSUPPORTED && binary_status != HCL_SUCCESS)
            return hcl__gpu_host->set_message(binary_status, "%s; and %s, to compile the helper kernels instead: %s",
                                              binary_failure, HCL_GPU_RTC_NAME, hcl__gpu_rtc_reason());
        return st;
    }
    st = HCL_GPU(ModuleGetFunction, (&d->fill, mod, FILL_NAME), "helper kernel '%s' (from %s)", FILL_NAME, from);
    if (st != HCL_SUCCESS) {
        hcl__gpu.HCL_GPU_SYM_ModuleUnload(mod);
        d->fill = NULL;
        return st;
    }
    d->helpers = mod;
    d->helpers_from = from;
    HCL_GPU_LOG("device %u: helper kernels loaded from %s", d->index, from);
    return HCL_SUCCESS;
}

hcl_status hcl__gpu_helpers_get(hcl__gpu_device *d) {
    pthread_mutex_lock(&d->lock);
    hcl_status st = d->helpers ? HCL_SUCCESS : load_locked(d);
    pthread_mutex_unlock(&d->lock);
    return st;
}

void hcl__gpu_helpers_release(hcl__gpu_device *d) {
    pthread_mutex_lock(&d->lock);
    if (d->helpers) hcl__gpu.HCL_GPU_SYM_ModuleUnload(d->helpers);
    d->helpers = NULL;
    d->fill = NULL;
    pthread_mutex_unlock(&d->lock);
}

hcl_status hcl__gpu_helpers_prepare(hcl__gpu_queue *q) {
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(q->dev, &scope);
    if (st != HCL_SUCCESS) return st;
    st = hcl__gpu_helpers_get(q->dev);
    hcl__gpu_leave(&scope);
    return st;
}

hcl_status hcl__gpu_fill_kernel(hcl__gpu_queue *q, hcl_gpu_dptr dst, size_t size, const void *pattern,
                                size_t pattern_size) {
    hcl_status st = hcl__gpu_helpers_get(q->dev);
    if (st != HCL_SUCCESS) return st;
    struct {
        unsigned long long w[16];
    } pat;
    memset(&pat, 0, sizeof pat);
    memcpy(pat.w, pattern, pattern_size); /* 8..128 bytes, a power of two */
    unsigned long long count = size / 8;
    unsigned int words = (unsigned int)(pattern_size / 8);
    void *params[] = {&dst, &count, &pat, &words};
    /* a grid-stride loop: enough blocks to fill the GPU several times, no more */
    const hcl__gpu_device *d = q->dev;
    unsigned long long want = (count + FILL_THREADS - 1) / FILL_THREADS;
    unsigned long long cap = (unsigned long long)(d->sm_count > 0 ? d->sm_count : 1) * 32;
    unsigned int blocks = (unsigned int)(want < cap ? want : cap);
    if (blocks == 0) blocks = 1;
    return HCL_GPU(LaunchKernel, (d->fill, blocks, 1, 1, FILL_THREADS, 1, 1, 0, q->stream, params, NULL),
                   "helper '%s' grid %u block %u: size=%zu pattern_size=%zu", FILL_NAME, blocks, FILL_THREADS, size,
                   pattern_size);
}
