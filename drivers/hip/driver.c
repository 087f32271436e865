/* The HIP driver: loading libamdhip64, HIP's error names, and what HIP does its own way with devices (their
 * description, the target and wavefront width, making them current). The lifecycle and the device list are the
 * driver kit's (drivers/common); queues, memory, modules, launches, the helper kernel, hiprtc, device opening and the
 * table are the host code shared with the CUDA driver (drivers/cudahip, built here with HCL_GPU_HIP=1), the code
 * the CUDA build runs on NVIDIA GPUs; it calls the functions below (hooks.h).
 *
 * The module is built against the HIP headers of the build machine and runs with whatever libamdhip64 the machine
 * it meets has (ROCm 5, 6 or 7): what it reads from the runtime is chosen to mean the same in all of them
 * (gpu_map_hip.h, and the attribute values checked below). It also runs on HIP's NVIDIA platform, HIP's API over
 * CUDA (g_nvidia below; the tests' drivers/hip/cuda/ library), which is not an AMD GPU. */
#define _GNU_SOURCE 1 /* strnlen under -std=c11 */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
_Static_assert(hipDeviceAttributeL2CacheSize == 19, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeMemoryBusWidth == 59 && hipDeviceAttributeMemoryClockRate == 60, "HIP attribute ABI");
_Static_assert(hipDeviceAttributeComputeCapabilityMajor == 23 && hipDeviceAttributeComputeCapabilityMinor == 61,
               "HIP attribute ABI");
_Static_assert(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK == 0, "HIP function attribute ABI");
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

/* HIP's NVIDIA platform: a HIP runtime whose entry points are CUDA's (HIP's hip/nvidia_detail, as a HIP program
 * built for an NVIDIA GPU runs on; the tests' drivers/hip/cuda/ library). HIP says which platform it is through
 * hipRuntimeGetVersion, which "on NVIDIA platform returns CUDA runtime version" (hip_runtime_api.h): CUDA's encoding
 * (1000 * major + 10 * minor, 13000) is below HIP's own (10^7 * major + ..., 50221153 for 5.2) for every version of
 * either. There the devices have no gfx target (gcnArchName is empty) but a compute capability, which names what
 * hiprtc (NVRTC there) compiles for; and the module and launch entry points are CUDA's driver API, which needs a
 * current context on every thread that calls it (hcl__gpu_enter). Everything else is HIP's API as on AMD. */
#define HIP_NVIDIA_VERSION_BELOW 10000000
static int g_nvidia; /* set at start, before any device is described */

/* ---------------------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------------------- */
const char *hcl__gpu_error_name(hipError_t r) {
    const char *name = hcl__gpu.hipGetErrorName ? hcl__gpu.hipGetErrorName(r) : NULL;
    return name && name[0] ? name : "hipError_(unnamed)";
}

/* "5.2.21153" from HIP_VERSION's encoding, major * 10^7 + minor * 10^5 + patch; on HIP's NVIDIA platform "13.0"
 * from CUDA's, 1000 * major + 10 * minor. */
static void version_text(int v, char *out, size_t size) {
    if (g_nvidia)
        snprintf(out, size, "%d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(out, size, "%d.%d.%d", v / 10000000, (v / 100000) % 100, v % 100000);
}

/* ---------------------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------------------- */
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
    int w = hcl__gpu_attr(dev, hipDeviceAttributeWarpSize);
    unsigned int rule = strncmp(arch, "gfx", 3) != 0 ? 0 : strncmp(arch, "gfx1", 4) == 0 ? 32 : 64;
    if (w != 32 && w != 64) {
        HCL_GPU_LOG("device %d: warp size attribute %d; taking %u from the target '%s'", (int)dev, w, rule ? rule : 32,
                    arch);
        return rule ? rule : 32;
    }
    if (rule && (unsigned int)w != rule) {
        HCL_GPU_LOG("device %d: the runtime reports wave%d, the target '%s' suggests wave%u: taking 32", (int)dev, w,
                    arch, rule);
        return 32;
    }
    return (unsigned int)w;
}

/* HIP's NVIDIA platform: the target is the compute capability, "sm_90" (gcnArchName is empty there), "" when the
 * runtime does not say. */
static void read_compute_capability(hipDevice_t dev, char *out, size_t size) {
    const int major = hcl__gpu_attr(dev, hipDeviceAttributeComputeCapabilityMajor);
    const int minor = hcl__gpu_attr(dev, hipDeviceAttributeComputeCapabilityMinor);
    if (major > 0)
        snprintf(out, size, "sm_%d%d", major, minor);
    else
        out[0] = '\0';
    HCL_GPU_LOG("device %d: HIP's NVIDIA platform, compute capability %d.%d", (int)dev, major, minor);
}

