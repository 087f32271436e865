/* Modules and kernels: user source through the run-time compiler (NVRTC / hiprtc, cached on disk), binaries loaded
 * directly (CUDA: fatbin, cubin, PTX; HIP: code object or offload bundle), launches with cuLaunchKernel /
 * hipModuleLaunchKernel. Shared by the CUDA and HIP drivers (gpu.h). */
#include "gpu.h"

#include "cubin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hcl__gpu_module {
    hcl__gpu_device *dev;
    hcl_gpu_module module;
    char *text; /* NULL, or the user's source (text_is_ptx 0) or PTX: kernel_params reads parameter kinds from it */
    size_t text_size;
    int text_is_ptx;
    void *image; /* CUDA: NULL, or the binary loaded (fatbin, cubin, NVRTC's output; PTX handed in is `text`):
                  * query_params counts parameters in it */
    size_t image_size;
} hcl__gpu_module;

/* Keep the text a module was made from, for kernel_params; without it (out of memory) kinds stay unknown. */
static void keep_text(hcl__gpu_module *m, const void *text, size_t size, int is_ptx) {
    m->text = malloc(size ? size : 1);
    if (!m->text) return;
    memcpy(m->text, text, size);
    m->text_size = size;
    m->text_is_ptx = is_ptx;
}

