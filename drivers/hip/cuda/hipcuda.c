/* libhcl-test-hipcuda.so: HIP's API semantics over CUDA, for the tests. It exports the HIP entry points the HIP
 * driver opens (drivers/cudahip/gpu_map_hip.h: HCL_GPU_SYMBOLS, HCL_GPU_RTC_SYMBOLS), each one the implementation
 * HIP itself ships for NVIDIA GPUs: the static inline functions of hip/nvidia_detail/ (Debian's libamdhip64-dev,
 * HIP 5.2), which call the CUDA runtime, the CUDA driver API and NVRTC. It is what a HIP program built with hipcc
 * for an NVIDIA GPU runs on, made loadable: HCL_HIP_LIBRARY=<it> HCL_HIPRTC_LIBRARY=<it> HCL_BACKEND=hip then runs
 * the HIP driver on an NVIDIA GPU. Not an AMD GPU: no gfx code object, no wavefront of 64, no MFMA; hiprtc is NVRTC
 * and its "code object" is PTX (docs/backends.md, HIP).
 *
 * What it links, so that it loads on a machine without the NVIDIA driver (CI), where the CUDA runtime then says why
 * it cannot run (hipGetDeviceCount: cudaErrorInsufficientDriver):
 *  - the CUDA runtime, statically (cudart_static: it opens libcuda.so.1 itself);
 *  - the CUDA driver API (what the module, memcpy and launch entry points call) through the runtime's
 *    cudaGetDriverEntryPointByVersion, resolved on first use, not linked;
 *  - NVRTC (hiprtc) opened with dlopen on first use: its soname, then the toolkit's folder of the build
 *    (HCL_HIPCUDA_NVRTC, HCL_HIPCUDA_NVRTC_PATH).
 * The header compiles against CUDA 13 through cuda13_compat.h. Test-only: never installed. */
#define _GNU_SOURCE 1

/* HIP's NVIDIA header defines every entry point as a static inline function of the HIP name. Each one exported
 * here is renamed while the header is read (hcl_nv_<name>), so that the exported symbol of the HIP name can call
 * it (HCL_HIPCUDA_EXPORT). An export missing here fails the build: its symbol would be defined twice. */
