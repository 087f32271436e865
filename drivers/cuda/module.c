/* Modules and kernels: user CUDA C through NVRTC (cached on disk), fatbin/cubin/PTX loaded directly, launches with
 * cuLaunchKernel. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hcl__cu_module {
    hcl__cu_device *dev;
    CUmodule module;
} hcl__cu_module;

#define HCL_CU_UNKNOWN_PARAMS UINT32_MAX

typedef struct hcl__cu_kernel {
    hcl__cu_module *mod;
    CUfunction fn;
    atomic_int dyn_smem_set;   /* dynamic shared memory this kernel has opted in to so far */
    uint32_t num_params;       /* from cuFuncGetParamInfo; HCL_CU_UNKNOWN_PARAMS when the driver cannot say */
    uint32_t *param_sizes;
    char name[];
} hcl__cu_kernel;

hcl_status hcl__cu_module_load(const void *image, const char *what, CUmodule *out_module) {
    char log[8192];
    log[0] = '\0';
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = hcl__cu.cuModuleLoadDataEx(out_module, image, 2, opts, vals);
    if (r == CUDA_SUCCESS) return HCL_SUCCESS;
    log[sizeof log - 1] = '\0';
    return hcl__cu_fail(r, "cuModuleLoadDataEx", "loading %s%s%s", what, log[0] ? "; JIT log:\n" : "", log);
}

static const char *kind_name(hcl_source_kind k) {
    switch (k) {
    case HCL_SOURCE_OPENCL_C: return "OPENCL_C";
    case HCL_SOURCE_CUDA_C: return "CUDA_C";
    case HCL_SOURCE_HIP_C: return "HIP_C";
    case HCL_SOURCE_SPIRV: return "SPIRV";
    case HCL_SOURCE_CUDA_BINARY: return "CUDA_BINARY";
    case HCL_SOURCE_HIP_BINARY: return "HIP_BINARY";
    case HCL_SOURCE_HOST_TABLE: return "HOST_TABLE";
    }
    return "unknown";
}

/* A PTX text handed in without its NUL must get one; fatbins and cubins are ELF/fatbin images CUDA sizes
 * itself. */
static hcl_status load_binary(const hcl_module_source *src, CUmodule *out_module) {
    const unsigned char *data = src->data;
    int is_text = src->size >= 1 && !(src->size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' &&
                                      data[3] == 'F') &&
                  !(src->size >= 4 && data[0] == 0x50 && data[1] == 0xed && data[2] == 0x55 && data[3] == 0xba) &&
                  data[src->size - 1] != '\0';
    if (!is_text) return hcl__cu_module_load(src->data, "a CUDA binary", out_module);
    char *copy = malloc(src->size + 1);
    if (!copy) return hcl__cu_oom("PTX copy");
    memcpy(copy, src->data, src->size);
    copy[src->size] = '\0';
    hcl_status st = hcl__cu_module_load(copy, "PTX text", out_module);
    free(copy);
    return st;
}

static hcl_status build_source(hcl__cu_device *d, const hcl_module_source *src, CUmodule *out_module) {
    hcl__cu_nvrtc_job job = {
        .source = src->data,
        .source_size = src->size,
        .name = "user.cu",
        .options = src->options,
        .arch = d->cc_major * 10 + d->cc_minor,
        .driver_version = hcl__cu_driver_version,
    };
    void *image = NULL;
    size_t size = 0;
    int is_cubin = 0;
    hcl_status st = hcl__cu_nvrtc_compile(&job, &image, &size, &is_cubin);
    if (st != HCL_SUCCESS) return st;
    st = hcl__cu_module_load(image, is_cubin ? "NVRTC's CUBIN" : "NVRTC's PTX", out_module);
    free(image);
    return st;
}

/* The first source this driver takes decides: CUDA_BINARY always, CUDA_C when NVRTC loads. A source that is
 * taken and fails to build is an error; there is no fall-through to later sources after that. */