/* Whether a CUDA binary source is PTX text (not an ELF cubin or a fatbin). */
static int is_ptx_text(const hcl_module_source *src) {
    const unsigned char *data = src->data;
    return HCL_GPU_CUDA && src->size >= 1 &&
           !(src->size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F') &&
           !(src->size >= 4 && data[0] == 0x50 && data[1] == 0xed && data[2] == 0x55 && data[3] == 0xba);
}

#define HCL_GPU_UNKNOWN_PARAMS UINT32_MAX

typedef struct hcl__gpu_kernel {
    hcl__gpu_module *mod;
    hcl_gpu_function fn;
    atomic_int dyn_smem_set; /* dynamic shared memory this kernel has opted in to so far (CUDA) */
    uint32_t num_params;     /* from cuFuncGetParamInfo; HCL_GPU_UNKNOWN_PARAMS when the runtime cannot say */
    int waits_in_device;     /* kernel_wait_in_device: launched as a programmatic dependent launch (CUDA) */
    uint32_t *param_sizes;
    char name[];
} hcl__gpu_kernel;

#if HCL_GPU_CUDA
hcl_status hcl__gpu_module_load(const void *image, const char *what, hcl_gpu_module *out_module) {
    char log[8192];
    log[0] = '\0';
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = hcl__gpu.cuModuleLoadDataEx(out_module, image, 2, opts, vals);
    if (r == CUDA_SUCCESS) return HCL_SUCCESS;
    log[sizeof log - 1] = '\0';
    return hcl__gpu_fail(r, "cuModuleLoadDataEx", "loading %s%s%s", what, log[0] ? "; JIT log:\n" : "", log);
}

void hcl__gpu_rtc_job_target(const hcl__gpu_device *d, hcl__gpu_rtc_job *job) {
    job->arch = d->cc_major * 10 + d->cc_minor;
}
#else
/* A code object is machine code: there is no JIT and no log. A bundle without a code object for this device's
 * target is refused with hipErrorNoBinaryForGpu (or hipErrorSharedObjectInitFailed on some ROCm versions). */
hcl_status hcl__gpu_module_load(const void *image, const char *what, hcl_gpu_module *out_module) {
    return HCL_GPU_CALL(hipModuleLoadData, (out_module, image), "loading %s", what);
}

void hcl__gpu_rtc_job_target(const hcl__gpu_device *d, hcl__gpu_rtc_job *job) { job->arch = d->arch; }
#endif

#if HCL_GPU_CUDA
/* A PTX text handed in without its NUL must get one; fatbins and cubins are ELF/fatbin images CUDA sizes
 * itself. */
static hcl_status load_binary(const hcl_module_source *src, hcl_gpu_module *out_module) {
    const unsigned char *data = src->data;
    int is_text = is_ptx_text(src) && data[src->size - 1] != '\0';
    if (!is_text) return hcl__gpu_module_load(src->data, "a CUDA binary", out_module);
    char *copy = malloc(src->size + 1);
    if (!copy) return hcl__kit_oom("PTX copy");
    memcpy(copy, src->data, src->size);
    copy[src->size] = '\0';
    hcl_status st = hcl__gpu_module_load(copy, "PTX text", out_module);
    free(copy);
    return st;
}
#else
/* A code object (ELF) or an offload bundle; the runtime finds the code object for the device in a bundle. */
static hcl_status load_binary(const hcl_module_source *src, hcl_gpu_module *out_module) {
    return hcl__gpu_module_load(src->data, "a HIP code object", out_module);
}
#endif

hcl_status hcl__gpu_rtc_build(hcl__gpu_device *d, hcl__gpu_rtc_job *job, hcl_gpu_module *out_module, void **out_image,
                              size_t *out_image_size) {
    job->driver_version = hcl__gpu_driver_version;
    hcl__gpu_rtc_job_target(d, job);
    void *image = NULL;
    size_t size = 0;
    int is_binary = 0;
    /* a cached image that the runtime refuses is dropped from the cache and compiled again, once */
    for (int attempt = 0;; attempt++) {
        hcl_status st = hcl__gpu_rtc_compile(job, &image, &size, &is_binary);
        if (st != HCL_SUCCESS) return st;
#if HCL_GPU_CUDA
        st = hcl__gpu_module_load(image, is_binary ? "NVRTC's CUBIN" : "NVRTC's PTX", out_module);
#else
        st = hcl__gpu_module_load(image, "hiprtc's code object", out_module);
#endif
        if (st == HCL_SUCCESS && out_image) {
            *out_image = image, *out_image_size = size;
            return st;
        }
        free(image);
        image = NULL;
        if (st == HCL_SUCCESS || !job->from_cache || attempt > 0 || st == HCL_ERROR_DEVICE_LOST) return st;
        HCL_KIT_WARN("the cached %s image of '%s' failed to load (%s); evicted, compiling it again", HCL_GPU_RTC_NAME,
                     job->name, hcl__kit_last_failure());
        job->evict_cached = 1;
    }
}

static hcl_status build_source(hcl__gpu_device *d, const hcl_module_source *src, hcl__gpu_module *m) {
    hcl__gpu_rtc_job job = {
        .source = src->data,
        .source_size = src->size,
        .name = HCL_GPU_CUDA ? "user.cu" : "user.hip",
        .options = src->options,
    };
    return hcl__gpu_rtc_build(d, &job, &m->module, HCL_GPU_CUDA ? &m->image : NULL, &m->image_size);
}

/* A copy of the binary a CUDA module was loaded from, for query_params; without it (out of memory, HIP) parameter
 * counts stay unknown. */
static void keep_image(hcl__gpu_module *m, const hcl_module_source *src) {
    if (!HCL_GPU_CUDA || !src->size) return;
    m->image = malloc(src->size);
    if (!m->image) return;
    memcpy(m->image, src->data, src->size);
    m->image_size = src->size;
}

/* The first source this driver takes decides: a binary always, source when the run-time compiler loads. A source
 * that is taken and fails to build is an error; there is no fall-through to later sources after that. */
hcl_status hcl__gpu_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out_module) {
    hcl__gpu_device *d = device;
    const unsigned binary = HCL_KIT_KIND(HCL_GPU_SOURCE_BINARY);
    const hcl_module_source *pick = hcl__kit_source_pick(sources, count, binary | HCL_KIT_KIND(HCL_GPU_SOURCE_C));
    int rtc_missing = 0;
    if (pick && pick->kind == HCL_GPU_SOURCE_C && hcl__gpu_rtc_open() != HCL_SUCCESS) {
        rtc_missing = 1; /* a later binary may still do */
        pick = hcl__kit_source_pick(sources, count, binary);
    }
    if (!pick)
        return hcl__kit_source_unsupported(count, "%s (through %s%s%s) and %s (%s)", HCL_GPU_SOURCE_C_NAME,
                                           HCL_GPU_RTC_NAME, rtc_missing ? ", which is not available: " : "",
                                           rtc_missing ? hcl__gpu_rtc_reason() : "", HCL_GPU_SOURCE_BINARY_NAME,
                                           HCL_GPU_BINARY_FORMS);
    hcl__gpu_module *m = calloc(1, sizeof *m);
    if (!m) return hcl__kit_oom("module");
    m->dev = d;
    hcl_status st =
        HCL_GPU_ON(d, pick->kind == HCL_GPU_SOURCE_BINARY ? load_binary(pick, &m->module) : build_source(d, pick, m));
    if (st == HCL_SUCCESS && (pick->kind == HCL_GPU_SOURCE_C || is_ptx_text(pick)))
        keep_text(m, pick->data, pick->size, pick->kind != HCL_GPU_SOURCE_C);
    else if (st == HCL_SUCCESS && pick->kind == HCL_GPU_SOURCE_BINARY)
        keep_image(m, pick); /* PTX is kept once */
    return hcl__kit_give(st, m, out_module);
}