#define hipGetErrorName hcl_nv_hipGetErrorName
#define hipGetErrorString hcl_nv_hipGetErrorString
#define hipDriverGetVersion hcl_nv_hipDriverGetVersion
#define hipRuntimeGetVersion hcl_nv_hipRuntimeGetVersion
#define hipGetDeviceCount hcl_nv_hipGetDeviceCount
#define hipDeviceGet hcl_nv_hipDeviceGet
#define hipDeviceGetName hcl_nv_hipDeviceGetName
#define hipDeviceGetUuid hcl_nv_hipDeviceGetUuid
#define hipDeviceReset hcl_nv_hipDeviceReset
#define hipDeviceTotalMem hcl_nv_hipDeviceTotalMem
#define hipDeviceGetAttribute hcl_nv_hipDeviceGetAttribute
#define hipGetDevice hcl_nv_hipGetDevice
#define hipSetDevice hcl_nv_hipSetDevice
#define hipStreamCreateWithFlags hcl_nv_hipStreamCreateWithFlags
#define hipStreamDestroy hcl_nv_hipStreamDestroy
#define hipStreamSynchronize hcl_nv_hipStreamSynchronize
#define hipStreamWaitEvent hcl_nv_hipStreamWaitEvent
#define hipEventCreateWithFlags hcl_nv_hipEventCreateWithFlags
#define hipEventDestroy hcl_nv_hipEventDestroy
#define hipEventRecord hcl_nv_hipEventRecord
#define hipEventSynchronize hcl_nv_hipEventSynchronize
#define hipEventQuery hcl_nv_hipEventQuery
#define hipEventElapsedTime hcl_nv_hipEventElapsedTime
#define hipMalloc hcl_nv_hipMalloc
#define hipFree hcl_nv_hipFree
#define hipHostMalloc hcl_nv_hipHostMalloc
#define hipHostFree hcl_nv_hipHostFree
#define hipMemcpyHtoDAsync hcl_nv_hipMemcpyHtoDAsync
#define hipMemcpyDtoHAsync hcl_nv_hipMemcpyDtoHAsync
#define hipMemcpyDtoDAsync hcl_nv_hipMemcpyDtoDAsync
#define hipMemsetD8Async hcl_nv_hipMemsetD8Async
#define hipMemsetD16Async hcl_nv_hipMemsetD16Async
#define hipMemsetD32Async hcl_nv_hipMemsetD32Async
#define hipModuleLoadData hcl_nv_hipModuleLoadData
#define hipModuleUnload hcl_nv_hipModuleUnload
#define hipModuleGetFunction hcl_nv_hipModuleGetFunction
#define hipFuncGetAttribute hcl_nv_hipFuncGetAttribute
#define hipDeviceCanAccessPeer hcl_nv_hipDeviceCanAccessPeer
#define hipDeviceEnablePeerAccess hcl_nv_hipDeviceEnablePeerAccess
#define hipHostRegister hcl_nv_hipHostRegister
#define hipHostUnregister hcl_nv_hipHostUnregister
#define hipMemcpyPeerAsync hcl_nv_hipMemcpyPeerAsync
#define hipModuleLaunchKernel hcl_nv_hipModuleLaunchKernel
#define hiprtcGetErrorString hcl_nv_hiprtcGetErrorString
#define hiprtcVersion hcl_nv_hiprtcVersion
#define hiprtcCreateProgram hcl_nv_hiprtcCreateProgram
#define hiprtcDestroyProgram hcl_nv_hiprtcDestroyProgram
#define hiprtcCompileProgram hcl_nv_hiprtcCompileProgram
#define hiprtcGetProgramLogSize hcl_nv_hiprtcGetProgramLogSize
#define hiprtcGetProgramLog hcl_nv_hiprtcGetProgramLog
#define hiprtcGetCodeSize hcl_nv_hiprtcGetCodeSize
#define hiprtcGetCode hcl_nv_hiprtcGetCode

#define __HIP_PLATFORM_NVIDIA__ 1
#include "cuda13_compat.h"

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The values the HIP driver passes, pinned against AMD's headers in drivers/hip/driver.c, mean the same here; and a
 * device pointer is a pointer-sized integer on NVIDIA where it is a pointer on AMD (passed the same way). */
_Static_assert(hipStreamNonBlocking == 1 && hipEventDefault == 0 && hipHostMallocPortable == 1 &&
                   hipHostRegisterPortable == 1,
               "HIP flags the driver passes");
_Static_assert(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK == 0 && hipErrorNoDevice == 100, "HIP values");
_Static_assert(sizeof(hipDeviceptr_t) == sizeof(void *), "a device pointer is passed as a pointer");

#define HCL_HIPCUDA_API __attribute__((visibility("default")))

/* ---------------------------------------------------------------------------------------------------------
 * The CUDA driver API: X(name, params, args), the functions the exported entry points reach (cuda.h declares them;
 * a signature here that differs from its declaration stops the build). Each is defined here under the name cuda.h
 * gives it (cuMemcpyHtoDAsync is cuMemcpyHtoDAsync_v2), hidden, and calls the driver's own, which the CUDA runtime
 * looks up for the ABI of the headers this was built with (cudaGetDriverEntryPointByVersion, CUDA_VERSION).
 * ------------------------------------------------------------------------------------------------------- */
