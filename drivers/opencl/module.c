/* Programs (built from OpenCL C through the on-disk binary cache), kernels and launches. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hcl__ocl_module {
    hcl__ocl_device *device;
    pthread_mutex_t lock; /* guards program and the fields below (a rebuild replaces the program) */
    cl_program program;
    /* Set while `program` came from the cache: the source to rebuild it from, once, when the binary lacks a kernel
     * that is asked for (a forged or stale entry) or the argument info its source build had. NULL once built from
     * source. */
    char *source;
    size_t length;
    char *options;
} hcl__ocl_module;

#define ARG_INFO_OPTION "-cl-kernel-arg-info"

typedef struct hcl__ocl_kernel {
    hcl__ocl_module *module;
    cl_kernel kernel;
    cl_uint num_args;     /* parameters the kernel declares (CL_KERNEL_NUM_ARGS) */
    pthread_mutex_t lock; /* clSetKernelArg mutates the kernel: one launch at a time sets and enqueues */
    char name[128];
} hcl__ocl_kernel;

/* ---------------------------------------------------------------------------------------------------------
 * Building through the cache
 * ------------------------------------------------------------------------------------------------------- */
/* The cache key: every input that changes the binary. */
static char *cache_key(const hcl__ocl_device *dev, const char *source, size_t length, const char *options,
                       size_t *out_size) {
    const hcl__ocl_device_entry *e = dev->entry;
    return hcl__kit_cache_key(source, length, out_size,
                              "hcl-opencl-program-1\ndevice=%s\nvendor=%s\ndevice_version=%s\ndriver_version=%s\n"
                              "platform_version=%s\noptions=%s\nsource=",
                              e->info.name, e->info.vendor, e->device_version, e->info.driver_version,
                              e->platform_version, options);
}

static char *build_log(cl_program program, cl_device_id device) {
    size_t size = 0;
    if (hcl__cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS) return NULL;
    char *log = calloc(1, size + 1);
    if (!log) return NULL;
    if (hcl__cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    return log;
}

/* Store the program's binary for next time; a failure here only costs a rebuild later. */
static void cache_store(const hcl__ocl_device *dev, cl_program program, const char *key, size_t key_size) {
    size_t bin_size = 0;
    unsigned char *bin = NULL;
    if (!hcl__kit_host->cache_store) return;
    cl_int err = hcl__cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL);
    if (err != CL_SUCCESS || bin_size == 0) {
        HCL_OCL_LOG("no program binary to cache (%s)", hcl__ocl_error_name(err));
        return;
    }
    bin = malloc(bin_size);
    if (!bin) return;
    err = hcl__cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    if (err == CL_SUCCESS) {
        hcl__kit_host->cache_store(HCL_OCL_NAME, key, key_size, bin, bin_size);
        HCL_OCL_LOG("cached a program binary of %zu bytes for '%s'", bin_size, dev->entry->info.name);
    } else {
        HCL_OCL_LOG("clGetProgramInfo(CL_PROGRAM_BINARIES): %s (%d); not cached", hcl__ocl_error_name(err), (int)err);
    }
    free(bin);
}

/* A cached binary that loads but does not work is evicted, so that the build from source replaces it. */
static void cache_evict(const char *key, size_t key_size, const char *what, cl_int err) {
    hcl__kit_host->log(HCL_LOG_WARN, HCL_OCL_NAME,
                       "cached program binary refused (%s: %s (%d)); evicted, building from "
                       "source",
                       what, hcl__ocl_error_name(err), (int)err);
    if (HCL_DRIVER_HOST_HAS(hcl__kit_host, cache_evict)) hcl__kit_host->cache_evict(HCL_OCL_NAME, key, key_size);
}