void hcl__gpu_module_destroy(void *module) {
    hcl__gpu_module *m = module;
    if (!m) return;
    (void)HCL_GPU_ON(m->dev, (hcl__gpu.HCL_GPU_SYM_ModuleUnload(m->module), HCL_SUCCESS));
    free(m->text);
    free(m->image);
    free(m);
}

/* Parameter sizes let launches refuse an argument of the wrong size instead of having the kernel read past it.
 * CUDA lists them (cuFuncGetParamInfo, driver 12.4+) one index at a time; HIP has no such call, so HIP launches are
 * not checked. The count comes first, from a call that cannot fail for want of a parameter: cuFuncGetParamCount
 * where the driver has it, else the binary the module was loaded from (a cubin's attributes, a fatbin's
 * uncompressed entry, PTX; cubin.h). Asking for the index past the last parameter would also answer, but as a
 * failed call (CUDA_ERROR_INVALID_VALUE) that compute-sanitizer reports among the user's errors; without a count
 * (a fatbin whose entries are all compressed, on a driver before cuFuncGetParamCount) sizes stay unknown. */
static void query_params(hcl__gpu_kernel *k) {
    k->num_params = HCL_GPU_UNKNOWN_PARAMS;
#if HCL_GPU_CUDA
    if (!hcl__gpu.cuFuncGetParamInfo) return;
    const hcl__gpu_module *m = k->mod;
    const void *binary = m->image ? m->image : m->text_is_ptx ? m->text : NULL;
    const size_t binary_size = m->image ? m->image_size : m->text_size;
    uint32_t n = 0;
    size_t counted = 0;
    if (hcl__gpu.cuFuncGetParamCount) {
        if (hcl__gpu.cuFuncGetParamCount(k->fn, &counted) != CUDA_SUCCESS || counted > 4096) return;
        n = (uint32_t)counted;
    } else if (!binary || !hcl__kit_cuda_binary_param_count(binary, binary_size, k->name, &n) || n > 4096) {
        return;
    }
    uint32_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    if (!sizes) return;
    for (uint32_t i = 0; i < n; i++) {
        size_t off = 0, size = 0;
        if (hcl__gpu.cuFuncGetParamInfo(k->fn, i, &off, &size) != CUDA_SUCCESS) { /* the count misread: no check */
            free(sizes);
            return;
        }
        sizes[i] = (uint32_t)size;
    }
    k->param_sizes = sizes;
    k->num_params = n;
#endif
}