// clang-format off
#define HCL_HIPCUDA_CU(X)                                                                                              \
    X(cuDeviceGet, (CUdevice *device, int ordinal), (device, ordinal))                                                 \
    X(cuDeviceGetName, (char *name, int len, CUdevice dev), (name, len, dev))                                          \
    X(cuDeviceGetUuid, (CUuuid *uuid, CUdevice dev), (uuid, dev))                                                      \
    X(cuDeviceTotalMem, (size_t *bytes, CUdevice dev), (bytes, dev))                                                   \
    X(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t size, CUstream s), (dst, src, size, s))             \
    X(cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t size, CUstream s), (dst, src, size, s))                   \
    X(cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream s), (dst, src, size, s))             \
    X(cuMemsetD8Async, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s), (dst, v, n, s))                       \
    X(cuMemsetD16Async, (CUdeviceptr dst, unsigned short v, size_t n, CUstream s), (dst, v, n, s))                     \
    X(cuMemsetD32Async, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s), (dst, v, n, s))                       \
    X(cuModuleLoadData, (CUmodule *module, const void *image), (module, image))                                        \
    X(cuModuleUnload, (CUmodule module), (module))                                                                     \
    X(cuModuleGetFunction, (CUfunction *fn, CUmodule module, const char *name), (fn, module, name))                    \
    X(cuFuncGetAttribute, (int *value, CUfunction_attribute attr, CUfunction fn), (value, attr, fn))                   \
    X(cuLaunchKernel,                                                                                                  \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,              \
       unsigned int bz, unsigned int shared, CUstream s, void **params, void **extra),                                 \
      (f, gx, gy, gz, bx, by, bz, shared, s, params, extra))
// clang-format on

static struct {
#define HCL_HIPCUDA_CU_FIELD(name, params, args) CUresult(CUDAAPI *p_##name) params;
    HCL_HIPCUDA_CU(HCL_HIPCUDA_CU_FIELD)
#undef HCL_HIPCUDA_CU_FIELD
} g_cu;
static pthread_once_t g_cu_once = PTHREAD_ONCE_INIT;

/* Look every entry point up once. One the runtime cannot give stays NULL: there is no driver, or it is older than
 * the headers (the CUDA runtime already said so at hipGetDeviceCount, which the HIP driver calls first). */
static void cu_resolve(void) {
#define HCL_HIPCUDA_CU_LOOKUP(name, params, args)                                                                      \
    {                                                                                                                  \
        void *fn = NULL;                                                                                               \
        enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;                               \
        if (cudaGetDriverEntryPointByVersion(#name, &fn, CUDA_VERSION, cudaEnableDefault, &found) == cudaSuccess &&    \
            found == cudaDriverEntryPointSuccess)                                                                      \
            memcpy(&g_cu.p_##name, &fn, sizeof fn);                                                                    \
    }
    HCL_HIPCUDA_CU(HCL_HIPCUDA_CU_LOOKUP)
#undef HCL_HIPCUDA_CU_LOOKUP
}

/* ---------------------------------------------------------------------------------------------------------
 * NVRTC, opened on the first hiprtc call: X(ret, name, params, args, failed), `failed` returned when it cannot be
 * loaded (NVRTC_FAILED; hiprtcGetErrorString then says why).
 * ------------------------------------------------------------------------------------------------------- */
// clang-format off
#define NVRTC_FAILED NVRTC_ERROR_INTERNAL_ERROR
#define HCL_HIPCUDA_NVRTC_API(X)                                                                                       \
    X(const char *, nvrtcGetErrorString, (nvrtcResult r), (r), g_nvrtc_reason)                                         \
    X(nvrtcResult, nvrtcVersion, (int *major, int *minor), (major, minor), NVRTC_FAILED)                               \
    X(nvrtcResult, nvrtcCreateProgram,                                                                                 \
      (nvrtcProgram *prog, const char *src, const char *name, int num_headers, const char *const *headers,             \
       const char *const *include_names),                                                                              \
      (prog, src, name, num_headers, headers, include_names), NVRTC_FAILED)                                            \
    X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram *prog), (prog), NVRTC_FAILED)                                    \
    X(nvrtcResult, nvrtcCompileProgram, (nvrtcProgram prog, int num_options, const char *const *options),              \
      (prog, num_options, options), NVRTC_FAILED)                                                                      \
    X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t *size), (prog, size), NVRTC_FAILED)              \
    X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram prog, char *log), (prog, log), NVRTC_FAILED)                      \
    X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram prog, size_t *size), (prog, size), NVRTC_FAILED)                     \
    X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram prog, char *ptx), (prog, ptx), NVRTC_FAILED)