/* Try a cached binary; NULL when there is none or it no longer builds (then the source is built instead). */
static cl_program from_cache(const hcl__ocl_device *dev, const char *key, size_t key_size, const char *options) {
    if (!hcl__kit_host->cache_load) return NULL;
    size_t size = 0;
    unsigned char *bin = hcl__kit_host->cache_load(HCL_OCL_NAME, key, key_size, &size);
    if (!bin) return NULL;
    cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program program = hcl__cl.clCreateProgramWithBinary(dev->context, 1, &dev->id, &size, bins, &bin_status, &err);
    free(bin);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        cache_evict(key, key_size, "clCreateProgramWithBinary", err != CL_SUCCESS ? err : bin_status);
        if (program) hcl__cl.clReleaseProgram(program);
        return NULL;
    }
    err = hcl__cl.clBuildProgram(program, 1, &dev->id, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        cache_evict(key, key_size, "clBuildProgram", err);
        hcl__cl.clReleaseProgram(program);
        return NULL;
    }
    HCL_OCL_LOG("program binary of %zu bytes loaded from the cache", size);
    return program;
}

hcl_status hcl__ocl_program_build(hcl__ocl_device *dev, const char *source, size_t length, const char *options,
                                  int use_cache, cl_program *out_program, int *out_from_cache) {
    hcl_status status = HCL_SUCCESS;
    cl_program program = NULL;
    char *log = NULL;
    size_t key_size = 0;
    if (!options) options = "";
    if (out_from_cache) *out_from_cache = 0;
    char *key = cache_key(dev, source, length, options, &key_size);
    if (!key) return hcl__kit_oom("program cache key");

    if (use_cache) {
        program = from_cache(dev, key, key_size, options);
        if (program) {
            if (out_from_cache) *out_from_cache = 1;
            goto done;
        }
    } else {
        /* the entry's binary failed after it loaded: it must not be loaded again, whatever the build below gives */
        if (HCL_DRIVER_HOST_HAS(hcl__kit_host, cache_evict)) hcl__kit_host->cache_evict(HCL_OCL_NAME, key, key_size);
    }

    cl_int err = CL_SUCCESS;
    program = hcl__cl.clCreateProgramWithSource(dev->context, 1, &source, &length, &err);
    HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateProgramWithSource", "%zu bytes of OpenCL C", length);
    err = hcl__cl.clBuildProgram(program, 1, &dev->id, options, NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS || err == CL_COMPILE_PROGRAM_FAILURE) {
        log = build_log(program, dev->id);
        status = hcl__kit_build_failed(log, "clBuildProgram: %s (%d) on '%s' with options '%s'",
                                       hcl__ocl_error_name(err), (int)err, dev->entry->info.name, options);
        goto cleanup;
    }
    HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clBuildProgram", "on '%s' with options '%s'", dev->entry->info.name, options);
    HCL_OCL_LOG("built a program of %zu bytes of source for '%s' (options '%s')", length, dev->entry->info.name,
                options);
    cache_store(dev, program, key, key_size);
done:
    *out_program = program;
    program = NULL;
cleanup:
    if (program) hcl__cl.clReleaseProgram(program);
    free(log);
    free(key);
    return status;
}