hcl_status hcl__gpu_kernel_create(void *module, const char *name, void **out_kernel) {
    hcl__gpu_module *m = module;
    size_t len = strlen(name);
    hcl__gpu_kernel *k = calloc(1, sizeof *k + len + 1);
    if (!k) return hcl__kit_oom("kernel");
    memcpy(k->name, name, len + 1);
    k->mod = m;
    atomic_init(&k->dyn_smem_set, 0);
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(m->dev, &scope);
    if (st == HCL_SUCCESS) {
        st = HCL_GPU(ModuleGetFunction, (&k->fn, m->module, name),
                     "kernel '%s' (a %s C++ kernel needs extern \"C\" to be found by its plain name)", name,
                     HCL_GPU_API);
        if (st == HCL_SUCCESS) query_params(k);
        hcl__gpu_leave(&scope);
    }
    return hcl__kit_give(st, k, out_kernel);
}

/* The function attribute: what the kernel's registers and static shared memory leave of the device's largest
 * block. */
hcl_status hcl__gpu_kernel_max_group(void *kernel, uint64_t *out_max) {
    const hcl__gpu_kernel *k = kernel;
    int threads = 0;
    hcl_status st =
        HCL_GPU_ON(k->mod->dev, HCL_GPU(FuncGetAttribute, (&threads, HCL_GPU_FUNC_MAX_THREADS_PER_BLOCK, k->fn),
                                        "kernel '%s': its largest block", k->name));
    if (st == HCL_SUCCESS) *out_max = threads > 0 ? (uint64_t)threads : 0;
    return st;
}

#if HCL_GPU_CUDA
/* Opt kernel k in to `shared_bytes` of dynamic shared memory where that is above the default 48 KiB (once per size
 * and kernel; AMD has one limit, which the core checks against local_mem_bytes). */
static hcl_status opt_in_shared(hcl__gpu_kernel *k, const hcl__gpu_device *d, size_t shared_bytes) {
    if (shared_bytes <= (size_t)d->smem_default || (int)shared_bytes <= atomic_load(&k->dyn_smem_set))
        return HCL_SUCCESS;
    hcl_status st =
        HCL_GPU_CALL(cuFuncSetAttribute, (k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes),
                     "kernel '%s': opting in to %zu bytes of dynamic shared memory", k->name, shared_bytes);
    if (st == HCL_SUCCESS) atomic_store(&k->dyn_smem_set, (int)shared_bytes);
    return st;
}

/* Launches of the kernel from now on as programmatic dependent launches (cuLaunchKernelEx, driver 12.0+, on sm_90 and
 * later: else HCL_ERROR_UNSUPPORTED); the kernel waits for the one before it itself. */
hcl_status hcl__gpu_kernel_wait_in_device(void *kernel) {
    hcl__gpu_kernel *k = kernel;
    if (!hcl__gpu.cuLaunchKernelEx || k->mod->dev->cc_major < 9)
        return HCL_KIT_FAIL(
            HCL_ERROR_UNSUPPORTED, "%s: kernel '%s': no programmatic dependent launch here (%s)", HCL_GPU_NAME, k->name,
            hcl__gpu.cuLaunchKernelEx ? "it needs sm_90 or later" : "the driver has no cuLaunchKernelEx");
    k->waits_in_device = 1;
    return HCL_SUCCESS;
}

/* cuOccupancyMaxActiveClusters for clusters of `cluster_blocks` blocks (driver 11.8+: else HCL_ERROR_UNSUPPORTED). */
hcl_status hcl__gpu_kernel_max_clusters(void *kernel, uint32_t cluster_blocks, uint32_t threads, size_t shared_bytes,
                                        uint32_t *out_count) {
    hcl__gpu_kernel *k = kernel;
    if (!hcl__gpu.cuOccupancyMaxActiveClusters) return HCL_ERROR_UNSUPPORTED;
    CUlaunchAttribute cluster;
    memset(&cluster, 0, sizeof cluster);
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = cluster_blocks, cluster.value.clusterDim.y = 1, cluster.value.clusterDim.z = 1;
    CUlaunchConfig config;
    memset(&config, 0, sizeof config);
    config.gridDimX = cluster_blocks, config.gridDimY = 1, config.gridDimZ = 1;
    config.blockDimX = threads, config.blockDimY = 1, config.blockDimZ = 1;
    config.sharedMemBytes = (unsigned int)shared_bytes;
    config.attrs = &cluster, config.numAttrs = 1;
    int count = 0;
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(k->mod->dev, &scope);
    if (st != HCL_SUCCESS) return st;
    st = opt_in_shared(k, k->mod->dev, shared_bytes);
    if (st == HCL_SUCCESS)
        st = HCL_GPU_CALL(cuOccupancyMaxActiveClusters, (&count, k->fn, &config),
                          "kernel '%s': clusters of %u blocks of %u threads with %zu bytes of shared memory", k->name,
                          cluster_blocks, threads, shared_bytes);
    hcl__gpu_leave(&scope);
    if (st == HCL_SUCCESS) *out_count = count > 0 ? (uint32_t)count : 0;
    return st;
}
#endif

