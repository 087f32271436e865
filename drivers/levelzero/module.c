/* Modules (SPIR-V, with the device's native binary cached on disk), kernels and launches. */
#include "internal.h"
#include "spirv_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hcl__ze_module {
    hcl__ze_device *dev;
    ze_module_handle_t module;
    void *spirv; /* a copy of the module's SPIR-V, for kernel_params (NULL when out of memory: kinds unknown) */
    size_t spirv_size;
} hcl__ze_module;

typedef struct hcl__ze_kernel {
    hcl__ze_module *module;
    ze_kernel_handle_t kernel;
    uint32_t num_args;  /* parameters the kernel declares; UINT32_MAX when the runtime did not say */
    uint64_t max_group; /* the most work-items a group of it may have; 0 when the runtime did not say */
    char name[128];
} hcl__ze_kernel;

#define HCL_ZE_SPIRV_MAGIC 0x07230203u

/* ---------------------------------------------------------------------------------------------------------
 * Building through the cache
 * ------------------------------------------------------------------------------------------------------- */
/* The cache key: every input that changes the native binary. */
static char *cache_key(const hcl__ze_device *dev, const void *spirv, size_t size, const char *options,
                       size_t *out_size) {
    const hcl__ze_device_entry *e = dev->entry;
    return hcl__kit_cache_key(spirv, size, out_size,
                              "hcl-levelzero-module-1\ndevice=%s\nvendor=0x%04x\ndevice_id=0x%04x\nidentity=%s\n"
                              "driver_version=%u\napi=0x%08x\noptions=%s\nspirv=",
                              e->info.name, e->vendor_id, e->device_id, e->info.identity, e->driver_version,
                              e->api_version, options);
}

static ze_result_t create_module(hcl__ze_device *dev, ze_module_format_t format, const void *data, size_t size,
                                 const char *options, ze_module_handle_t *out, ze_module_build_log_handle_t *log) {
    ze_module_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    desc.format = format;
    desc.inputSize = size;
    desc.pInputModule = data;
    desc.pBuildFlags = options;
    *out = NULL;
    return hcl__ze.zeModuleCreate(dev->context, dev->device, &desc, out, log);
}

/* The build log as a malloc'd string, or NULL (the log handle is destroyed either way). */
static char *take_log(ze_module_build_log_handle_t log) {
    if (!log) return NULL;
    char *text = NULL;
    size_t size = 0;
    if (hcl__ze.zeModuleBuildLogGetString(log, &size, NULL) == ZE_RESULT_SUCCESS && size > 0 &&
        (text = calloc(1, size + 1)) != NULL &&
        hcl__ze.zeModuleBuildLogGetString(log, &size, text) != ZE_RESULT_SUCCESS) {
        free(text);
        text = NULL;
    }
    hcl__ze.zeModuleBuildLogDestroy(log);
    return text;
}

/* Try a cached native binary; NULL when there is none or the runtime refuses it (then SPIR-V is built). */
static ze_module_handle_t from_cache(hcl__ze_device *dev, const char *key, size_t key_size, const char *options) {
    if (!hcl__kit_host->cache_load) return NULL;
    size_t size = 0;
    void *bin = hcl__kit_host->cache_load(HCL_ZE_NAME, key, key_size, &size);
    if (!bin) return NULL;
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = create_module(dev, ZE_MODULE_FORMAT_NATIVE, bin, size, options, &module, &log);
    free(take_log(log));
    free(bin);
    if (r != ZE_RESULT_SUCCESS) {
        hcl__kit_host->log(HCL_LOG_WARN, HCL_ZE_NAME,
                           "cached native binary refused: zeModuleCreate: %s (0x%08x); evicted, building from SPIR-V",
                           hcl__ze_result_name(r), (unsigned)r);
        if (HCL_DRIVER_HOST_HAS(hcl__kit_host, cache_evict)) hcl__kit_host->cache_evict(HCL_ZE_NAME, key, key_size);
        if (module) hcl__ze.zeModuleDestroy(module);
        return NULL;
    }
    HCL_ZE_LOG("native binary of %zu bytes loaded from the cache", size);
    return module;
}

