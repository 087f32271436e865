/* The CUDA driver: entry point, loading libcuda, CUDA's error names, devices and their contexts. Queues, memory,
 * modules, launches, the helper kernel and NVRTC are the host code shared with the HIP driver (drivers/cudahip, built
 * here with HCL_GPU_CUDA=1). */
#define _GNU_SOURCE 1 /* RTLD_*, strnlen under -std=c11 */
#include "gpu.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const hcl_driver_host *hcl__gpu_host;
int hcl__gpu_driver_version;
int hcl__gpu_init_pid; /* CUDA does not survive fork(): messages in a forked child say so (runtime.c) */

typedef struct device_entry {
    CUdevice dev;
    hcl_device_info info;
    int cc_major, cc_minor;
} device_entry;

static void *g_library;          /* libcuda; stays loaded once cuInit ran (it leaves threads and handlers) */
static int g_initialised;
static device_entry *g_devices;
static uint32_t g_device_count;
static char g_version[HCL_NAME_MAX];

/* ---------------------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------------------- */
/* Names for when cuGetErrorName itself fails (the toolkit's stub library answers every call with 34). */
static const struct {
    CUresult code;
    const char *name;
} g_fallback_names[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
};

const char *hcl__gpu_error_name(CUresult r) {
    const char *name = NULL;
    if (hcl__gpu.cuGetErrorName && hcl__gpu.cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
    for (size_t i = 0; i < sizeof g_fallback_names / sizeof g_fallback_names[0]; i++)
        if (g_fallback_names[i].code == r) return g_fallback_names[i].name;
    return "CUDA_ERROR_(unnamed)";
}

hcl_status hcl__gpu_status(CUresult r) {
    switch (r) {
    case CUDA_SUCCESS:
        return HCL_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return HCL_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
        return HCL_ERROR_BUILD;
    case CUDA_ERROR_NOT_FOUND:
        return HCL_ERROR_NOT_FOUND;
    default:
        return HCL_ERROR_VENDOR;
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------------------- */
/* dlopen libcuda through the core's service: HCL_CUDA_LIBRARY alone when set (e.g. the toolkit's stub, to test the
 * resolver), else libcuda.so.1 (the driver's soname) then libcuda.so. */
static hcl_status open_library(char *reason, size_t reason_size) {
    if (!HCL_DRIVER_HOST_HAS(hcl__gpu_host, open_library)) {
        snprintf(reason, reason_size, "the HCL core is older than this driver (it offers no open_library)");
        return HCL_ERROR_DRIVER_VERSION;
    }
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    g_library = hcl__gpu_host->open_library(HCL_GPU_NAME, "HCL_CUDA_LIBRARY", names, 2, reason, reason_size);
    return g_library ? HCL_SUCCESS : HCL_ERROR_BACKEND_UNAVAILABLE;
}

/* ---------------------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------------------- */
static int attr(CUdevice dev, CUdevice_attribute a) {
    int v = 0;
    if (hcl__gpu.cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) return 0;
    return v;
}

static hcl_status describe_device(uint32_t index, device_entry *e) {
    hcl_status st;
    hcl_device_info *info = &e->info;
    memset(info, 0, sizeof *info);
    if ((st = HCL_GPU_CALL(cuDeviceGet, (&e->dev, (int)index), "ordinal %u", index)) != HCL_SUCCESS) return st;
    snprintf(info->backend, sizeof info->backend, "%s", HCL_GPU_NAME);
    info->index = index;
    if ((st = HCL_GPU_CALL(cuDeviceGetName, (info->name, (int)sizeof info->name, e->dev), "device %u", index)) !=
        HCL_SUCCESS)
        return st;
    info->name[sizeof info->name - 1] = '\0';
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    e->cc_major = attr(e->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    e->cc_minor = attr(e->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    snprintf(info->driver_version, sizeof info->driver_version, "CUDA %d.%d, sm_%d%d",
             hcl__gpu_driver_version / 1000, (hcl__gpu_driver_version % 1000) / 10, e->cc_major, e->cc_minor);
    info->type = HCL_DEVICE_TYPE_GPU;
    info->compute_units = (uint32_t)attr(e->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    size_t total = 0;
    if ((st = HCL_GPU_CALL(cuDeviceTotalMem_v2, (&total, e->dev), "device %u", index)) != HCL_SUCCESS) return st;
    info->global_mem_bytes = total;
    info->max_alloc_bytes = total; /* CUDA has no per-allocation limit below the memory size */
    info->max_work_group_size = (uint64_t)attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    /* Launches above the default 48 KiB opt in per kernel (module.c), so the opt-in maximum is what a kernel can
     * have. */
    int smem = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    int optin = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    info->local_mem_bytes = (uint64_t)(optin > smem ? optin : smem);
    info->clock_mhz = (uint32_t)(attr(e->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000);
    info->arg_offset_alignment = 1; /* a buffer argument is a device address: any byte offset works */
    CUuuid uuid;
    if (hcl__gpu.cuDeviceGetUuid_v2(&uuid, e->dev) == CUDA_SUCCESS) {
        memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
        info->has_uuid = 1;
        /* the core writes the same; written here too so the driver's own logs and tests agree */
        char *p = info->identity;
        p += snprintf(p, sizeof info->identity, "uuid:");
        for (int i = 0; i < 16; i++) p += snprintf(p, 3, "%02x", info->uuid[i]);
    } else {
        snprintf(info->identity, sizeof info->identity, "%s:%.24s:%.32s:%u", HCL_GPU_NAME, info->vendor,
                 info->name, index);
    }
    return HCL_SUCCESS;
}

static hcl_status discover(void) {
    hcl_status st;
    int count = 0;
    if ((st = HCL_GPU_CALL(cuDeviceGetCount, (&count), "after cuInit")) != HCL_SUCCESS) return st;
    if (count <= 0) return HCL_SUCCESS;
    g_devices = calloc((size_t)count, sizeof *g_devices);
    if (!g_devices) return hcl__gpu_oom("device list");
    for (int i = 0; i < count; i++) {
        if ((st = describe_device((uint32_t)i, &g_devices[i])) != HCL_SUCCESS) {
            free(g_devices);
            g_devices = NULL;
            return st;
        }
        const hcl_device_info *info = &g_devices[i].info;
        HCL_GPU_LOG("device %d: %s, %s, %u SMs, %llu MiB, %s", i, info->name, info->driver_version,
                   info->compute_units, (unsigned long long)(info->global_mem_bytes >> 20), info->identity);
    }
    g_device_count = (uint32_t)count;
    return HCL_SUCCESS;
}

static hcl_status cu_init(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                          size_t version_size) {
    hcl__gpu_host = host;
    if (reason && reason_size) reason[0] = '\0';
    if (version && version_size) version[0] = '\0';
    if (g_initialised) {
        if (version && version_size) snprintf(version, version_size, "%s", g_version);
        return HCL_SUCCESS;
    }
    hcl_status st;
    int loaded_here = 0;
    if (!g_library) {
        if ((st = open_library(reason, reason_size)) != HCL_SUCCESS) return st;
        loaded_here = 1;
    }
    if ((st = hcl__gpu_resolve(g_library, reason, reason_size)) != HCL_SUCCESS) {
        if (loaded_here) { /* no CUDA code ran yet: unloading is safe */
            dlclose(g_library);
            g_library = NULL;
        }
        return st;
    }
    CUresult r = hcl__gpu.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *text = NULL;
        if (hcl__gpu.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
        snprintf(reason, reason_size, "cuInit: %s (%d)%s%s", hcl__gpu_error_name(r), (int)r, text ? ": " : "",
                 text ? text : "");
        HCL_GPU_LOG("%s", reason);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    hcl__gpu_init_pid = (int)getpid();
    int v = 0;
    if (hcl__gpu.cuDriverGetVersion(&v) != CUDA_SUCCESS) v = 0;
    hcl__gpu_driver_version = v;
    snprintf(g_version, sizeof g_version, "CUDA driver %d.%d (%d)", v / 1000, (v % 1000) / 10, v);
    if ((st = discover()) != HCL_SUCCESS) {
        snprintf(reason, reason_size, "device discovery failed: %s", hcl__gpu_last_failure());
        return st;
    }
    if (version && version_size) snprintf(version, version_size, "%s", g_version);
    HCL_GPU_LOG("ready: %s, %u device(s)", g_version, g_device_count);
    g_initialised = 1;
    return HCL_SUCCESS;
}

/* libcuda (and NVRTC, if it was opened) stay loaded: they keep threads, exit handlers and process-lifetime
 * allocations that must not outlive their code. */
static void cu_shutdown(void) {
    free(g_devices);
    g_devices = NULL;
    g_device_count = 0;
    g_initialised = 0;
}

static hcl_status cu_device_count(uint32_t *out_count) {
    *out_count = g_device_count;
    return HCL_SUCCESS;
}

static hcl_status cu_device_info(uint32_t index, hcl_device_info *out_info) {
    if (index >= g_device_count)
        return hcl__gpu_host->set_message(HCL_ERROR_DEVICE_NOT_FOUND, "cuda: device %u of %u", index,
                                         g_device_count);
    *out_info = g_devices[index].info;
    return HCL_SUCCESS;
}

hcl_status hcl__gpu_enter(const hcl__gpu_device *d, hcl__gpu_scope *scope) {
    scope->pushed = 0;
    CUcontext cur = NULL;
    if (hcl__gpu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == d->ctx) return HCL_SUCCESS;
    hcl_status st = HCL_GPU_CALL(cuCtxPushCurrent_v2, (d->ctx), "primary context of device %u '%s'", d->index, d->name);
    if (st == HCL_SUCCESS) scope->pushed = 1;
    return st;
}

void hcl__gpu_leave(hcl__gpu_scope *scope) {
    if (!scope->pushed) return;
    CUcontext popped = NULL;
    hcl__gpu.cuCtxPopCurrent_v2(&popped);
    scope->pushed = 0;
}

/* The primary context is shared with the CUDA runtime and other libraries in the process, as they expect. */
static hcl_status cu_device_open(uint32_t index, void **out_device) {
    if (index >= g_device_count)
        return hcl__gpu_host->set_message(HCL_ERROR_DEVICE_NOT_FOUND, "cuda: device %u of %u", index,
                                         g_device_count);
    const device_entry *e = &g_devices[index];
    hcl__gpu_device *d = calloc(1, sizeof *d);
    if (!d) return hcl__gpu_oom("device");
    d->index = index;
    d->dev = e->dev;
    snprintf(d->name, sizeof d->name, "%s", e->info.name);
    d->cc_major = e->cc_major;
    d->cc_minor = e->cc_minor;
    d->wave = 32; /* every NVIDIA GPU: a warp is 32 threads */
    d->sm_count = (int)e->info.compute_units;
    d->max_grid[0] = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    d->max_grid[1] = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    d->max_grid[2] = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    d->max_block[0] = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    d->max_block[1] = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    d->max_block[2] = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    d->smem_default = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d->smem_optin = attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (d->smem_optin < d->smem_default) d->smem_optin = d->smem_default;
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        return hcl__gpu_host->set_message(HCL_ERROR_INTERNAL, "cuda: pthread_mutex_init failed");
    }
    hcl_status st = HCL_GPU_CALL(cuDevicePrimaryCtxRetain, (&d->ctx, d->dev), "device %u '%s'", index, d->name);
    if (st != HCL_SUCCESS) {
        pthread_mutex_destroy(&d->lock);
        free(d);
        return st;
    }
    HCL_GPU_LOG("device %u '%s' (sm_%d%d): primary context retained", index, d->name, d->cc_major, d->cc_minor);
    *out_device = d;
    return HCL_SUCCESS;
}

static void cu_device_close(void *device) {
    hcl__gpu_device *d = device;
    if (!d) return;
    hcl__gpu_scope scope;
    if (hcl__gpu_enter(d, &scope) == HCL_SUCCESS) {
        hcl__gpu_helpers_release(d);
        hcl__gpu_event_pool_drain(d);
        hcl__gpu_leave(&scope);
    }
    hcl__gpu.cuDevicePrimaryCtxRelease_v2(d->dev);
    pthread_mutex_destroy(&d->lock);
    HCL_GPU_LOG("device %u '%s': primary context released", d->index, d->name);
    free(d);
}

static const hcl_driver_table g_table = {
    .size = sizeof(hcl_driver_table),
    .abi_major = HCL_DRIVER_ABI_MAJOR,
    .abi_minor = HCL_DRIVER_ABI_MINOR,
    .name = HCL_GPU_NAME,
    .init = cu_init,
    .shutdown = cu_shutdown,
    .device_count = cu_device_count,
    .device_info = cu_device_info,
    .device_open = cu_device_open,
    .device_close = cu_device_close,
    .queue_create = hcl__gpu_queue_create,
    .queue_destroy = hcl__gpu_queue_destroy,
    .queue_finish = hcl__gpu_queue_finish,
    .queue_marker = hcl__gpu_queue_marker,
    .buffer_alloc = hcl__gpu_buffer_alloc,
    .buffer_free = hcl__gpu_buffer_free,
    .buffer_write = hcl__gpu_buffer_write,
    .buffer_read = hcl__gpu_buffer_read,
    .buffer_copy = hcl__gpu_buffer_copy,
    .buffer_fill = hcl__gpu_buffer_fill,
    .event_wait = hcl__gpu_event_wait,
    .event_release = hcl__gpu_event_release,
    .event_elapsed = hcl__gpu_event_elapsed,
    .module_create = hcl__gpu_module_create,
    .module_destroy = hcl__gpu_module_destroy,
    .kernel_create = hcl__gpu_kernel_create,
    .kernel_destroy = hcl__gpu_kernel_destroy,
    .kernel_launch = hcl__gpu_kernel_launch,
    .host_alloc = hcl__gpu_host_alloc,
    .host_free = hcl__gpu_host_free,
    .get_native = hcl__gpu_get_native,
};

__attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void);
__attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void) { return &g_table; }