/* The matrix unit: MFMA matrix cores on CDNA (gfx908, gfx90a, gfx94x); tensor cores from sm_70 on HIP's NVIDIA
 * platform. Which types the built-ins run on it, and whether they use it at all (not through HIP on NVIDIA), is the
 * plans' decision (kernels/plan_types.c). */
static void describe_matrix_unit(hcl_device_info *info) {
    unsigned level = 0;
    if (g_nvidia)
        info->matrix_unit = sscanf(info->arch, "sm_%u", &level) == 1 && level >= 70 ? HCL_MATRIX_UNIT_TENSOR_CORE
                                                                                    : HCL_MATRIX_UNIT_NONE;
    else
        info->matrix_unit = strncmp(info->arch, "gfx908", 6) == 0 || strncmp(info->arch, "gfx90a", 6) == 0 ||
                                    strncmp(info->arch, "gfx94", 5) == 0
                                ? HCL_MATRIX_UNIT_MFMA
                                : HCL_MATRIX_UNIT_NONE;
}

hcl_status hcl__gpu_describe(hcl__gpu_device_entry *e) {
    hcl_device_info *info = &e->info;
    snprintf(info->vendor, sizeof info->vendor, "%s", g_nvidia ? "NVIDIA" : "AMD");
    if (g_nvidia)
        read_compute_capability(e->dev, e->arch, sizeof e->arch);
    else
        read_arch(e->dev, e->arch, sizeof e->arch);
    e->wave = wave_size(e->dev, e->arch);
    info->subgroup_size = e->wave; /* the width the kernels run at, which wave_size settles */
    char version[32];
    version_text(hcl__gpu_driver_version, version, sizeof version);
    if (g_nvidia)
        snprintf(info->driver_version, sizeof info->driver_version, "HIP over CUDA %.24s, %.180s, warp%u", version,
                 e->arch[0] ? e->arch : "unknown compute capability", e->wave);
    else
        snprintf(info->driver_version, sizeof info->driver_version, "HIP %.24s, %.180s, wave%u", version,
                 e->arch[0] ? e->arch : "unknown gfx target", e->wave);
    /* AMD has one LDS limit per work-group (64 KiB), with no opt-in above a default as on CUDA; on NVIDIA this is the
     * default (48 KiB): HIP 5's module API has no call that opts a kernel in above it */
    info->local_mem_bytes = (uint64_t)hcl__gpu_attr(e->dev, hipDeviceAttributeMaxSharedMemoryPerBlock);
    snprintf(info->arch, sizeof info->arch, "%.*s", (int)strcspn(e->arch, ":"), e->arch);
    describe_matrix_unit(info);
    hipUUID uuid;
    memset(&uuid, 0, sizeof uuid);
    if (hcl__gpu.hipDeviceGetUuid && hcl__gpu.hipDeviceGetUuid(&uuid, e->dev) == hipSuccess &&
        hcl__kit_device_uuid(info, uuid.bytes))
        return HCL_SUCCESS;
    /* no UUID: the PCI address tells GPUs apart as well as the index does, and survives reordering */
    char pci[32];
    snprintf(pci, sizeof pci, "pci-%04x:%02x:%02x",
             (unsigned)hcl__gpu_attr(e->dev, hipDeviceAttributePciDomainID) & 0xffff,
             (unsigned)hcl__gpu_attr(e->dev, hipDeviceAttributePciBusId) & 0xff,
             (unsigned)hcl__gpu_attr(e->dev, hipDeviceAttributePciDeviceId) & 0xff);
    hcl__kit_identity(info, pci);
    return HCL_SUCCESS;
}

/* libamdhip64 through the core's open_library: HCL_HIP_LIBRARY alone when set, else the sonames of ROCm 7, 6 and
 * 5, the unversioned name, then under $ROCM_PATH and /opt/rocm (ROCm's own prefix, not always on the loader path).
 * A library that loaded stays loaded, even one that lacks an entry point: its C++ constructors ran. So does hiprtc
 * once it was opened. */