hcl_status hcl__cu_module_create(void *device, const hcl_module_source *sources, uint32_t count,
                                 void **out_module) {
    hcl__cu_device *d = device;
    char given[512] = "";
    const hcl_module_source *pick = NULL;
    int nvrtc_missing = 0;
    for (uint32_t i = 0; i < count && !pick; i++) {
        size_t used = strlen(given);
        snprintf(given + used, sizeof given - used, "%s%s", i ? ", " : "", kind_name(sources[i].kind));
        if (sources[i].kind == HCL_SOURCE_CUDA_BINARY) {
            pick = &sources[i];
        } else if (sources[i].kind == HCL_SOURCE_CUDA_C) {
            if (hcl__cu_nvrtc_open() == HCL_SUCCESS)
                pick = &sources[i];
            else
                nvrtc_missing = 1; /* a later binary may still do */
        }
    }
    if (!pick)
        return hcl__cu_host->set_message(HCL_ERROR_UNSUPPORTED,
                                         "cuda: no source it can take among [%s]; it takes CUDA_C (through NVRTC%s%s) "
                                         "and CUDA_BINARY (fatbin, cubin or PTX)",
                                         given, nvrtc_missing ? ", which is not available: " : "",
                                         nvrtc_missing ? hcl__cu_nvrtc_reason() : "");
    hcl__cu_module *m = calloc(1, sizeof *m);
    if (!m) return hcl__cu_oom("module");
    m->dev = d;
    hcl__cu_scope scope;
    hcl_status st = hcl__cu_enter(d, &scope);
    if (st == HCL_SUCCESS) {
        st = pick->kind == HCL_SOURCE_CUDA_BINARY ? load_binary(pick, &m->module) : build_source(d, pick, &m->module);
        hcl__cu_leave(&scope);
    }
    if (st != HCL_SUCCESS) {
        free(m);
        return st;
    }
    *out_module = m;
    return HCL_SUCCESS;
}

void hcl__cu_module_destroy(void *module) {
    hcl__cu_module *m = module;
    if (!m) return;
    hcl__cu_scope scope;
    if (hcl__cu_enter(m->dev, &scope) == HCL_SUCCESS) {
        hcl__cu.cuModuleUnload(m->module);
        hcl__cu_leave(&scope);
    }
    free(m);
}

/* Parameter sizes let launches refuse an argument of the wrong size instead of having CUDA read past it. */
static void query_params(hcl__cu_kernel *k) {
    k->num_params = HCL_CU_UNKNOWN_PARAMS;
    if (!hcl__cu.cuFuncGetParamInfo) return;
    uint32_t cap = 8, n = 0;
    uint32_t *sizes = malloc(cap * sizeof *sizes);
    if (!sizes) return;
    for (;;) {
        size_t off = 0, size = 0;
        CUresult r = hcl__cu.cuFuncGetParamInfo(k->fn, n, &off, &size);
        if (r == CUDA_ERROR_INVALID_VALUE) break; /* past the last parameter */
        if (r != CUDA_SUCCESS || n >= 4096) {     /* the driver cannot say: no checking */
            free(sizes);
            return;
        }
        if (n == cap) {
            uint32_t *grown = realloc(sizes, 2 * cap * sizeof *sizes);
            if (!grown) {
                free(sizes);
                return;
            }
            sizes = grown;
            cap *= 2;
        }
        sizes[n++] = (uint32_t)size;
    }
    k->param_sizes = sizes;
    k->num_params = n;
}

hcl_status hcl__cu_kernel_create(void *module, const char *name, void **out_kernel) {
    hcl__cu_module *m = module;
    size_t len = strlen(name);
    hcl__cu_kernel *k = calloc(1, sizeof *k + len + 1);
    if (!k) return hcl__cu_oom("kernel");
    memcpy(k->name, name, len + 1);
    k->mod = m;
    atomic_init(&k->dyn_smem_set, 0);
    hcl__cu_scope scope;
    hcl_status st = hcl__cu_enter(m->dev, &scope);
    if (st == HCL_SUCCESS) {
        st = HCL_CU(cuModuleGetFunction, (&k->fn, m->module, name),
                    "kernel '%s' (a CUDA C++ kernel needs extern \"C\" to be found by its plain name)", name);
        if (st == HCL_SUCCESS) query_params(k);
        hcl__cu_leave(&scope);
    }
    if (st != HCL_SUCCESS) {
        free(k);
        return st;
    }
    *out_kernel = k;
    return HCL_SUCCESS;
}

void hcl__cu_kernel_destroy(void *kernel) {
    hcl__cu_kernel *k = kernel;
    if (!k) return;
    free(k->param_sizes);
    free(k);
}