/* ---------------------------------------------------------------------------------------------------------
 * Modules and kernels
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ocl_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out_module) {
    hcl__ocl_device *dev = device;
    const hcl_module_source *src = hcl__kit_source_pick(sources, count, HCL_KIT_KIND(HCL_SOURCE_OPENCL_C));
    if (!src) return hcl__kit_source_unsupported(count, "HCL_SOURCE_OPENCL_C");
    /* a text may carry its NUL; the compiler must not see it */
    const char *text = src->data;
    size_t length = src->size;
    while (length > 0 && text[length - 1] == '\0') length--;
    if (length == 0) return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "opencl: the OpenCL C source is empty");

    hcl__ocl_module *m = calloc(1, sizeof *m);
    if (!m) return hcl__kit_oom("module");
    m->device = dev;
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m);
        return HCL_KIT_FAIL(HCL_ERROR_OUT_OF_MEMORY, "opencl: pthread_mutex_init failed");
    }
    /* On NVIDIA devices the compute capability as HCL_CL_NV_SM (major * 10 + minor, from info.arch "sm_XY"), before
     * the source's own options: a source can then take PTX instructions that exist from some architecture on (the
     * built-ins' one-instruction 16-bit conversions, sm_80 and later: kernels/hcl_cl_types.h). */
    const char *user = src->options ? src->options : "", *arch = dev->entry->info.arch;
    char sm[40] = "";
    if (strncmp(arch, "sm_", 3) == 0 && arch[3] >= '1' && arch[3] <= '9')
        snprintf(sm, sizeof sm, "-D HCL_CL_NV_SM=%d", atoi(arch + 3));
    const size_t given_size = strlen(sm) + strlen(user) + 2;
    char *given = malloc(given_size);
    /* kernel argument info (names, types, address spaces) for kernel_params: a few bytes per kernel */
    char *options = given ? malloc(given_size + sizeof ARG_INFO_OPTION + 1) : NULL;
    if (!options) {
        free(given);
        pthread_mutex_destroy(&m->lock);
        free(m);
        return hcl__kit_oom("build options");
    }
    snprintf(given, given_size, "%s%s%s", sm, *sm && *user ? " " : "", user);
    snprintf(options, given_size + sizeof ARG_INFO_OPTION + 1, "%s%s%s", ARG_INFO_OPTION, *given ? " " : "", given);
    int from_cache = 0;
    hcl_status status = hcl__ocl_program_build(dev, text, length, options, 1, &m->program, &from_cache);
    if (status == HCL_ERROR_BUILD) {
        /* NVIDIA's compiler (driver 580) writes PTX that its own ptxas refuses ("syntax error near '}'") for a kernel
         * without parameters when asked for argument info: once more without it. The parameters' kinds are then
         * unknown to kernel_params, as for a binary built elsewhere. A source that is wrong fails both times and
         * reports the second build's log. */
        status = hcl__ocl_program_build(dev, text, length, given, 1, &m->program, &from_cache);
        if (status == HCL_SUCCESS) {
            hcl__kit_host->log(HCL_LOG_WARN, HCL_OCL_NAME,
                               "'%s' failed to build the program with %s and built it without: its kernels' "
                               "parameter kinds are unknown",
                               dev->entry->info.name, ARG_INFO_OPTION);
            memmove(options, given, strlen(given) + 1); /* what a rebuild from source uses */
        }
    }
    if (status == HCL_SUCCESS && from_cache) { /* keep what a rebuild needs */
        m->source = malloc(length);
        if (m->source) {
            memcpy(m->source, text, length);
            m->length = length;
            m->options = options;
            options = NULL;
        } /* else no rebuild possible: a kernel missing from the binary is not found */
    }
    free(options);
    free(given);
    if (status != HCL_SUCCESS) {
        pthread_mutex_destroy(&m->lock);
        free(m);
        return status;
    }
    *out_module = m;
    return HCL_SUCCESS;
}

void hcl__ocl_module_destroy(void *module) {
    hcl__ocl_module *m = module;
    if (!m) return;
    if (m->program) hcl__cl.clReleaseProgram(m->program);
    free(m->source);
    free(m->options);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* The module's program came from the cache and lacks what kernel `name` needs (`why`): the kernel itself (the entry is
 * stale or forged: a warning), or its argument info. Evict the entry, build the source again (once: the module then
 * holds a program built from source) and give the new program. Kernels made from the old program keep it alive
 * (OpenCL reference counts). Called with m->lock held. */
static hcl_status rebuild_from_source(hcl__ocl_module *m, const char *name, hcl_log_level level, const char *why) {
    hcl__kit_host->log(level, HCL_OCL_NAME,
                       "kernel '%s': %s a program binary loaded from the cache; evicting the entry and building from "
                       "source",
                       name, why);
    cl_program program = NULL;
    hcl_status status = hcl__ocl_program_build(m->device, m->source, m->length, m->options, 0, &program, NULL);
    if (status != HCL_SUCCESS) return status;
    hcl__cl.clReleaseProgram(m->program);
    m->program = program;
    free(m->source);
    free(m->options);
    m->source = m->options = NULL;
    return HCL_SUCCESS;
}