/* Kinds from the text the module was made from (the `__global__` signature of the source NVRTC / hiprtc compiled, or
 * PTX's `.ptr` marks), sizes from the runtime (cuFuncGetParamInfo); where the two disagree the runtime wins and the
 * kind is UNKNOWN. HIP binaries give nothing (HIP has no parameter query): HCL_ERROR_UNSUPPORTED, no message. */
hcl_status hcl__gpu_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                  uint32_t *out_flags) {
    const hcl__gpu_kernel *k = kernel;
    const hcl__gpu_module *m = k->mod;
    (void)out_flags; /* dynamic shared memory is not a parameter here */
    uint32_t count = 0;
    int parsed = 0;
    if (m->text)
        parsed = m->text_is_ptx ? hcl__kit_ptx_params(m->text, m->text_size, k->name, out, max, &count)
                                : hcl__kit_cuda_params(m->text, m->text_size, k->name, out, max, &count);
    const int sized = k->num_params != HCL_GPU_UNKNOWN_PARAMS;
    if (parsed && sized && count != k->num_params) parsed = 0; /* the text misread (a macro, an #if): the runtime */
    if (!parsed && !sized) return HCL_ERROR_UNSUPPORTED;
    if (!parsed) count = k->num_params;
    for (uint32_t i = 0; i < count && i < max; i++) {
        if (!parsed) hcl__kit_param_set(&out[i], HCL_DRIVER_PARAM_UNKNOWN, 0, NULL, 0, NULL, 0);
        if (!sized) continue;
        const uint32_t size = k->param_sizes[i];
        if ((out[i].kind == HCL_DRIVER_PARAM_VALUE && out[i].size != size) ||
            (out[i].kind == HCL_DRIVER_PARAM_BUFFER && size != sizeof(hcl_gpu_dptr)))
            out[i].kind = HCL_DRIVER_PARAM_UNKNOWN;
        if (out[i].kind != HCL_DRIVER_PARAM_BUFFER) out[i].size = size;
    }
    *out_count = count;
    return HCL_SUCCESS;
}

void hcl__gpu_kernel_destroy(void *kernel) {
    hcl__gpu_kernel *k = kernel;
    if (!k) return;
    free(k->param_sizes);
    free(k);
}

#define HCL_GPU_TENSOR_MAP_BYTES 128 /* sizeof(CUtensorMap) */
#define HCL_GPU_MAX_TENSOR_MAPS 4
#if HCL_GPU_CUDA
_Static_assert(sizeof(CUtensorMap) == HCL_GPU_TENSOR_MAP_BYTES, "CUtensorMap is 128 bytes");
#endif