static hcl_status check_launch(const hcl__cu_device *d, const hcl__cu_kernel *k, hcl_dim3 grid, hcl_dim3 block,
                               uint32_t num_args, const hcl_driver_arg *args) {
    const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    for (int i = 0; i < 3; i++) {
        if (d->max_grid[i] > 0 && g[i] > (uint32_t)d->max_grid[i])
            return hcl__cu_host->set_message(HCL_ERROR_INVALID_ARGUMENT,
                                             "cuda: grid.%c = %u is above the device's limit %d", "xyz"[i], g[i],
                                             d->max_grid[i]);
        if (d->max_block[i] > 0 && b[i] > (uint32_t)d->max_block[i])
            return hcl__cu_host->set_message(HCL_ERROR_INVALID_ARGUMENT,
                                             "cuda: block.%c = %u is above the device's limit %d", "xyz"[i], b[i],
                                             d->max_block[i]);
    }
    if (k->num_params == HCL_CU_UNKNOWN_PARAMS) return HCL_SUCCESS;
    if (num_args != k->num_params)
        return hcl__cu_host->set_message(HCL_ERROR_INVALID_ARGUMENT, "cuda: kernel '%s' takes %u parameters, %u given",
                                         k->name, k->num_params, num_args);
    for (uint32_t i = 0; i < num_args; i++) {
        size_t given = args[i].kind == HCL_ARG_BUFFER ? sizeof(CUdeviceptr) : args[i].size;
        if (given != k->param_sizes[i])
            return hcl__cu_host->set_message(
                HCL_ERROR_INVALID_ARGUMENT, "cuda: kernel '%s' parameter %u is %u bytes, the %s argument is %zu bytes",
                k->name, i, k->param_sizes[i], args[i].kind == HCL_ARG_BUFFER ? "buffer (pointer)" : "value", given);
    }
    return HCL_SUCCESS;
}

#define HCL_CU_STACK_ARGS 32

hcl_status hcl__cu_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                 uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                 void **out_event) {
    hcl__cu_queue *q = queue;
    hcl__cu_kernel *k = kernel;
    hcl_status st = check_launch(q->dev, k, grid, block, num_args, args);
    if (st != HCL_SUCCESS) return st;

    void *stack_params[HCL_CU_STACK_ARGS];
    CUdeviceptr stack_ptrs[HCL_CU_STACK_ARGS];
    void **params = stack_params;
    CUdeviceptr *ptrs = stack_ptrs;
    if (num_args > HCL_CU_STACK_ARGS) {
        params = malloc(num_args * sizeof *params);
        ptrs = malloc(num_args * sizeof *ptrs);
        if (!params || !ptrs) {
            if (params != stack_params) free(params);
            if (ptrs != stack_ptrs) free(ptrs);
            return hcl__cu_oom("launch arguments");
        }
    }
    /* kernelParams holds a pointer to each argument's bytes: the device address for a buffer (kept in ptrs[]
     * until the launch has copied it), the caller's bytes for a value */
    for (uint32_t i = 0; i < num_args; i++) {
        if (args[i].kind == HCL_ARG_BUFFER) {
            ptrs[i] = hcl__cu_ptr(args[i].mem) + args[i].offset;
            params[i] = &ptrs[i];
        } else {
            params[i] = (void *)args[i].value;
        }
    }

    hcl__cu_cmd cmd;
    st = hcl__cu_cmd_begin(&cmd, q, num_wait, wait, out_event);
    if (st == HCL_SUCCESS) {
        /* above the default 48 KiB a kernel must opt in to its dynamic shared memory */
        if (shared_bytes > (size_t)q->dev->smem_default && (int)shared_bytes > atomic_load(&k->dyn_smem_set)) {
            st = HCL_CU(cuFuncSetAttribute, (k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes),
                        "kernel '%s': opting in to %zu bytes of dynamic shared memory", k->name, shared_bytes);
            if (st == HCL_SUCCESS) atomic_store(&k->dyn_smem_set, (int)shared_bytes);
        }
        if (st == HCL_SUCCESS)
            st = HCL_CU(cuLaunchKernel,
                        (k->fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned int)shared_bytes,
                         q->stream, params, NULL),
                        "kernel '%s' grid (%u, %u, %u) block (%u, %u, %u) shared_bytes=%zu", k->name, grid.x, grid.y,
                        grid.z, block.x, block.y, block.z, shared_bytes);
        st = hcl__cu_cmd_end(&cmd, st, 0, "a kernel launch", out_event);
    }
    if (params != stack_params) free(params);
    if (ptrs != stack_ptrs) free(ptrs);
    return st;
}