hcl_status hcl__ocl_kernel_create(void *module, const char *name, void **out_kernel) {
    hcl__ocl_module *m = module;
    hcl_status status = HCL_SUCCESS;
    hcl__ocl_kernel *k = calloc(1, sizeof *k);
    if (!k) return hcl__kit_oom("kernel");
    k->module = m;
    snprintf(k->name, sizeof k->name, "%s", name);
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&m->lock);
    k->kernel = hcl__cl.clCreateKernel(m->program, name, &err);
    if ((err == CL_INVALID_KERNEL_NAME || err == CL_INVALID_PROGRAM_EXECUTABLE) && m->source) {
        status = rebuild_from_source(m, name, HCL_LOG_WARN, "missing from");
        if (status == HCL_SUCCESS) k->kernel = hcl__cl.clCreateKernel(m->program, name, &err);
    }
    pthread_mutex_unlock(&m->lock);
    if (status != HCL_SUCCESS) goto cleanup;
    if (err == CL_INVALID_KERNEL_NAME) {
        status = HCL_KIT_FAIL(HCL_ERROR_NOT_FOUND, "clCreateKernel: %s (%d); no kernel '%s' in the module",
                              hcl__ocl_error_name(err), (int)err, name);
        goto cleanup;
    }
    HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateKernel", "kernel '%s'", name);
    HCL_OCL_CHECK(hcl__cl.clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof k->num_args, &k->num_args, NULL),
                  HCL_OCL_CALL, "clGetKernelInfo", "CL_KERNEL_NUM_ARGS of kernel '%s'", name);
    if (pthread_mutex_init(&k->lock, NULL) != 0) {
        status = HCL_KIT_FAIL(HCL_ERROR_OUT_OF_MEMORY, "opencl: pthread_mutex_init failed");
        goto cleanup;
    }
    *out_kernel = k;
    return HCL_SUCCESS;
cleanup:
    if (k->kernel) hcl__cl.clReleaseKernel(k->kernel);
    free(k);
    return status;
}

/* CL_KERNEL_WORK_GROUP_SIZE: what this kernel's resources leave of the device's largest work-group. */
hcl_status hcl__ocl_kernel_max_group(void *kernel, uint64_t *out_max) {
    const hcl__ocl_kernel *k = kernel;
    hcl_status status = HCL_SUCCESS;
    size_t size = 0;
    HCL_OCL_CHECK(hcl__cl.clGetKernelWorkGroupInfo(k->kernel, k->module->device->id, CL_KERNEL_WORK_GROUP_SIZE,
                                                   sizeof size, &size, NULL),
                  HCL_OCL_CALL, "clGetKernelWorkGroupInfo", "CL_KERNEL_WORK_GROUP_SIZE of kernel '%s'", k->name);
    *out_max = size;
cleanup:
    return status;
}

/* One parameter from clGetKernelArgInfo; 0 when the program carries no argument info (a binary built elsewhere). */
static int arg_info(const hcl__ocl_kernel *k, cl_uint i, hcl_driver_param *p) {
    cl_kernel_arg_address_qualifier address = 0;
    char type[64] = "", name[64] = "";
    if (hcl__cl.clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL) !=
        CL_SUCCESS)
        return 0;
    size_t type_len = 0, name_len = 0;
    if (hcl__cl.clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, &type_len) != CL_SUCCESS)
        type[0] = '\0', type_len = 0; /* longer than any scalar or vector name: its size stays unknown */
    if (hcl__cl.clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_NAME, sizeof name, name, &name_len) != CL_SUCCESS)
        name[0] = '\0';
    type[sizeof type - 1] = name[sizeof name - 1] = '\0';
    const size_t tl = strlen(type);
    hcl_driver_param_kind kind = HCL_DRIVER_PARAM_UNKNOWN;
    uint32_t size = 0;
    if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT) {
        kind = HCL_DRIVER_PARAM_BUFFER;
    } else if (address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
        kind = HCL_DRIVER_PARAM_LOCAL;
    } else if (address == CL_KERNEL_ARG_ADDRESS_PRIVATE && tl > 0 && type[tl - 1] != '*') {
        /* a value: its size where the type is a scalar or vector (a struct's is not stated) */
        kind = HCL_DRIVER_PARAM_VALUE;
        size = hcl__kit_type_size(type, tl, HCL_KIT_DIALECT_OPENCL);
    }
    hcl__kit_param_set(p, kind, size, name, strlen(name), type, tl);
    return 1;
}

