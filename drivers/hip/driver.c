/* The HIP driver: entry point, loading libamdhip64, HIP's error names, devices and making them current. Queues,
 * memory, modules, launches, the helper kernels and hiprtc are the host code shared with the CUDA driver
 * (drivers/cudahip, built here with HCL_GPU_HIP=1), the code the CUDA build runs on NVIDIA GPUs.
 *
 * The module is built against the HIP headers of the build machine and runs with whatever libamdhip64 the machine
 * it meets has (ROCm 5, 6 or 7): what it reads from the runtime is chosen to mean the same in all of them
 * (gpu_map_hip.h, and the attribute values checked below). */
#define _GNU_SOURCE 1 /* RTLD_*, strnlen under -std=c11 */
#include "gpu.h"

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const hcl_driver_host *hcl__gpu_host;
int hcl__gpu_driver_version; /* hipRuntimeGetVersion: the compile-cache key */
int hcl__gpu_init_pid;       /* the HIP runtime does not survive fork() either (runtime.c says so in messages) */

/* The attribute values this module passes to hipDeviceGetAttribute at run time. They are the same in the HIP
 * headers of ROCm 5.2 and 6.x (the enum kept its order; ROCm 6 renamed removed entries to hipDeviceAttributeUnusedN
 * in place), so a module built against either runs with either. Pinned here so a header that renumbers them stops
 * the build instead of asking a runtime the wrong question. */
_Static_assert(hipDeviceAttributeClockRate == 5, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeMaxBlockDimX == 26 && hipDeviceAttributeMaxGridDimX == 29, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeMaxThreadsPerBlock == 56, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeMultiprocessorCount == 63, "HIP attribute ABI");
_Static_assert(hipDeviceAttributePciBusId == 67 && hipDeviceAttributePciDeviceId == 68, "HIP attribute ABI");
_Static_assert(hipDeviceAttributePciDomainID == 69, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeMaxSharedMemoryPerBlock == 74, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeWarpSize == 87, "HIP attribute ABI");
_Static_assert(hipErrorNoDevice == 100 && hipStreamNonBlocking == 1 && hipEventDefault == 0 &&
                   hipHostMallocPortable == 1,
               "HIP ABI");

/* The device's target name (gcnArchName, "gfx90a:sramecc+:xnack-") is only in hipDeviceProp_t, whose layout
 * changed in ROCm 6 (hipDeviceProp_tR0600). It is read at its offset in the layout of the entry point called:
 * hipGetDevicePropertiesR0600 (ROCm 6+), else hipGetDevicePropertiesR0000 (the old layout, which ROCm 6 keeps),
 * else hipGetDeviceProperties (ROCm 5: the old layout). 396 is checked below against the headers when they are
 * ROCm 5's; 1160 was computed from ROCm 6's hip_runtime_api.h (and is what LLVM's amdgpu-arch tool reads). */
#define PROPS_R0600_GCN_ARCH_NAME 1160
#define PROPS_R0000_GCN_ARCH_NAME 396
#define PROPS_BUFFER 4096 /* more than either layout (1472 and 792 bytes) */
#if HIP_VERSION_MAJOR < 6
_Static_assert(offsetof(hipDeviceProp_t, gcnArchName) == PROPS_R0000_GCN_ARCH_NAME, "hipDeviceProp_t R0000 layout");
#else
_Static_assert(offsetof(hipDeviceProp_tR0600, gcnArchName) == PROPS_R0600_GCN_ARCH_NAME,
               "hipDeviceProp_t R0600 layout");
#endif
_Static_assert(sizeof(hipDeviceProp_t) <= PROPS_BUFFER, "hipDeviceProp_t fits the buffer");

typedef struct device_entry {
    hipDevice_t dev;
    hcl_device_info info;
    char arch[256];       /* gcnArchName, "" if unknown */
    unsigned int wave;    /* 64 or 32 */
} device_entry;

static void *g_library;          /* libamdhip64; stays loaded once opened (a C++ runtime with static state) */
static char g_library_name[512]; /* the name it was opened by */
static int g_initialised;
static device_entry *g_devices;
static uint32_t g_device_count;
static char g_version[HCL_NAME_MAX];

/* ---------------------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------------------- */
const char *hcl__gpu_error_name(hipError_t r) {
    const char *name = hcl__gpu.hipGetErrorName ? hcl__gpu.hipGetErrorName(r) : NULL;
    return name && name[0] ? name : "hipError_(unnamed)";
}