/* Store the module's native binary for next time; a failure here only costs a rebuild later. */
static void cache_store(const hcl__ze_device *dev, ze_module_handle_t module, const char *key, size_t key_size) {
    if (!hcl__kit_host->cache_store) return;
    size_t size = 0;
    ze_result_t r = hcl__ze.zeModuleGetNativeBinary(module, &size, NULL);
    if (r != ZE_RESULT_SUCCESS || size == 0) {
        HCL_ZE_LOG("no native binary to cache (%s, %zu bytes)", hcl__ze_result_name(r), size);
        return;
    }
    uint8_t *bin = malloc(size);
    if (!bin) return;
    r = hcl__ze.zeModuleGetNativeBinary(module, &size, bin);
    if (r == ZE_RESULT_SUCCESS) {
        hcl__kit_host->cache_store(HCL_ZE_NAME, key, key_size, bin, size);
        HCL_ZE_LOG("cached a native binary of %zu bytes for '%s'", size, dev->entry->info.name);
    } else {
        HCL_ZE_LOG("zeModuleGetNativeBinary: %s (0x%08x); not cached", hcl__ze_result_name(r), (unsigned)r);
    }
    free(bin);
}

hcl_status hcl__ze_module_build(hcl__ze_device *dev, const void *spirv, size_t size, const char *options,
                                const char *what, ze_module_handle_t *out_module) {
    hcl_status status = HCL_SUCCESS;
    ze_module_handle_t module = NULL;
    char *log = NULL;
    size_t key_size = 0;
    if (!options) options = "";
    char *key = cache_key(dev, spirv, size, options, &key_size);
    if (!key) return hcl__kit_oom("module cache key");

    module = from_cache(dev, key, key_size, options);
    if (module) goto done;

    ze_module_build_log_handle_t log_handle = NULL;
    ze_result_t r = create_module(dev, ZE_MODULE_FORMAT_IL_SPIRV, spirv, size, options, &module, &log_handle);
    log = take_log(log_handle);
    if (r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE || r == ZE_RESULT_ERROR_MODULE_LINK_FAILURE ||
        r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY) {
        status = hcl__kit_build_failed(log,
                                       "zeModuleCreate: %s (0x%08x): %s (%zu bytes of SPIR-V) on '%s' with options "
                                       "'%s'",
                                       hcl__ze_result_name(r), (unsigned)r, what, size, dev->entry->info.name, options);
        module = NULL;
        goto cleanup;
    }
    if (r != ZE_RESULT_SUCCESS) {
        status = hcl__ze_fail(r, "zeModuleCreate", "%s (%zu bytes of SPIR-V) on '%s' with options '%s'", what, size,
                              dev->entry->info.name, options);
        module = NULL;
        goto cleanup;
    }
    HCL_ZE_LOG("built %s from %zu bytes of SPIR-V for '%s' (options '%s')", what, size, dev->entry->info.name, options);
    cache_store(dev, module, key, key_size);
done:
    hcl__ze_live(dev, 1);
    *out_module = module;
cleanup:
    free(log);
    free(key);
    return status;
}

/* ---------------------------------------------------------------------------------------------------------
 * Modules and kernels
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out_module) {
    hcl__ze_device *dev = device;
    const hcl_module_source *src = hcl__kit_source_pick(sources, count, HCL_KIT_KIND(HCL_SOURCE_SPIRV));
    if (!src) return hcl__kit_source_unsupported(count, "HCL_SOURCE_SPIRV");
    /* The runtime's own checks of a SPIR-V header vary; check the magic number (either byte order) here. */
    uint32_t magic = 0;
    if (src->size >= 20 && src->size % 4 == 0) memcpy(&magic, src->data, sizeof magic);
    if (magic != HCL_ZE_SPIRV_MAGIC && magic != __builtin_bswap32(HCL_ZE_SPIRV_MAGIC))
        return HCL_KIT_FAIL(HCL_ERROR_BUILD,
                            "levelzero: the HCL_SOURCE_SPIRV data (%zu bytes) is not a SPIR-V module: it "
                            "must be a multiple of 4 bytes, at least 20, starting with the magic number "
                            "0x07230203 (it starts with 0x%08x)",
                            src->size, magic);
    hcl__ze_module *m = calloc(1, sizeof *m);
    if (!m) return hcl__kit_oom("module");
    m->dev = dev;
    hcl_status status = hcl__ze_module_build(dev, src->data, src->size, src->options, "module", &m->module);
    if (status == HCL_SUCCESS && (m->spirv = malloc(src->size)) != NULL) {
        memcpy(m->spirv, src->data, src->size);
        m->spirv_size = src->size;
    }
    return hcl__kit_give(status, m, out_module);
}