/* A kernel whose program came from the cache without argument info (Intel's CPU runtime, 2026.2, drops it from program
 * binaries: CL_KERNEL_ARG_INFO_NOT_AVAILABLE) gets a program built from source, which has it: 1 when k now has a
 * kernel of that program. Only kernel_params asks, so only user kernels pay the build (the built-in kernels, which the
 * core launches unchecked, keep their cached binaries). */
static int rebuild_for_arg_info(hcl__ocl_kernel *k) {
    hcl__ocl_module *m = k->module;
    cl_kernel fresh = NULL;
    pthread_mutex_lock(&m->lock);
    if (m->source && strstr(m->options, ARG_INFO_OPTION) &&
        rebuild_from_source(m, k->name, HCL_LOG_DEBUG, "no argument info in") == HCL_SUCCESS) {
        cl_int err = CL_SUCCESS;
        fresh = hcl__cl.clCreateKernel(m->program, k->name, &err);
    }
    pthread_mutex_unlock(&m->lock);
    if (!fresh) return 0;
    hcl__cl.clReleaseKernel(k->kernel); /* not launched yet: the core asks before it returns the kernel */
    k->kernel = fresh;
    return 1;
}

/* CL_KERNEL_NUM_ARGS (read at kernel_create) and, per parameter, clGetKernelArgInfo. Without argument info (a vendor
 * binary, a cached one that cannot be rebuilt, or a runtime without clGetKernelArgInfo) the count is still known and
 * every kind is UNKNOWN. A launch's shared_bytes is the last parameter (HCL_DRIVER_PARAMS_SHARED_LAST). */
hcl_status hcl__ocl_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                  uint32_t *out_flags) {
    hcl__ocl_kernel *k = kernel;
    *out_count = k->num_args;
    *out_flags = HCL_DRIVER_PARAMS_SHARED_LAST;
    int info = hcl__cl.clGetKernelArgInfo != NULL;
    if (info && k->num_args > 0 && max > 0 && !arg_info(k, 0, &out[0]) && !rebuild_for_arg_info(k)) info = 0;
    for (cl_uint i = 0; i < k->num_args && i < max; i++) {
        if (info && !arg_info(k, i, &out[i])) {
            info = 0;
            HCL_OCL_LOG("kernel '%s': no argument info (CL_KERNEL_ARG_INFO_NOT_AVAILABLE?); its %u parameters are not "
                        "checked for kinds",
                        k->name, (unsigned)k->num_args);
        }
        if (!info) hcl__kit_param_set(&out[i], HCL_DRIVER_PARAM_UNKNOWN, 0, NULL, 0, NULL, 0);
    }
    return HCL_SUCCESS;
}

void hcl__ocl_kernel_destroy(void *kernel) {
    hcl__ocl_kernel *k = kernel;
    if (!k) return;
    pthread_mutex_destroy(&k->lock);
    if (k->kernel) hcl__cl.clReleaseKernel(k->kernel);
    free(k);
}

hcl_status hcl__ocl_enqueue(hcl__ocl_queue *q, cl_kernel kernel, const char *what, cl_uint dims, const size_t *global,
                            const size_t *local, uint32_t num_wait, void *const *wait, cl_event *out_event) {
    hcl_status status = HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL;
    status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    HCL_OCL_CHECK(
        hcl__cl.clEnqueueNDRangeKernel(q->queue, kernel, dims, NULL, global, local, num_wait, list, out_event),
        HCL_OCL_CALL, "clEnqueueNDRangeKernel", "kernel '%s', global %zu x %zu x %zu, local %zu x %zu x %zu", what,
        global[0], dims > 1 ? global[1] : 1, dims > 2 ? global[2] : 1, local[0], dims > 1 ? local[1] : 1,
        dims > 2 ? local[2] : 1);
cleanup:
    free(heap);
    return status;
}

