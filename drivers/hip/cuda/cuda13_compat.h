/* What HIP 5.2's NVIDIA-platform header (hip/nvidia_detail/nvidia_hip_runtime_api.h, Debian's libamdhip64-dev) needs
 * of CUDA that CUDA 13 removed, put back as a thin layer over CUDA 13 so that the header compiles against the
 * toolkit CI has (/usr/local/cuda, 13.0). Include this before <hip/hip_runtime_api.h>; it includes the CUDA headers
 * the HIP header would, then renames or re-spells exactly what changed. Measured 2026-11-28: without it the header
 * gives 14 errors in C (18 in C++, where its texture-reference functions are compiled too); with it, none.
 *
 *  - cudaDeviceProp lost clockRate, memoryClockRate, computeMode, kernelExecTimeoutEnabled and
 *    cooperativeMultiDeviceLaunch (CUDA 13 moved them to cudaDeviceGetAttribute). The header reads them in
 *    hipGetDeviceProperties and writes them in hipChooseDevice. `struct cudaDeviceProp` is renamed, for the header
 *    only, to a struct holding CUDA 13's struct as an unnamed first member (a Microsoft/Plan 9 extension: build this
 *    file with -fms-extensions) followed by the five fields; cudaGetDeviceProperties and cudaChooseDevice are
 *    re-spelled to fill them from cudaDeviceGetAttribute (cooperativeMultiDeviceLaunch: 0, CUDA 13 has none) and to
 *    hand CUDA its own struct.
 *  - cudaDevAttrCooperativeMultiDeviceLaunch (96) is now cudaDevAttrReserved96: the header's attribute switch gets
 *    that slot, which CUDA 13 reserves.
 *  - cudaMemAdvise and cudaMemPrefetchAsync take a cudaMemLocation where CUDA 12 took a device ordinal (and the
 *    prefetch a flags word): the header's calls are re-spelled with the ordinal as a location (cudaCpuDeviceId: the
 *    host).
 *  - cuCtxCreate is cuCtxCreate_v4, which takes creation parameters: the header's three-argument call is re-spelled
 *    with none, which is the old call.
 * None of these is an entry point the test library exports (hipcuda.c); they only have to compile. */
#ifndef HCL_HIPCUDA_CUDA13_COMPAT_H
#define HCL_HIPCUDA_CUDA13_COMPAT_H

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <string.h>

#if CUDA_VERSION >= 13000

/* ---- cudaDeviceProp with the fields CUDA 13 removed ---- */
struct hcl_hipcuda_device_prop {
    struct cudaDeviceProp; /* CUDA 13's, its members reachable by name (-fms-extensions) */
    int clockRate;         /* kHz */
    int memoryClockRate;   /* kHz */
    int computeMode;
    int kernelExecTimeoutEnabled;
    int cooperativeMultiDeviceLaunch; /* always 0: CUDA 13 has no multi-device cooperative launch */
};

/* CUDA 13's own struct at the start of the extended one. */
static inline struct cudaDeviceProp *hcl_hipcuda_prop_base(struct hcl_hipcuda_device_prop *p) {
    return (struct cudaDeviceProp *)(void *)p;
}

/* cudaGetDeviceProperties, then the removed fields from the attributes that replace them. */
static inline cudaError_t hcl_hipcuda_get_device_properties(struct hcl_hipcuda_device_prop *p, int device) {
    memset(p, 0, sizeof *p);
    cudaError_t r = cudaGetDeviceProperties(hcl_hipcuda_prop_base(p), device);
    if (r != cudaSuccess) return r;
    static const struct {
        enum cudaDeviceAttr attr;
        size_t offset;
    } legacy[] = {
        {cudaDevAttrClockRate, offsetof(struct hcl_hipcuda_device_prop, clockRate)},
        {cudaDevAttrMemoryClockRate, offsetof(struct hcl_hipcuda_device_prop, memoryClockRate)},
        {cudaDevAttrComputeMode, offsetof(struct hcl_hipcuda_device_prop, computeMode)},
        {cudaDevAttrKernelExecTimeout, offsetof(struct hcl_hipcuda_device_prop, kernelExecTimeoutEnabled)},
    };
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0] && r == cudaSuccess; i++)
        r = cudaDeviceGetAttribute((int *)(void *)((char *)p + legacy[i].offset), legacy[i].attr, device);
    return r;
}

/* cudaChooseDevice on CUDA 13's part of the struct (it matches on no removed field). */
static inline cudaError_t hcl_hipcuda_choose_device(int *device, struct hcl_hipcuda_device_prop *p) {
    return cudaChooseDevice(device, hcl_hipcuda_prop_base(p));
}

/* A device ordinal as CUDA 13's memory location. */
static inline struct cudaMemLocation hcl_hipcuda_location(int device) {
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = device == cudaCpuDeviceId ? 0 : device;
    return loc;
}

#define cudaDeviceProp hcl_hipcuda_device_prop
#define cudaGetDeviceProperties(prop, device) hcl_hipcuda_get_device_properties((prop), (device))
#define cudaChooseDevice(device, prop) hcl_hipcuda_choose_device((device), (prop))
#define cudaDevAttrCooperativeMultiDeviceLaunch cudaDevAttrReserved96
#undef cudaMemAdvise
#define cudaMemAdvise(ptr, count, advice, device) cudaMemAdvise((ptr), (count), (advice), hcl_hipcuda_location(device))
#undef cudaMemPrefetchAsync
#define cudaMemPrefetchAsync(ptr, count, device, stream)                                                               \
    cudaMemPrefetchAsync((ptr), (count), hcl_hipcuda_location(device), 0, (stream))
#undef cuCtxCreate
#define cuCtxCreate(ctx, flags, device) cuCtxCreate_v4((ctx), NULL, (flags), (device))

#endif /* CUDA_VERSION >= 13000 */
#endif /* HCL_HIPCUDA_CUDA13_COMPAT_H */