void hcl__ze_module_destroy(void *module) {
    hcl__ze_module *m = module;
    if (!m) return;
    if (m->module && hcl__ze.zeModuleDestroy(m->module) == ZE_RESULT_SUCCESS) hcl__ze_live(m->dev, -1);
    free(m->spirv);
    free(m);
}

hcl_status hcl__ze_kernel_create(void *module, const char *name, void **out_kernel) {
    hcl__ze_module *m = module;
    hcl_status status = HCL_SUCCESS;
    hcl__ze_kernel *k = calloc(1, sizeof *k);
    if (!k) return hcl__kit_oom("kernel");
    k->module = m;
    snprintf(k->name, sizeof k->name, "%s", name);
    ze_kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
    desc.pKernelName = name;
    HCL_ZE_CHECK(zeKernelCreate, (m->module, &desc, &k->kernel), "kernel '%s'", name);
    hcl__ze_live(m->dev, 1);
    ze_kernel_properties_t props;
    memset(&props, 0, sizeof props);
    props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    props.numKernelArgs = UINT32_MAX; /* stays so when the runtime does not fill it in (the null driver) */
    HCL_ZE_CHECK(zeKernelGetProperties, (k->kernel, &props), "kernel '%s'", name);
    k->num_args = props.numKernelArgs;
    k->max_group = (uint64_t)props.maxSubgroupSize * props.maxNumSubgroups;
    if (k->num_args == UINT32_MAX) HCL_ZE_LOG("kernel '%s': the runtime did not give its argument count", name);
    *out_kernel = k;
    return HCL_SUCCESS;
cleanup:
    if (k->kernel && hcl__ze.zeKernelDestroy(k->kernel) == ZE_RESULT_SUCCESS) hcl__ze_live(m->dev, -1);
    free(k);
    return status;
}

/* What the runtime said at kernel_create: its largest sub-group times how many of them a group may have. */
hcl_status hcl__ze_kernel_max_group(void *kernel, uint64_t *out_max) {
    *out_max = ((const hcl__ze_kernel *)kernel)->max_group;
    return HCL_SUCCESS;
}

/* Level Zero states no parameter kinds: they come from the module's SPIR-V (spirv_params.c); where the runtime gave a
 * count that disagrees, the runtime's count stands and the kinds are unknown. The dynamic local memory is the last
 * parameter, as on OpenCL. */
hcl_status hcl__ze_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                 uint32_t *out_flags) {
    const hcl__ze_kernel *k = kernel;
    const hcl__ze_module *m = k->module;
    uint32_t count = 0;
    int parsed = m->spirv && hcl__ze_spirv_params(m->spirv, m->spirv_size, k->name, out, max, &count);
    if (parsed && k->num_args != UINT32_MAX && count != k->num_args) parsed = 0;
    if (!parsed && k->num_args == UINT32_MAX) return HCL_ERROR_UNSUPPORTED;
    if (!parsed) {
        count = k->num_args;
        for (uint32_t i = 0; i < count && i < max; i++) memset(&out[i], 0, sizeof out[i]);
    }
    *out_count = count;
    *out_flags = HCL_DRIVER_PARAMS_SHARED_LAST;
    return HCL_SUCCESS;
}

void hcl__ze_kernel_destroy(void *kernel) {
    hcl__ze_kernel *k = kernel;
    if (!k) return;
    if (k->kernel && hcl__ze.zeKernelDestroy(k->kernel) == ZE_RESULT_SUCCESS) hcl__ze_live(k->module->dev, -1);
    free(k);
}