hcl_status hcl__ocl_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                  uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                  void **out_event) {
    hcl__ocl_queue *q = queue;
    hcl__ocl_kernel *k = kernel;
    const hcl__ocl_device_entry *e = q->device->entry;
    cl_mem *subs = NULL;
    cl_event ev = NULL;
    int locked = 0;

    hcl_status status = hcl__kit_launch_arity(k->name, k->num_args, num_args, shared_bytes);
    if (status != HCL_SUCCESS) return status;
    /* An offset into a buffer needs a sub-buffer, and OpenCL only makes those at aligned offsets. */
    for (uint32_t i = 0; i < num_args; i++) {
        if (args[i].kind == HCL_DRIVER_ARG_BUFFER && args[i].offset % e->base_align_bytes != 0)
            return HCL_KIT_FAIL(
                HCL_ERROR_UNSUPPORTED,
                "opencl: argument %u: buffer offset %zu is not a multiple of %u bytes, the sub-buffer alignment of "
                "'%s' (CL_DEVICE_MEM_BASE_ADDR_ALIGN); pass offset 0 and the element offset as a value argument",
                i, args[i].offset, e->base_align_bytes, e->info.name);
    }
    if (num_args > 0) {
        subs = calloc(num_args, sizeof *subs);
        if (!subs) return hcl__kit_oom("sub-buffer list");
    }
    for (uint32_t i = 0; i < num_args; i++) {
        if (args[i].kind != HCL_DRIVER_ARG_BUFFER || args[i].offset == 0) continue;
        cl_mem mem = (cl_mem)args[i].mem;
        size_t size = 0;
        HCL_OCL_CHECK(hcl__cl.clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL), HCL_OCL_CALL,
                      "clGetMemObjectInfo", "CL_MEM_SIZE of argument %u", i);
        cl_buffer_region region = {args[i].offset, size - args[i].offset};
        cl_int err = CL_SUCCESS;
        subs[i] = hcl__cl.clCreateSubBuffer(mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateSubBuffer", "argument %u: offset %zu, size %zu of a %zu-byte buffer",
                      i, region.origin, region.size, size);
    }

    pthread_mutex_lock(&k->lock);
    locked = 1;
    for (uint32_t i = 0; i < num_args; i++) {
        if (args[i].kind == HCL_DRIVER_ARG_BUFFER) {
            cl_mem mem = subs[i] ? subs[i] : (cl_mem)args[i].mem;
            HCL_OCL_CHECK(hcl__cl.clSetKernelArg(k->kernel, i, sizeof mem, &mem), HCL_OCL_CALL, "clSetKernelArg",
                          "kernel '%s' argument %u: a buffer", k->name, i);
        } else {
            HCL_OCL_CHECK(hcl__cl.clSetKernelArg(k->kernel, i, args[i].size, args[i].value), HCL_OCL_CALL,
                          "clSetKernelArg", "kernel '%s' argument %u: a value of %zu bytes", k->name, i, args[i].size);
        }
    }
    if (shared_bytes > 0)
        HCL_OCL_CHECK(hcl__cl.clSetKernelArg(k->kernel, num_args, shared_bytes, NULL), HCL_OCL_CALL, "clSetKernelArg",
                      "kernel '%s' argument %u: %zu bytes of dynamic local memory", k->name, num_args, shared_bytes);
    cl_uint dims = block.z > 1 || grid.z > 1 ? 3 : block.y > 1 || grid.y > 1 ? 2 : 1;
    size_t global[3] = {(size_t)grid.x * block.x, (size_t)grid.y * block.y, (size_t)grid.z * block.z};
    size_t local[3] = {block.x, block.y, block.z};
    status = hcl__ocl_enqueue(q, k->kernel, k->name, dims, global, local, num_wait, wait, out_event ? &ev : NULL);
    pthread_mutex_unlock(&k->lock);
    locked = 0;
    if (status != HCL_SUCCESS) goto cleanup;
    if (out_event) {
        status = hcl__ocl_event_wrap(ev, ev, 0, out_event);
        ev = NULL;
    }
cleanup:
    if (locked) pthread_mutex_unlock(&k->lock);
    /* OpenCL keeps a sub-buffer alive until the commands that use it have finished */
    for (uint32_t i = 0; subs && i < num_args; i++)
        if (subs[i]) hcl__cl.clReleaseMemObject(subs[i]);
    free(subs);
    return status;
}