static hcl_status check_launch(const hcl__gpu_device *d, const hcl__gpu_kernel *k, hcl_dim3 grid, hcl_dim3 block,
                               uint32_t num_args, const hcl_driver_arg *args) {
    const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    for (int i = 0; i < 3; i++) {
        if (d->max_grid[i] > 0 && g[i] > (uint32_t)d->max_grid[i])
            return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "%s: grid.%c = %u is above the device's limit %d",
                                HCL_GPU_NAME, "xyz"[i], g[i], d -> max_grid[i]);
        if (d->max_block[i] > 0 && b[i] > (uint32_t)d->max_block[i])
            return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "%s: block.%c = %u is above the device's limit %d",
                                HCL_GPU_NAME, "xyz"[i], b[i], d -> max_block[i]);
    }
    if (k->num_params == HCL_GPU_UNKNOWN_PARAMS) return HCL_SUCCESS;
    if (num_args != k->num_params)
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "%s: kernel '%s' takes %u parameters, %u given", HCL_GPU_NAME,
                            k->name, k->num_params, num_args);
    for (uint32_t i = 0; i < num_args; i++) {
        const hcl_driver_arg_kind kind = args[i].kind;
        size_t given = kind == HCL_DRIVER_ARG_BUFFER       ? sizeof(hcl_gpu_dptr)
                       : kind == HCL_DRIVER_ARG_TENSOR_MAP ? HCL_GPU_TENSOR_MAP_BYTES
                                                           : args[i].size;
        if (given != k->param_sizes[i])
            return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: kernel '%s' parameter %u is %u bytes, the %s argument is %zu bytes", HCL_GPU_NAME,
                                k->name, i, k->param_sizes[i],
                                kind == HCL_DRIVER_ARG_BUFFER       ? "buffer (pointer)"
                                : kind == HCL_DRIVER_ARG_TENSOR_MAP ? "tensor map"
                                                                    : "value",
                                given);
    }
    return HCL_SUCCESS;
}

/* The tensor map of a HCL_DRIVER_ARG_TENSOR_MAP argument (hcl_driver.h), written into `out` (HCL_GPU_TENSOR_MAP_BYTES). */
static hcl_status encode_tensor_map(const hcl_driver_arg *a, void *out) {
    const hcl_driver_tensor_map *t = a->value;
#if HCL_GPU_CUDA
    if (!hcl__gpu.cuTensorMapEncodeTiled)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                            "%s: the driver has no cuTensorMapEncodeTiled (tensor maps need CUDA 12)", HCL_GPU_NAME);
    /* the copy moves bytes: an element type of its size (with no fill value outside the tensor but zeros) */
    const uint32_t bytes = a->size >= sizeof *t ? t->elem_bytes : 0u;
    if (bytes != 1 && bytes != 2 && bytes != 4)
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "%s: a tensor map of %u-byte elements (1, 2 or 4 encode)",
                            HCL_GPU_NAME, bytes);
    const CUtensorMapDataType type = bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                     : bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                  : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const cuuint64_t dims[2] = {t->dims[0], t->dims[1]}, row[1] = {t->row_bytes};
    const cuuint32_t box[2] = {t->box[0], t->box[1]}, step[2] = {1, 1};
    return HCL_GPU_CALL(cuTensorMapEncodeTiled,
                        ((CUtensorMap *)out, type, 2, (void *)(uintptr_t)hcl__gpu_ptr_at(a->mem, a->offset), dims, row,
                         box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                         CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                        "a tensor map of %llu x %llu elements, rows of %llu bytes, box %u x %u",
                        (unsigned long long)t->dims[0], (unsigned long long)t->dims[1],
                        (unsigned long long)t->row_bytes, t->box[0], t->box[1]);
#else
    (void)t, (void)out;
    return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "%s: tensor map arguments are a CUDA feature", HCL_GPU_NAME);
#endif
}

#define HCL_GPU_STACK_ARGS 32