/* ---------------------------------------------------------------------------------------------------------
 * Launches
 * ------------------------------------------------------------------------------------------------------- */
static hcl_status check_grid(const hcl__ze_device_entry *e, const char *name, const uint32_t groups[3]) {
    for (int d = 0; d < 3; d++)
        if (e->limits.max_group_count[d] && groups[d] > e->limits.max_group_count[d])
            return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                                "levelzero: kernel '%s': %u work-groups in dimension %d; '%s' takes at "
                                "most %u (maxGroupCount)",
                                name, groups[d], d, e->info.name, e->limits.max_group_count[d]);
    return HCL_SUCCESS;
}

static hcl_status append_kernel(hcl__ze_cmd *cmd, ze_kernel_handle_t kernel, const char *name,
                                const uint32_t groups[3]) {
    hcl_status status = HCL_SUCCESS;
    ze_event_handle_t signal = NULL;
    status = hcl__ze_cmd_part(cmd, &signal);
    if (status != HCL_SUCCESS) return status;
    ze_group_count_t count = {groups[0], groups[1], groups[2]};
    HCL_ZE_CHECK(zeCommandListAppendLaunchKernel, (cmd->q->list, kernel, &count, signal, 0, NULL),
                 "kernel '%s', %u x %u x %u work-groups", name, groups[0], groups[1], groups[2]);
    hcl__ze_cmd_appended(cmd);
cleanup:
    return status;
}

/* Set the kernel's group size and arguments (a buffer: its pointer plus the offset), the dynamic local memory as
 * one more argument, and append the launch to cmd. The caller holds the kernel's lock until it is appended. */
hcl_status hcl__ze_append_launch(hcl__ze_cmd *cmd, ze_kernel_handle_t kernel, const char *name, hcl_dim3 grid,
                                 hcl_dim3 block, size_t shared_bytes, uint32_t num_args, const hcl_driver_arg *args) {
    const uint32_t groups[3] = {grid.x, grid.y, grid.z};
    hcl_status status = check_grid(cmd->q->dev->entry, name, groups);
    if (status != HCL_SUCCESS) return status;
    HCL_ZE_CHECK(zeKernelSetGroupSize, (kernel, block.x, block.y, block.z), "kernel '%s': %u x %u x %u work-items",
                 name, block.x, block.y, block.z);
    for (uint32_t i = 0; i < num_args; i++) {
        if (args[i].kind == HCL_DRIVER_ARG_BUFFER) {
            void *p = (char *)args[i].mem + args[i].offset; /* a pointer: any offset works */
            HCL_ZE_CHECK(zeKernelSetArgumentValue, (kernel, i, sizeof p, &p),
                         "kernel '%s' argument %u: a buffer at offset %zu", name, i, args[i].offset);
        } else {
            HCL_ZE_CHECK(zeKernelSetArgumentValue, (kernel, i, args[i].size, args[i].value),
                         "kernel '%s' argument %u: a value of %zu bytes", name, i, args[i].size);
        }
    }
    if (shared_bytes > 0)
        HCL_ZE_CHECK(zeKernelSetArgumentValue, (kernel, num_args, shared_bytes, NULL),
                     "kernel '%s' argument %u: %zu bytes of dynamic local memory", name, num_args, shared_bytes);
    status = append_kernel(cmd, kernel, name, groups);
cleanup:
    return status;
}

hcl_status hcl__ze_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                 uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                 void **out_event) {
    hcl__ze_queue *q = queue;
    hcl__ze_kernel *k = kernel;
    hcl_status status = hcl__kit_launch_arity(k->name, k->num_args, num_args, shared_bytes);
    if (status != HCL_SUCCESS) return status;
    /* the core holds the kernel's lock: no other launch sets its arguments until this one is appended */
    hcl__ze_cmd cmd;
    status = hcl__ze_cmd_begin(&cmd, q, 1, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    status = hcl__ze_append_launch(&cmd, k->kernel, k->name, grid, block, shared_bytes, num_args, args);
    return hcl__ze_cmd_end(&cmd, status, 0, k->name, out_event);
}
