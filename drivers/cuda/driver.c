/* The CUDA driver: loading libcuda, CUDA's error names, and what CUDA does its own way with devices (their
 * description, contexts). The lifecycle and the device list are the driver kit's (drivers/common); queues, memory,
 * modules, launches, the helper kernel, NVRTC, device opening and the table are the host code shared with the HIP
 * driver (drivers/cudahip, built here with HCL_GPU_CUDA=1), which calls the functions below (hooks.h). */
#include "gpu.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* ---------------------------------------------------------------------------------------------------------
 * Starting
 * ------------------------------------------------------------------------------------------------------- */
/* libcuda through the core's open_library: HCL_CUDA_LIBRARY alone when set (e.g. the toolkit's stub, to test the
 * resolver), else libcuda.so.1 (the driver's soname) then libcuda.so. It stays loaded once cuInit ran (it leaves
 * threads and handlers), as does NVRTC if it was opened. */
hcl_status hcl__gpu_start(char *reason, size_t reason_size, char *version, size_t version_size) {
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    void *library = NULL;
    hcl_status st = hcl__kit_library_open("HCL_CUDA_LIBRARY", names, 2, &library, reason, reason_size);
    if (st != HCL_SUCCESS) return st;
    if ((st = hcl__gpu_resolve(library, reason, reason_size)) != HCL_SUCCESS) {
        hcl__kit_library_close(); /* no CUDA code ran yet: unloading is safe */
        return st;
    }
    CUresult r = hcl__gpu.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *text = NULL;
        if (hcl__gpu.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
        snprintf(reason, reason_size, "cuInit: %s (%d)%s%s", hcl__gpu_error_name(r), (int)r, text ? ": " : "",
                 text ? text : "");
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    hcl__gpu_init_pid = (int)getpid();
    int v = 0;
    if (hcl__gpu.cuDriverGetVersion(&v) != CUDA_SUCCESS) v = 0;
    hcl__gpu_driver_version = v;
    snprintf(version, version_size, "CUDA driver %d.%d (%d)", v / 1000, (v % 1000) / 10, v);
    int count = 0;
    if ((st = HCL_GPU_CALL(cuDeviceGetCount, (&count), "after cuInit")) == HCL_SUCCESS) st = hcl__gpu_discover(count);
    if (st != HCL_SUCCESS) snprintf(reason, reason_size, "device discovery failed: %s", hcl__kit_last_failure());
    return st;
}

/* ---------------------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__gpu_describe(hcl__gpu_device_entry *e) {
    hcl_device_info *info = &e->info;
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    e->cc_major = hcl__gpu_attr(e->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    e->cc_minor = hcl__gpu_attr(e->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    snprintf(info->driver_version, sizeof info->driver_version, "CUDA %d.%d, sm_%d%d", hcl__gpu_driver_version / 1000,
             (hcl__gpu_driver_version % 1000) / 10, e->cc_major, e->cc_minor);
    /* Launches above the default 48 KiB opt in per kernel (module.c), so the opt-in maximum is what a kernel can
     * have. */
    int smem = hcl__gpu_attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    int optin = hcl__gpu_attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    info->local_mem_bytes = (uint64_t)(optin > smem ? optin : smem);
    /* The architecture and its matrix unit (tensor cores from sm_70); which types the built-ins run on them is the
     * plans' decision (kernels/plan_types.c). */
    const int cc = e->cc_major * 10 + e->cc_minor;
    snprintf(info->arch, sizeof info->arch, "sm_%d", cc);
    info->matrix_unit = cc >= 70 ? HCL_MATRIX_UNIT_TENSOR_CORE : HCL_MATRIX_UNIT_NONE;
    CUuuid uuid;
    if (hcl__gpu.cuDeviceGetUuid_v2(&uuid, e->dev) == CUDA_SUCCESS) hcl__kit_device_uuid(info, uuid.bytes);
    return HCL_SUCCESS;
}

/* The primary context is shared with the CUDA runtime and other libraries in the process, as they expect. */
hcl_status hcl__gpu_device_setup(hcl__gpu_device *d, const hcl__gpu_device_entry *e) {
    d->cc_major = e->cc_major;
    d->cc_minor = e->cc_minor;
    d->wave = 32; /* every NVIDIA GPU: a warp is 32 threads (device_limits gives it to the launch plans) */
    d->smem_default = hcl__gpu_attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d->smem_optin = hcl__gpu_attr(e->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (d->smem_optin < d->smem_default) d->smem_optin = d->smem_default;
    hcl_status st = HCL_GPU_CALL(cuDevicePrimaryCtxRetain, (&d->ctx, d->dev), "device %u '%s'", d->index, d->name);
    if (st == HCL_SUCCESS)
        HCL_GPU_LOG("device %u '%s' (sm_%d%d): primary context retained", d->index, d->name, d->cc_major, d->cc_minor);
    return st;
}

void hcl__gpu_device_teardown(hcl__gpu_device *d) { hcl__gpu.cuDevicePrimaryCtxRelease_v2(d->dev); }

hcl_status hcl__gpu_current_ordinal(int *out_ordinal) {
    CUdevice dev;
    if (hcl__gpu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) return HCL_ERROR_VENDOR;
    *out_ordinal = (int)dev;
    return HCL_SUCCESS;
}

/* The primary context keeps the sticky error until it is reset; a reset destroys what is left in it. */
void hcl__gpu_device_reset(hcl__gpu_device *d) {
    CUresult r = hcl__gpu.cuDevicePrimaryCtxReset_v2(d->dev);
    HCL_KIT_WARN("device %u '%s': primary context reset after a device fault: %s", d->index, d->name,
                 hcl__gpu_error_name(r));
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