hcl_status hcl__gpu_status(hipError_t r) {
    switch (r) {
    case hipSuccess:
        return HCL_SUCCESS;
    case hipErrorOutOfMemory:
        return HCL_ERROR_OUT_OF_MEMORY;
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidKernelFile:
    case hipErrorInvalidSource:
    case hipErrorSharedObjectSymbolNotFound:
    case hipErrorSharedObjectInitFailed:
        return HCL_ERROR_BUILD;
    case hipErrorNotFound:
        return HCL_ERROR_NOT_FOUND;
    default:
        return HCL_ERROR_VENDOR;
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------------------- */
/* dlopen libamdhip64 through the core's service: HCL_HIP_LIBRARY alone when set, else the sonames of ROCm 7, 6 and
 * 5, the unversioned name, then under $ROCM_PATH and /opt/rocm (ROCm's own prefix, not always on the loader
 * path). */
static hcl_status open_library(char *reason, size_t reason_size) {
    const char *paths[8] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
    char prefixed[2][512];
    size_t count = 4;
    int used = 0;
    const char *rocm = getenv("ROCM_PATH");
    if (rocm && rocm[0]) {
        snprintf(prefixed[used], sizeof prefixed[used], "%s/lib/libamdhip64.so", rocm);
        paths[count++] = prefixed[used++];
    }
    snprintf(prefixed[used], sizeof prefixed[used], "/opt/rocm/lib/libamdhip64.so");
    paths[count++] = prefixed[used];
    if (!HCL_DRIVER_HOST_HAS(hcl__gpu_host, open_library)) {
        snprintf(reason, reason_size, "the HCL core is older than this driver (it offers no open_library)");
        return HCL_ERROR_DRIVER_VERSION;
    }
    g_library = hcl__gpu_host->open_library(HCL_GPU_NAME, "HCL_HIP_LIBRARY", paths, count, reason, reason_size);
    if (!g_library) return HCL_ERROR_BACKEND_UNAVAILABLE;
    struct link_map *lm = NULL; /* which name loaded, for the version line */
    if (dlinfo(g_library, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
        const char *base = strrchr(lm->l_name, '/');
        snprintf(g_library_name, sizeof g_library_name, "%s", base ? base + 1 : lm->l_name);
    }
    return HCL_SUCCESS;
}

/* "5.2.21153" from HIP_VERSION's encoding, major * 10^7 + minor * 10^5 + patch */
static void version_text(int v, char *out, size_t size) {
    snprintf(out, size, "%d.%d.%d", v / 10000000, (v / 100000) % 100, v % 100000);
}

/* ---------------------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------------------- */
static int attr(hipDevice_t dev, hipDeviceAttribute_t a) {
    int v = 0;
    if (hcl__gpu.hipDeviceGetAttribute(&v, a, dev) != hipSuccess) return 0;
    return v;
}

/* gcnArchName through whichever hipGetDeviceProperties entry point the runtime has (see PROPS_*). */
static void read_arch(hipDevice_t dev, char *out, size_t size) {
    const struct {
        const char *name;
        hipError_t (*fn)(void *, int);
        size_t offset;
    } ways[] = {
        {"hipGetDevicePropertiesR0600", hcl__gpu.hipGetDevicePropertiesR0600, PROPS_R0600_GCN_ARCH_NAME},
        {"hipGetDevicePropertiesR0000", hcl__gpu.hipGetDevicePropertiesR0000, PROPS_R0000_GCN_ARCH_NAME},
        {"hipGetDeviceProperties", hcl__gpu.hipGetDeviceProperties, PROPS_R0000_GCN_ARCH_NAME},
    };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        if (!ways[i].fn) continue;
        _Alignas(16) unsigned char props[PROPS_BUFFER];
        memset(props, 0, sizeof props);
        hipError_t r = ways[i].fn(props, (int)dev);
        const char *name = (const char *)props + ways[i].offset;
        if (r != hipSuccess) {
            HCL_GPU_LOG("%s(device %d): %s (%d)", ways[i].name, (int)dev, hcl__gpu_error_name(r), (int)r);
            continue;
        }
        if (strnlen(name, 256) == 256 || strncmp(name, "gfx", 3) != 0) {
            HCL_GPU_LOG("%s(device %d): no gfx name at offset %zu: the layout is not the expected one", ways[i].name,
                        (int)dev, ways[i].offset);
            continue;
        }
        snprintf(out, size, "%s", name);
        HCL_GPU_LOG("%s(device %d): gcnArchName %s", ways[i].name, (int)dev, out);
        return;
    }
}

/* The wavefront width kernels run at on this device. Code objects are compiled for 64 lanes on gfx9 (GCN, CDNA)
 * and 32 on gfx10+ (RDNA, where wave32 is the compiler's default; ctest hip-kernels-compile checks the built-in
 * bundle), and the runtime reports the same (hipDeviceAttributeWarpSize). A launch shaped by it (warp-per-row
 * kernels) takes a width below the kernels' real one as safe (a row then gets more lanes than it needs) and one
 * above as not: should the runtime and the target name disagree, the smaller is taken. */
static unsigned int wave_size(hipDevice_t dev, const char *arch) {
    int w = attr(dev, hipDeviceAttributeWarpSize);
    unsigned int rule = !arch[0] ? 0 : strncmp(arch, "gfx1", 4) == 0 ? 32 : 64;
    if (w != 32 && w != 64) {
        HCL_GPU_LOG("device %d: warp size attribute %d; taking %u from the target '%s'", (int)dev, w,
                    rule ? rule : 32, arch);
        return rule ? rule : 32;
    }
    if (rule && (unsigned int)w != rule) {
        HCL_GPU_LOG("device %d: the runtime reports wave%d, the target '%s' suggests wave%u: taking 32", (int)dev, w,
                    arch, rule);
        return 32;
    }
    return (unsigned int)w;
}

static hcl_status describe_device(uint32_t index, device_entry *e) {
    hcl_status st;
    hcl_device_info *info = &e->info;
    memset(info, 0, sizeof *info);
    if ((st = HCL_GPU_CALL(hipDeviceGet, (&e->dev, (int)index), "ordinal %u", index)) != HCL_SUCCESS) return st;
    snprintf(info->backend, sizeof info->backend, "%s", HCL_GPU_NAME);
    info->index = index;
    if ((st = HCL_GPU_CALL(hipDeviceGetName, (info->name, (int)sizeof info->name, e->dev), "device %u", index)) !=
        HCL_SUCCESS)
        return st;
    info->name[sizeof info->name - 1] = '\0';
    snprintf(info->vendor, sizeof info->vendor, "AMD");
    read_arch(e->dev, e->arch, sizeof e->arch);
    e->wave = wave_size(e->dev, e->arch);
    char version[32];
    version_text(hcl__gpu_driver_version, version, sizeof version);
    snprintf(info->driver_version, sizeof info->driver_version, "HIP %.24s, %.180s, wave%u", version,
             e->arch[0] ? e->arch : "unknown gfx target", e->wave);
    info->type = HCL_DEVICE_TYPE_GPU;
    info->compute_units = (uint32_t)attr(e->dev, hipDeviceAttributeMultiprocessorCount);
    size_t total = 0;
    if ((st = HCL_GPU_CALL(hipDeviceTotalMem, (&total, e->dev), "device %u", index)) != HCL_SUCCESS) return st;
    info->global_mem_bytes = total;
    info->max_alloc_bytes = total; /* HIP states no per-allocation limit below the memory size */
    info->max_work_group_size = (uint64_t)attr(e->dev, hipDeviceAttributeMaxThreadsPerBlock);
    /* AMD has one LDS limit per work-group (64 KiB), with no opt-in above a default as on CUDA */
    info->local_mem_bytes = (uint64_t)attr(e->dev, hipDeviceAttributeMaxSharedMemoryPerBlock);
    info->clock_mhz = (uint32_t)(attr(e->dev, hipDeviceAttributeClockRate) / 1000);
    info->arg_offset_alignment = 1; /* a buffer argument is a device address: any byte offset works */
    hipUUID uuid;
    memset(&uuid, 0, sizeof uuid);
    int has_uuid = 0;
    if (hcl__gpu.hipDeviceGetUuid && hcl__gpu.hipDeviceGetUuid(&uuid, e->dev) == hipSuccess)
        for (int i = 0; i < 16; i++) has_uuid |= uuid.bytes[i] != 0;
    if (has_uuid) {
        memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
        info->has_uuid = 1;
        char *p = info->identity;
        p += snprintf(p, sizeof info->identity, "uuid:");
        for (int i = 0; i < 16; i++) p += snprintf(p, 3, "%02x", info->uuid[i]);
    } else {
        /* no UUID: the PCI address tells GPUs apart as well as the index does, and survives reordering */
        snprintf(info->identity, sizeof info->identity, "%s:%.24s:%.24s:pci-%04x:%02x:%02x", HCL_GPU_NAME,
                 info->vendor, info->name, (unsigned)attr(e->dev, hipDeviceAttributePciDomainID),
                 (unsigned)attr(e->dev, hipDeviceAttributePciBusId),
                 (unsigned)attr(e->dev, hipDeviceAttributePciDeviceId));
    }
    return HCL_SUCCESS;
}

static hcl_status discover(int count) {
    hcl_status st;
    g_devices = calloc((size_t)count, sizeof *g_devices);
    if (!g_devices) return hcl__gpu_oom("device list");
    for (int i = 0; i < count; i++) {
        if ((st = describe_device((uint32_t)i, &g_devices[i])) != HCL_SUCCESS) {
            free(g_devices);
            g_devices = NULL;
            return st;
        }
        const hcl_device_info *info = &g_devices[i].info;
        HCL_GPU_LOG("device %d: %s, %s, %u CUs, %llu MiB, %s", i, info->name, info->driver_version,
                    info->compute_units, (unsigned long long)(info->global_mem_bytes >> 20), info->identity);
    }
    g_device_count = (uint32_t)count;
    return HCL_SUCCESS;
}

static hcl_status hip_init(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                           size_t version_size) {
    hcl__gpu_host = host;
    if (reason && reason_size) reason[0] = '\0';
    if (version && version_size) version[0] = '\0';
    if (g_initialised) {
        if (version && version_size) snprintf(version, version_size, "%s", g_version);
        return HCL_SUCCESS;
    }
    hcl_status st;
    if (!g_library && (st = open_library(reason, reason_size)) != HCL_SUCCESS) return st;
    /* a library that loaded but lacks an entry point stays loaded: its C++ constructors ran */
    if ((st = hcl__gpu_resolve(g_library, reason, reason_size)) != HCL_SUCCESS) return st;

    int runtime = 0, driver = 0;
    if (hcl__gpu.hipRuntimeGetVersion(&runtime) != hipSuccess) runtime = 0;
    if (hcl__gpu.hipDriverGetVersion(&driver) != hipSuccess) driver = 0;
    hcl__gpu_driver_version = runtime;
    char rt[32], drv[32];
    version_text(runtime, rt, sizeof rt);
    version_text(driver, drv, sizeof drv);
    if (runtime == driver)
        snprintf(g_version, sizeof g_version, "HIP runtime %.24s (%.180s)", rt, g_library_name);
    else
        snprintf(g_version, sizeof g_version, "HIP runtime %.24s, driver %.24s (%.160s)", rt, drv, g_library_name);
    if (version && version_size) snprintf(version, version_size, "%s", g_version);

    /* The first runtime call initialises HIP; with no AMD GPU it fails with hipErrorNoDevice, the runtime's own
     * reason (hipInit is not called: it is implicit, and it says hipErrorInvalidDevice in that case). */
    int count = 0;
    hipError_t r = hcl__gpu.hipGetDeviceCount(&count);
    hcl__gpu_init_pid = (int)getpid();
    if (r != hipSuccess) {
        const char *name = hcl__gpu_error_name(r);
        const char *text = hcl__gpu.hipGetErrorString(r);
        int same = !text || strcmp(text, name) == 0;
        snprintf(reason, reason_size, "hipGetDeviceCount: %s (%d)%s%s; %s", name, (int)r, same ? "" : ": ",
                 same ? "" : text, g_version);
        HCL_GPU_LOG("%s", reason);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    if (count <= 0) {
        snprintf(reason, reason_size, "hipGetDeviceCount: no AMD GPU (%d devices); %s", count, g_version);
        HCL_GPU_LOG("%s", reason);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    if ((st = discover(count)) != HCL_SUCCESS) {
        snprintf(reason, reason_size, "device discovery failed: %s", hcl__gpu_last_failure());
        return st;
    }
    HCL_GPU_LOG("ready: %s, %u device(s)", g_version, g_device_count);
    g_initialised = 1;
    return HCL_SUCCESS;
}

/* libamdhip64 (and hiprtc, if it was opened) stay loaded: they keep threads, exit handlers and process-lifetime
 * allocations that must not outlive their code. */
static void hip_shutdown(void) {
    free(g_devices);
    g_devices = NULL;
    g_device_count = 0;
    g_initialised = 0;
}

static hcl_status hip_device_count(uint32_t *out_count) {
    *out_count = g_device_count;
    return HCL_SUCCESS;
}

static hcl_status hip_device_info(uint32_t index, hcl_device_info *out_info) {
    if (index >= g_device_count)
        return hcl__gpu_host->set_message(HCL_ERROR_DEVICE_NOT_FOUND, "hip: device %u of %u", index,
                                          g_device_count);
    *out_info = g_devices[index].info;
    return HCL_SUCCESS;
}

/* HIP has no context to push: a thread has a current device. Set ours when another one is current, and set the
 * caller's back on leaving, so a caller's own choice is left as it was. */
hcl_status hcl__gpu_enter(const hcl__gpu_device *d, hcl__gpu_scope *scope) {
    scope->restore = 0;
    int current = -1;
    if (hcl__gpu.hipGetDevice(&current) == hipSuccess && current == (int)d->dev) return HCL_SUCCESS;
    hcl_status st = HCL_GPU_CALL(hipSetDevice, ((int)d->dev), "device %u '%s'", d->index, d->name);
    if (st == HCL_SUCCESS && current >= 0) {
        scope->restore = 1;
        scope->previous = current;
    }
    return st;
}

void hcl__gpu_leave(hcl__gpu_scope *scope) {
    if (!scope->restore) return;
    hcl__gpu.hipSetDevice(scope->previous);
    scope->restore = 0;
}

static hcl_status hip_device_open(uint32_t index, void **out_device) {
    if (index >= g_device_count)
        return hcl__gpu_host->set_message(HCL_ERROR_DEVICE_NOT_FOUND, "hip: device %u of %u", index,
                                          g_device_count);
    const device_entry *e = &g_devices[index];
    hcl__gpu_device *d = calloc(1, sizeof *d);
    if (!d) return hcl__gpu_oom("device");
    d->index = index;
    d->dev = e->dev;
    snprintf(d->name, sizeof d->name, "%s", e->info.name);
    snprintf(d->arch, sizeof d->arch, "%s", e->arch);
    d->wave = e->wave;
    d->sm_count = (int)e->info.compute_units;
    d->max_grid[0] = attr(e->dev, hipDeviceAttributeMaxGridDimX);
    d->max_grid[1] = attr(e->dev, hipDeviceAttributeMaxGridDimY);
    d->max_grid[2] = attr(e->dev, hipDeviceAttributeMaxGridDimZ);
    d->max_block[0] = attr(e->dev, hipDeviceAttributeMaxBlockDimX);
    d->max_block[1] = attr(e->dev, hipDeviceAttributeMaxBlockDimY);
    d->max_block[2] = attr(e->dev, hipDeviceAttributeMaxBlockDimZ);
    d->smem_default = (int)e->info.local_mem_bytes;
    d->smem_optin = d->smem_default;
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        return hcl__gpu_host->set_message(HCL_ERROR_INTERNAL, "hip: pthread_mutex_init failed");
    }
    HCL_GPU_LOG("device %u '%s' (%s, wave%u) opened", index, d->name, d->arch[0] ? d->arch : "unknown target",
                d->wave);
    *out_device = d;
    return HCL_SUCCESS;
}

static void hip_device_close(void *device) {
    hcl__gpu_device *d = device;
    if (!d) return;
    hcl__gpu_scope scope;
    if (hcl__gpu_enter(d, &scope) == HCL_SUCCESS) {
        hcl__gpu_helpers_release(d);
        hcl__gpu_event_pool_drain(d);
        hcl__gpu_leave(&scope);
    }
    pthread_mutex_destroy(&d->lock);
    HCL_GPU_LOG("device %u '%s' closed", d->index, d->name);
    free(d);
}

static const hcl_driver_table g_table = {
    .size = sizeof(hcl_driver_table),
    .abi_major = HCL_DRIVER_ABI_MAJOR,
    .abi_minor = HCL_DRIVER_ABI_MINOR,
    .name = HCL_GPU_NAME,
    .init = hip_init,
    .shutdown = hip_shutdown,
    .device_count = hip_device_count,
    .device_info = hip_device_info,
    .device_open = hip_device_open,
    .device_close = hip_device_close,
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