hcl_status hcl__gpu_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                  uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                  void **out_event) {
    hcl__gpu_queue *q = queue;
    hcl__gpu_kernel *k = kernel;
    hcl_status st = check_launch(q->dev, k, grid, block, num_args, args);
    if (st != HCL_SUCCESS) return st;

    void *stack_params[HCL_GPU_STACK_ARGS];
    hcl_gpu_dptr stack_ptrs[HCL_GPU_STACK_ARGS];
    void **params = stack_params;
    hcl_gpu_dptr *ptrs = stack_ptrs;
    if (num_args > HCL_GPU_STACK_ARGS) {
        params = malloc(num_args * sizeof *params);
        ptrs = malloc(num_args * sizeof *ptrs);
        if (!params || !ptrs) {
            if (params != stack_params) free(params);
            if (ptrs != stack_ptrs) free(ptrs);
            return hcl__kit_oom("launch arguments");
        }
    }
    /* kernelParams holds a pointer to each argument's bytes: the device address for a buffer (kept in ptrs[]
     * until the launch has copied it), the caller's bytes for a value, the encoded map (in maps[]) for a tensor map */
    _Alignas(64) unsigned char maps[HCL_GPU_MAX_TENSOR_MAPS][HCL_GPU_TENSOR_MAP_BYTES];
    uint32_t num_maps = 0;
    for (uint32_t i = 0; i < num_args && st == HCL_SUCCESS; i++) {
        if (args[i].kind == HCL_DRIVER_ARG_BUFFER) {
            ptrs[i] = hcl__gpu_ptr_at(args[i].mem, args[i].offset);
            params[i] = &ptrs[i];
        } else if (args[i].kind == HCL_DRIVER_ARG_TENSOR_MAP && num_maps < HCL_GPU_MAX_TENSOR_MAPS) {
            params[i] = maps[num_maps++]; /* encoded below, where the device's context is current */
        } else if (args[i].kind == HCL_DRIVER_ARG_TENSOR_MAP) {
            st = HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "%s: a launch takes at most %d tensor maps", HCL_GPU_NAME,
                              HCL_GPU_MAX_TENSOR_MAPS);
        } else {
            params[i] = (void *)args[i].value;
        }
    }

    hcl__gpu_cmd cmd;
    if (st == HCL_SUCCESS) st = hcl__gpu_cmd_begin(&cmd, q, num_wait, wait, out_event);
    if (st == HCL_SUCCESS) {
        for (uint32_t i = 0; i < num_args && st == HCL_SUCCESS; i++)
            if (args[i].kind == HCL_DRIVER_ARG_TENSOR_MAP) st = encode_tensor_map(&args[i], params[i]);
#if HCL_GPU_CUDA
        /* above the default 48 KiB a kernel must opt in to its dynamic shared memory */
        if (st == HCL_SUCCESS) st = opt_in_shared(k, q->dev, shared_bytes);
#endif
#if HCL_GPU_CUDA
        if (st == HCL_SUCCESS && k->waits_in_device) {
            /* it may begin before the kernel before it ends: it waits for that one in the device itself */
            CUlaunchAttribute early;
            memset(&early, 0, sizeof early);
            early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            early.value.programmaticStreamSerializationAllowed = 1;
            CUlaunchConfig config;
            memset(&config, 0, sizeof config);
            config.gridDimX = grid.x, config.gridDimY = grid.y, config.gridDimZ = grid.z;
            config.blockDimX = block.x, config.blockDimY = block.y, config.blockDimZ = block.z;
            config.sharedMemBytes = (unsigned int)shared_bytes;
            config.hStream = q->stream;
            config.attrs = &early, config.numAttrs = 1;
            st = HCL_GPU_CALL(cuLaunchKernelEx, (&config, k->fn, params, NULL),
                              "kernel '%s' grid (%u, %u, %u) block (%u, %u, %u) shared_bytes=%zu, launched early",
                              k->name, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes);
        } else
#endif
            if (st == HCL_SUCCESS)
            st = HCL_GPU(LaunchKernel,
                         (k->fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned int)shared_bytes,
                          q->stream, params, NULL),
                         "kernel '%s' grid (%u, %u, %u) block (%u, %u, %u) shared_bytes=%zu", k->name, grid.x, grid.y,
                         grid.z, block.x, block.y, block.z, shared_bytes);
        st = hcl__gpu_cmd_end(&cmd, st, 0, "a kernel launch", out_event);
    }
    if (params != stack_params) free(params);
    if (ptrs != stack_ptrs) free(ptrs);
    return st;
}