hcl_status hcl__gpu_start(char *reason, size_t reason_size, char *version, size_t version_size) {
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
    void *library = NULL;
    hcl_status st = hcl__kit_library_open("HCL_HIP_LIBRARY", paths, count, &library, reason, reason_size);
    if (st != HCL_SUCCESS) return st;
    if ((st = hcl__gpu_resolve(library, reason, reason_size)) != HCL_SUCCESS) return st;

    int runtime = 0, driver = 0;
    if (hcl__gpu.hipRuntimeGetVersion(&runtime) != hipSuccess) runtime = 0;
    if (hcl__gpu.hipDriverGetVersion(&driver) != hipSuccess) driver = 0;
    hcl__gpu_driver_version = runtime;
    g_nvidia = runtime > 0 && runtime < HIP_NVIDIA_VERSION_BELOW;
    char rt[32], drv[32];
    version_text(runtime, rt, sizeof rt);
    version_text(driver, drv, sizeof drv);
    const char *label = g_nvidia ? "HIP on NVIDIA, CUDA runtime" : "HIP runtime";
    if (runtime == driver)
        snprintf(version, version_size, "%s %.24s (%.160s)", label, rt, hcl__kit_library_name());
    else
        snprintf(version, version_size, "%s %.24s, driver %.24s (%.140s)", label, rt, drv, hcl__kit_library_name());

    /* The first runtime call initialises HIP; with no AMD GPU it fails with hipErrorNoDevice, the runtime's own
     * reason (hipInit is not called: it is implicit, and it says hipErrorInvalidDevice in that case). */
    int devices = 0;
    hipError_t r = hcl__gpu.hipGetDeviceCount(&devices);
    hcl__gpu_init_pid = (int)getpid();
    if (r != hipSuccess) {
        const char *name = hcl__gpu_error_name(r);
        const char *text = hcl__gpu.hipGetErrorString(r);
        int same = !text || strcmp(text, name) == 0;
        snprintf(reason, reason_size, "hipGetDeviceCount: %s (%d)%s%s; %s", name, (int)r, same ? "" : ": ",
                 same ? "" : text, version);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    if (devices <= 0) {
        snprintf(reason, reason_size, "hipGetDeviceCount: no %s GPU (%d devices); %s", g_nvidia ? "NVIDIA" : "AMD",
                 devices, version);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    if ((st = hcl__gpu_discover(devices)) != HCL_SUCCESS)
        snprintf(reason, reason_size, "device discovery failed: %s", hcl__kit_last_failure());
    return st;
}

/* HIP has no context to push: a thread has a current device. Set ours when another one is current, and set the
 * caller's back on leaving, so a caller's own choice is left as it was. On HIP's NVIDIA platform it is set even when
 * it is the current one already: a thread's current device is 0 there before anything made a context current on it,
 * and the module and launch entry points (CUDA's driver API) fail without one; hipSetDevice (cudaSetDevice) makes
 * the device's primary context current on the calling thread. */
hcl_status hcl__gpu_enter(const hcl__gpu_device *d, hcl__gpu_scope *scope) {
    scope->restore = 0;
    int current = -1;
    if (hcl__gpu.hipGetDevice(&current) != hipSuccess) current = -1;
    if (current == (int)d->dev && !g_nvidia) return HCL_SUCCESS;
    hcl_status st = HCL_GPU_CALL(hipSetDevice, ((int)d->dev), "device %u '%s'", d->index, d->name);
    if (st == HCL_SUCCESS && current >= 0 && current != (int)d->dev) {
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

hcl_status hcl__gpu_device_setup(hcl__gpu_device *d, const hcl__gpu_device_entry *e) {
    if (g_nvidia) {
        /* CUDA keeps a process's context broken after a device fault, reset or not, and only the first call that makes
         * it current says so (hipSetDevice: cudaErrorUnknown): make it current here, so that an open after a fault
         * fails as the CUDA driver's does, not the open's first call. */
        hcl__gpu_scope scope;
        const hcl_status st = hcl__gpu_enter(d, &scope);
        if (st != HCL_SUCCESS) return st;
        hcl__gpu_leave(&scope);
    }
    snprintf(d->arch, sizeof d->arch, "%s", e->arch);
    d->wave = e->wave;
    d->smem_default = (int)e->info.local_mem_bytes; /* one limit: all of it without opting in */
    d->smem_optin = d->smem_default;
    HCL_GPU_LOG("device %u '%s' (%s, wave%u) opened", d->index, d->name, d->arch[0] ? d->arch : "unknown target",
                d->wave);
    return HCL_SUCCESS;
}

void hcl__gpu_device_teardown(hcl__gpu_device *d) { (void)d; }

hcl_status hcl__gpu_current_ordinal(int *out_ordinal) {
    return hcl__gpu.hipGetDevice(out_ordinal) == hipSuccess ? HCL_SUCCESS : HCL_ERROR_VENDOR;
}

/* HIP keeps the sticky error until the device is reset (not run on AMD hardware: none is reachable). */
void hcl__gpu_device_reset(hcl__gpu_device *d) {
    hcl__gpu_scope scope;
    if (!hcl__gpu.hipDeviceReset || hcl__gpu_enter(d, &scope) != HCL_SUCCESS) {
        HCL_KIT_WARN("device %u '%s' faulted and cannot be reset here (hipDeviceReset %s)", d->index, d->name,
                     hcl__gpu.hipDeviceReset ? "failed to enter the device" : "absent");
        return;
    }
    hipError_t r = hcl__gpu.hipDeviceReset();
    hcl__gpu_leave(&scope);
    HCL_KIT_WARN("device %u '%s': reset after a device fault: %s", d->index, d->name, hcl__gpu_error_name(r));
}