// clang-format on

static struct {
#define HCL_HIPCUDA_NVRTC_FIELD(ret, name, params, args, failed) ret(*p_##name) params;
    HCL_HIPCUDA_NVRTC_API(HCL_HIPCUDA_NVRTC_FIELD)
#undef HCL_HIPCUDA_NVRTC_FIELD
} g_nvrtc;
static pthread_once_t g_nvrtc_once = PTHREAD_ONCE_INIT;
static char g_nvrtc_reason[1024] = "NVRTC could not be loaded"; /* why, when it could not be */

/* dlopen NVRTC (its soname, then the build's toolkit folder) and resolve every entry point, or none. */
static void nvrtc_open(void) {
    static const char *const paths[] = {HCL_HIPCUDA_NVRTC, HCL_HIPCUDA_NVRTC_PATH};
    void *h = NULL;
    size_t used = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0] && !h; i++) {
        if ((h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL)) != NULL) break;
        const char *e = dlerror();
        int n =
            snprintf(g_nvrtc_reason + used, sizeof g_nvrtc_reason - used, "%s%s", used ? "; " : "", e ? e : paths[i]);
        used += n > 0 && (size_t)n < sizeof g_nvrtc_reason - used ? (size_t)n : 0;
    }
    if (!h) return;
#define HCL_HIPCUDA_NVRTC_LOOKUP(ret, name, params, args, failed)                                                      \
    {                                                                                                                  \
        void *fn = dlsym(h, #name);                                                                                    \
        if (!fn) {                                                                                                     \
            snprintf(g_nvrtc_reason, sizeof g_nvrtc_reason, "NVRTC has no %s", #name);                                 \
            memset(&g_nvrtc, 0, sizeof g_nvrtc);                                                                       \
            return; /* NVRTC stays loaded: its C++ runtime may have registered exit handlers */                        \
        }                                                                                                              \
        memcpy(&g_nvrtc.p_##name, &fn, sizeof fn);                                                                     \
    }
    HCL_HIPCUDA_NVRTC_API(HCL_HIPCUDA_NVRTC_LOOKUP)
#undef HCL_HIPCUDA_NVRTC_LOOKUP
}

/* The driver API function `name`, as HIP's header calls it: CUDA_ERROR_NOT_INITIALIZED when the driver is not there. */
#define HCL_HIPCUDA_CU_DEFINE(name, params, args)                                                                      \
    __attribute__((visibility("hidden"))) CUresult CUDAAPI name params {                                               \
        pthread_once(&g_cu_once, cu_resolve);                                                                          \
        return g_cu.p_##name ? g_cu.p_##name args : CUDA_ERROR_NOT_INITIALIZED;                                        \
    }
HCL_HIPCUDA_CU(HCL_HIPCUDA_CU_DEFINE)
#undef HCL_HIPCUDA_CU_DEFINE

/* The NVRTC function `name`, as HIP's hiprtc header calls it. */
#define HCL_HIPCUDA_NVRTC_DEFINE(ret, name, params, args, failed)                                                      \
    __attribute__((visibility("hidden"))) ret name params {                                                            \
        pthread_once(&g_nvrtc_once, nvrtc_open);                                                                       \
        return g_nvrtc.p_##name ? g_nvrtc.p_##name args : failed;                                                      \
    }
HCL_HIPCUDA_NVRTC_API(HCL_HIPCUDA_NVRTC_DEFINE)
#undef HCL_HIPCUDA_NVRTC_DEFINE

/* ---------------------------------------------------------------------------------------------------------
 * The exports: X(ret, name, params, args), each the HIP name calling HIP's NVIDIA implementation of it (renamed
 * above). The signatures are the NVIDIA header's; where they differ from AMD's (hipDeviceptr_t, hipMemcpyHtoDAsync's
 * source) the arguments are passed the same way.
 * ------------------------------------------------------------------------------------------------------- */
// clang-format off
#define HCL_HIPCUDA_EXPORTS(X)                                                                                         \
    X(const char *, hipGetErrorName, (hipError_t e), (e))                                                              \
    X(const char *, hipGetErrorString, (hipError_t e), (e))                                                            \
    X(hipError_t, hipDriverGetVersion, (int *v), (v))                                                                  \
    X(hipError_t, hipRuntimeGetVersion, (int *v), (v))                                                                 \
    X(hipError_t, hipGetDeviceCount, (int *count), (count))                                                            \
    X(hipError_t, hipDeviceGet, (hipDevice_t *device, int ordinal), (device, ordinal))                                 \
    X(hipError_t, hipDeviceGetName, (char *name, int len, hipDevice_t device), (name, len, device))                    \
    X(hipError_t, hipDeviceGetUuid, (hipUUID *uuid, hipDevice_t device), (uuid, device))                               \
    X(hipError_t, hipDeviceReset, (void), ())                                                                          \
    X(hipError_t, hipDeviceTotalMem, (size_t *bytes, hipDevice_t device), (bytes, device))                             \
    X(hipError_t, hipDeviceGetAttribute, (int *v, hipDeviceAttribute_t attr, int device), (v, attr, device))           \
    X(hipError_t, hipGetDevice, (int *device), (device))                                                               \
    X(hipError_t, hipSetDevice, (int device), (device))                                                                \
    X(hipError_t, hipStreamCreateWithFlags, (hipStream_t *s, unsigned int flags), (s, flags))                          \
    X(hipError_t, hipStreamDestroy, (hipStream_t s), (s))                                                              \
    X(hipError_t, hipStreamSynchronize, (hipStream_t s), (s))                                                          \
    X(hipError_t, hipStreamWaitEvent, (hipStream_t s, hipEvent_t e, unsigned int flags), (s, e, flags))                \
    X(hipError_t, hipEventCreateWithFlags, (hipEvent_t *e, unsigned int flags), (e, flags))                            \
    X(hipError_t, hipEventDestroy, (hipEvent_t e), (e))                                                                \
    X(hipError_t, hipEventRecord, (hipEvent_t e, hipStream_t s), (e, s))                                               \
    X(hipError_t, hipEventSynchronize, (hipEvent_t e), (e))                                                            \
    X(hipError_t, hipEventQuery, (hipEvent_t e), (e))                                                                  \
    X(hipError_t, hipEventElapsedTime, (float *ms, hipEvent_t a, hipEvent_t b), (ms, a, b))                            \
    X(hipError_t, hipMalloc, (void **p, size_t size), (p, size))                                                       \
    X(hipError_t, hipFree, (void *p), (p))                                                                             \
    X(hipError_t, hipHostMalloc, (void **p, size_t size, unsigned int flags), (p, size, flags))                        \
    X(hipError_t, hipHostFree, (void *p), (p))                                                                         \
    X(hipError_t, hipMemcpyHtoDAsync, (hipDeviceptr_t dst, void *src, size_t n, hipStream_t s), (dst, src, n, s))      \
    X(hipError_t, hipMemcpyDtoHAsync, (void *dst, hipDeviceptr_t src, size_t n, hipStream_t s), (dst, src, n, s))      \
    X(hipError_t, hipMemcpyDtoDAsync, (hipDeviceptr_t dst, hipDeviceptr_t src, size_t n, hipStream_t s),               \
      (dst, src, n, s))                                                                                                \
    X(hipError_t, hipMemsetD8Async, (hipDeviceptr_t dst, unsigned char v, size_t n, hipStream_t s), (dst, v, n, s))    \
    X(hipError_t, hipMemsetD16Async, (hipDeviceptr_t dst, unsigned short v, size_t n, hipStream_t s), (dst, v, n, s))  \
    X(hipError_t, hipMemsetD32Async, (hipDeviceptr_t dst, int v, size_t n, hipStream_t s), (dst, v, n, s))             \
    X(hipError_t, hipModuleLoadData, (hipModule_t *m, const void *image), (m, image))                                  \
    X(hipError_t, hipModuleUnload, (hipModule_t m), (m))                                                               \
    X(hipError_t, hipModuleGetFunction, (hipFunction_t *f, hipModule_t m, const char *name), (f, m, name))             \
    X(hipError_t, hipFuncGetAttribute, (int *v, hipFunction_attribute attr, hipFunction_t f), (v, attr, f))            \
    X(hipError_t, hipDeviceCanAccessPeer, (int *can, int device, int peer), (can, device, peer))                       \
    X(hipError_t, hipDeviceEnablePeerAccess, (int peer, unsigned int flags), (peer, flags))                            \
    X(hipError_t, hipHostRegister, (void *p, size_t size, unsigned int flags), (p, size, flags))                       \
    X(hipError_t, hipHostUnregister, (void *p), (p))                                                                   \
    X(hipError_t, hipMemcpyPeerAsync, (void *dst, int dst_dev, const void *src, int src_dev, size_t n, hipStream_t s), \
      (dst, dst_dev, src, src_dev, n, s))                                                                              \
    X(hipError_t, hipModuleLaunchKernel,                                                                               \
      (hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,           \
       unsigned int bz, unsigned int shared, hipStream_t s, void **params, void **extra),                              \
      (f, gx, gy, gz, bx, by, bz, shared, s, params, extra))                                                           \
    X(const char *, hiprtcGetErrorString, (hiprtcResult r), (r))                                                       \
    X(hiprtcResult, hiprtcVersion, (int *major, int *minor), (major, minor))                                           \
    X(hiprtcResult, hiprtcCreateProgram,                                                                               \
      (hiprtcProgram *prog, const char *src, const char *name, int num_headers, const char **headers,                  \
       const char **include_names),                                                                                    \
      (prog, src, name, num_headers, headers, include_names))                                                          \
    X(hiprtcResult, hiprtcDestroyProgram, (hiprtcProgram *prog), (prog))                                               \
    X(hiprtcResult, hiprtcCompileProgram, (hiprtcProgram prog, int n, const char **options), (prog, n, options))       \
    X(hiprtcResult, hiprtcGetProgramLogSize, (hiprtcProgram prog, size_t *size), (prog, size))                         \
    X(hiprtcResult, hiprtcGetProgramLog, (hiprtcProgram prog, char *log), (prog, log))                                 \
    X(hiprtcResult, hiprtcGetCodeSize, (hiprtcProgram prog, size_t *size), (prog, size))                               \
    X(hiprtcResult, hiprtcGetCode, (hiprtcProgram prog, char *code), (prog, code))
// clang-format on

/* The exported symbol `name` (an assembler name: the C name `name` is HIP's renamed implementation). */
#define HCL_HIPCUDA_EXPORT(ret, name, params, args)                                                                    \
    HCL_HIPCUDA_API ret hcl_hipcuda_##name params __asm__(#name);                                                      \
    HCL_HIPCUDA_API ret hcl_hipcuda_##name params { return name args; }
HCL_HIPCUDA_EXPORTS(HCL_HIPCUDA_EXPORT)
#undef HCL_HIPCUDA_EXPORT
