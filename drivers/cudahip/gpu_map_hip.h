/* The HIP side of the shared host code (gpu.h): the HIP module API (libamdhip64) and hiprtc under the neutral
 * names.
 *
 * The driver is built against whatever HIP headers the build machine has (Debian 12: HIP 5.2) and runs with the
 * libamdhip64 of the machine it meets (ROCm 5, 6 or 7), so every entry point it uses must mean the same across
 * those versions. The ones that do not are kept out or marked:
 *  - hipGetDeviceProperties fills a struct whose layout changed in ROCm 6 (hipDeviceProp_tR0600; the header
 *    #defines the name to hipGetDevicePropertiesR0600). Only the architecture name is read from it, at an offset
 *    fixed per layout (driver.c); everything else comes from hipDeviceGetAttribute, whose values for the
 *    attributes used here are the same in ROCm 5.2 and 6.x (checked against both headers).
 *  - hipMemcpyHtoDAsync takes `void *src` up to ROCm 5 and `const void *src` from ROCm 6: the same ABI; the list
 *    gives the newer form and skips the header check (REQ_U).
 *  - hiprtc is exported by libamdhip64 itself in ROCm 5 and by libhiprtc.so from ROCm 6 (rtc.c tries both). */
#ifndef HCL_CUDAHIP_GPU_MAP_HIP_H
#define HCL_CUDAHIP_GPU_MAP_HIP_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1 /* the HIP headers need the platform named; from C they give the plain C API */
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#define HCL_GPU_NAME "hip" /* the backend */
#define HCL_GPU_API "HIP"  /* in messages: "a HIP C++ kernel" */
#define HCL_GPU_RTC_NAME "hiprtc"
#define HCL_GPU_RTC_ENV "HCL_HIPRTC_LIBRARY"
#define HCL_GPU_HELPER_BINARY_NAME "code-object bundle" /* what the build embeds for the helper kernels */
#define HCL_GPU_RTC_KEY "hiprtc"                        /* the compiler, in cache keys */
#define HCL_GPU_SOURCE_C HCL_SOURCE_HIP_C
#define HCL_GPU_SOURCE_BINARY HCL_SOURCE_HIP_BINARY
#define HCL_GPU_SOURCE_C_NAME "HIP_C"
#define HCL_GPU_SOURCE_BINARY_NAME "HIP_BINARY"
#define HCL_GPU_BINARY_FORMS "code object, or offload bundle holding one for the device"

typedef hipError_t hcl_gpu_result;
#define HCL_GPU_SUCCESS hipSuccess
/* The codes that map to a status other than HCL_ERROR_VENDOR (runtime.c, hcl__gpu_status). */
#define HCL_GPU_ERROR_OUT_OF_MEMORY hipErrorOutOfMemory
#define HCL_GPU_ERROR_NOT_FOUND hipErrorNotFound
/* The sticky errors: the device is unusable after them until it is reset (HCL_ERROR_DEVICE_LOST). */
// clang-format off
#define HCL_GPU_LOST_ERRORS(X)                                                                                        \
    X(hipErrorIllegalAddress)                                                                                         \
    X(hipErrorLaunchFailure)                                                                                          \
    X(hipErrorECCNotCorrectable)                                                                                      \
    X(hipErrorLaunchTimeOut)                                                                                          \
    X(hipErrorAssert)
// clang-format on
/* clang-format off: one vendor name per list entry, as the vendor headers order them */
// clang-format off
#define HCL_GPU_BUILD_ERRORS(X)                                                                                        \
    X(hipErrorInvalidImage)                                                                                            \
    X(hipErrorNoBinaryForGpu)                                                                                          \
    X(hipErrorInvalidKernelFile) X(hipErrorInvalidSource) X(hipErrorSharedObjectSymbolNotFound)                        \
        X(hipErrorSharedObjectInitFailed)
// clang-format on
typedef hipDevice_t hcl_gpu_device;
typedef hipDeviceptr_t hcl_gpu_dptr; /* a pointer */
typedef hipStream_t hcl_gpu_stream;
typedef hipEvent_t hcl_gpu_event;
typedef hipModule_t hcl_gpu_module;
typedef hipFunction_t hcl_gpu_function;

typedef int hcl_gpu_memset32_value; /* the value parameter of MemsetD32Async */
#define HCL_GPU_DPTR(mem) ((hipDeviceptr_t)(uintptr_t)(mem))
#define HCL_GPU_DPTR_ADD(p, bytes) ((hipDeviceptr_t)((uintptr_t)(p) + (bytes)))

#define HCL_GPU_STREAM_NON_BLOCKING hipStreamNonBlocking
#define HCL_GPU_EVENT_TIMING hipEventDefault /* default flags: timing enabled */
#define HCL_GPU_HOST_ALLOC_PORTABLE hipHostMallocPortable
#define HCL_GPU_HOST_REGISTER_PORTABLE hipHostRegisterPortable

/* Making a device current: HIP has no context to push; a thread has a current device. Set it when it differs,
 * and set the caller's back on leaving. */
typedef struct hcl__gpu_scope {
    int restore; /* 1: `previous` must be set back */
    int previous;
} hcl__gpu_scope;

/* Device attributes under neutral names (hcl__gpu_attr), and the kernel attribute kernel_max_group reads. */
typedef hipDeviceAttribute_t hcl_gpu_attribute;
#define HCL_GPU_ATTR_MULTIPROCESSOR_COUNT hipDeviceAttributeMultiprocessorCount
#define HCL_GPU_ATTR_MAX_THREADS_PER_BLOCK hipDeviceAttributeMaxThreadsPerBlock
#define HCL_GPU_ATTR_CLOCK_RATE hipDeviceAttributeClockRate
#define HCL_GPU_ATTR_MAX_GRID_DIM_X hipDeviceAttributeMaxGridDimX
#define HCL_GPU_ATTR_MAX_GRID_DIM_Y hipDeviceAttributeMaxGridDimY
#define HCL_GPU_ATTR_MAX_GRID_DIM_Z hipDeviceAttributeMaxGridDimZ
#define HCL_GPU_ATTR_MAX_BLOCK_DIM_X hipDeviceAttributeMaxBlockDimX
#define HCL_GPU_ATTR_MAX_BLOCK_DIM_Y hipDeviceAttributeMaxBlockDimY
#define HCL_GPU_ATTR_MAX_BLOCK_DIM_Z hipDeviceAttributeMaxBlockDimZ
#define HCL_GPU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK hipDeviceAttributeMaxSharedMemoryPerBlock
/* what hcl-info shows a kernel writer: kHz, bits, bytes */
#define HCL_GPU_ATTR_WARP_SIZE hipDeviceAttributeWarpSize
#define HCL_GPU_ATTR_MEMORY_CLOCK_RATE hipDeviceAttributeMemoryClockRate
#define HCL_GPU_ATTR_MEMORY_BUS_WIDTH hipDeviceAttributeMemoryBusWidth
#define HCL_GPU_ATTR_L2_CACHE_SIZE hipDeviceAttributeL2CacheSize
#define HCL_GPU_FUNC_MAX_THREADS_PER_BLOCK HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK

/* The neutral operations of the shared code (HCL_GPU(op, ...)) and the HIP symbol each one is. */
#define HCL_GPU_SYM_StreamCreate hipStreamCreateWithFlags /* (&stream, HCL_GPU_STREAM_NON_BLOCKING) */
#define HCL_GPU_SYM_StreamDestroy hipStreamDestroy
#define HCL_GPU_SYM_StreamSynchronize hipStreamSynchronize
#define HCL_GPU_SYM_StreamWaitEvent hipStreamWaitEvent
#define HCL_GPU_SYM_EventCreate hipEventCreateWithFlags /* (&event, HCL_GPU_EVENT_TIMING) */
#define HCL_GPU_SYM_EventDestroy hipEventDestroy
#define HCL_GPU_SYM_EventRecord hipEventRecord
#define HCL_GPU_SYM_EventSynchronize hipEventSynchronize
#define HCL_GPU_SYM_EventQuery hipEventQuery
#define HCL_GPU_SYM_EventElapsedTime hipEventElapsedTime
#define HCL_GPU_SYM_MemAlloc hipMalloc
#define HCL_GPU_SYM_MemFree hipFree
#define HCL_GPU_SYM_MemHostAlloc hipHostMalloc
#define HCL_GPU_SYM_MemFreeHost hipHostFree
#define HCL_GPU_SYM_MemHostRegister hipHostRegister     /* (ptr, size, HCL_GPU_HOST_REGISTER_PORTABLE); optional */
#define HCL_GPU_SYM_MemHostUnregister hipHostUnregister /* optional */
#define HCL_GPU_SYM_MemcpyHtoDAsync hipMemcpyHtoDAsync
#define HCL_GPU_SYM_MemcpyDtoHAsync hipMemcpyDtoHAsync
#define HCL_GPU_SYM_MemcpyDtoDAsync hipMemcpyDtoDAsync
#define HCL_GPU_SYM_MemsetD8Async hipMemsetD8Async
#define HCL_GPU_SYM_MemsetD16Async hipMemsetD16Async
#define HCL_GPU_SYM_MemsetD32Async hipMemsetD32Async /* the value is an int here, unsigned int on CUDA */
#define HCL_GPU_SYM_ModuleUnload hipModuleUnload
#define HCL_GPU_SYM_ModuleGetFunction hipModuleGetFunction
#define HCL_GPU_SYM_LaunchKernel hipModuleLaunchKernel
#define HCL_GPU_SYM_DeviceGet hipDeviceGet
#define HCL_GPU_SYM_DeviceGetName hipDeviceGetName
#define HCL_GPU_SYM_DeviceTotalMem hipDeviceTotalMem
#define HCL_GPU_SYM_DeviceGetAttribute hipDeviceGetAttribute
#define HCL_GPU_SYM_FuncGetAttribute hipFuncGetAttribute
#define HCL_GPU_SYM_DeviceCanAccessPeer hipDeviceCanAccessPeer /* (&can, device, peer) */
#define HCL_GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED hipErrorPeerAccessAlreadyEnabled
#define HCL_GPU_ERROR_NOT_READY hipErrorNotReady
/* buffer_wrap's checks of a foreign pointer: hipPointerGetAttribute (data, attribute, pointer); optional */
#define HCL_GPU_SYM_PointerGetAttribute hipPointerGetAttribute
#define HCL_GPU_POINTER_DEVICE_ORDINAL HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#define HCL_GPU_POINTER_RANGE_START HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR
#define HCL_GPU_POINTER_RANGE_SIZE HIP_POINTER_ATTRIBUTE_RANGE_SIZE

/* libamdhip64, X-macro list (the kinds are gpu_map_cuda.h's):
 *   REQ(ret, name, params), OPT(ret, name, params), REQ_OR(ret, name, old, params): checked against the HIP
 *     headers at compile time (runtime.c);
 *   REQ_U / OPT_U: not checked, because the headers of some ROCm version declare them differently or not at all;
 *     the signature here is the ABI every version exports. */
#define HCL_GPU_SYMBOLS(REQ, OPT, REQ_OR, REQ_U, OPT_U)                                                                \
    REQ(const char *, hipGetErrorName, (hipError_t))                                                                   \
    REQ(const char *, hipGetErrorString, (hipError_t))                                                                 \
    REQ(hipError_t, hipDriverGetVersion, (int *))                                                                      \
    REQ(hipError_t, hipRuntimeGetVersion, (int *))                                                                     \
    REQ(hipError_t, hipGetDeviceCount, (int *))                                                                        \
    REQ(hipError_t, hipDeviceGet, (hipDevice_t *, int))                                                                \
    REQ(hipError_t, hipDeviceGetName, (char *, int, hipDevice_t))                                                      \
    OPT(hipError_t, hipDeviceGetUuid, (hipUUID *, hipDevice_t))                                                        \
    OPT(hipError_t, hipDeviceReset, (void))                                                                            \
    REQ(hipError_t, hipDeviceTotalMem, (size_t *, hipDevice_t))                                                        \
    REQ(hipError_t, hipDeviceGetAttribute, (int *, hipDeviceAttribute_t, int))                                         \
    OPT_U(hipError_t, hipGetDevicePropertiesR0600, (void *, int))                                                      \
    OPT_U(hipError_t, hipGetDevicePropertiesR0000, (void *, int))                                                      \
    OPT_U(hipError_t, hipGetDeviceProperties, (void *, int))                                                           \
    REQ(hipError_t, hipGetDevice, (int *))                                                                             \
    REQ(hipError_t, hipSetDevice, (int))                                                                               \
    REQ(hipError_t, hipStreamCreateWithFlags, (hipStream_t *, unsigned int))                                           \
    REQ(hipError_t, hipStreamDestroy, (hipStream_t))                                                                   \
    REQ(hipError_t, hipStreamSynchronize, (hipStream_t))                                                               \
    REQ(hipError_t, hipStreamWaitEvent, (hipStream_t, hipEvent_t, unsigned int))                                       \
    REQ(hipError_t, hipEventCreateWithFlags, (hipEvent_t *, unsigned int))                                             \
    REQ(hipError_t, hipEventDestroy, (hipEvent_t))                                                                     \
    REQ(hipError_t, hipEventRecord, (hipEvent_t, hipStream_t))                                                         \
    REQ(hipError_t, hipEventSynchronize, (hipEvent_t))                                                                 \
    REQ(hipError_t, hipEventQuery, (hipEvent_t))                                                                       \
    REQ(hipError_t, hipEventElapsedTime, (float *, hipEvent_t, hipEvent_t))                                            \
    REQ(hipError_t, hipMalloc, (void **, size_t))                                                                      \
    REQ(hipError_t, hipFree, (void *))                                                                                 \
    REQ_OR(hipError_t, hipHostMalloc, "hipHostAlloc", (void **, size_t, unsigned int))                                 \
    REQ(hipError_t, hipHostFree, (void *))                                                                             \
    REQ_U(hipError_t, hipMemcpyHtoDAsync, (hipDeviceptr_t, const void *, size_t, hipStream_t))                         \
    REQ(hipError_t, hipMemcpyDtoHAsync, (void *, hipDeviceptr_t, size_t, hipStream_t))                                 \
    REQ(hipError_t, hipMemcpyDtoDAsync, (hipDeviceptr_t, hipDeviceptr_t, size_t, hipStream_t))                         \
    REQ(hipError_t, hipMemsetD8Async, (hipDeviceptr_t, unsigned char, size_t, hipStream_t))                            \
    REQ(hipError_t, hipMemsetD16Async, (hipDeviceptr_t, unsigned short, size_t, hipStream_t))                          \
    REQ(hipError_t, hipMemsetD32Async, (hipDeviceptr_t, int, size_t, hipStream_t))                                     \
    REQ(hipError_t, hipModuleLoadData, (hipModule_t *, const void *))                                                  \
    REQ(hipError_t, hipModuleUnload, (hipModule_t))                                                                    \
    REQ(hipError_t, hipModuleGetFunction, (hipFunction_t *, hipModule_t, const char *))                                \
    REQ(hipError_t, hipFuncGetAttribute, (int *, hipFunction_attribute, hipFunction_t))                                \
    OPT(hipError_t, hipDeviceCanAccessPeer, (int *, int, int))                                                         \
    OPT(hipError_t, hipDeviceEnablePeerAccess, (int, unsigned int))                                                    \
    OPT(hipError_t, hipHostRegister, (void *, size_t, unsigned int))                                                   \
    OPT(hipError_t, hipHostUnregister, (void *))                                                                       \
    OPT(hipError_t, hipPointerGetAttribute, (void *, hipPointer_attribute, hipDeviceptr_t))                            \
    OPT(hipError_t, hipMemcpyPeerAsync, (void *, int, const void *, int, size_t, hipStream_t))                         \
    REQ(hipError_t, hipModuleLaunchKernel,                                                                             \
        (hipFunction_t, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,            \
         unsigned int, hipStream_t, void **, void **))
#define HCL_GPU_LIBRARY_LABEL "libamdhip64"
#define HCL_GPU_RUNTIME_TOO_OLD "the HIP runtime is too old for this build"

/* hiprtc, opened only when HIP source has to be compiled. X(return type, name, params). */
typedef hiprtcResult hcl_gpu_rtc_result;
typedef hiprtcProgram hcl_gpu_rtc_program;
#define HCL_GPU_RTC_SUCCESS HIPRTC_SUCCESS
#define HCL_GPU_RTC_ERROR_COMPILATION HIPRTC_ERROR_COMPILATION
#define HCL_GPU_RTC_SYMBOLS(X)                                                                                         \
    X(const char *, hiprtcGetErrorString, (hiprtcResult))                                                              \
    X(hiprtcResult, hiprtcVersion, (int *, int *))                                                                     \
    X(hiprtcResult, hiprtcCreateProgram,                                                                               \
      (hiprtcProgram *, const char *, const char *, int, const char **, const char **))                                \
    X(hiprtcResult, hiprtcDestroyProgram, (hiprtcProgram *))                                                           \
    X(hiprtcResult, hiprtcCompileProgram, (hiprtcProgram, int, const char **))                                         \
    X(hiprtcResult, hiprtcGetProgramLogSize, (hiprtcProgram, size_t *))                                                \
    X(hiprtcResult, hiprtcGetProgramLog, (hiprtcProgram, char *))                                                      \
    X(hiprtcResult, hiprtcGetCodeSize, (hiprtcProgram, size_t *))                                                      \
    X(hiprtcResult, hiprtcGetCode, (hiprtcProgram, char *))
#define HCL_GPU_RTC_SYM_GetErrorString hiprtcGetErrorString
#define HCL_GPU_RTC_SYM_Version hiprtcVersion
#define HCL_GPU_RTC_SYM_CreateProgram hiprtcCreateProgram
#define HCL_GPU_RTC_SYM_DestroyProgram hiprtcDestroyProgram
#define HCL_GPU_RTC_SYM_CompileProgram hiprtcCompileProgram
#define HCL_GPU_RTC_SYM_GetProgramLogSize hiprtcGetProgramLogSize
#define HCL_GPU_RTC_SYM_GetProgramLog hiprtcGetProgramLog
#define HCL_GPU_RTC_TOO_OLD "hiprtc of ROCm 5.0 or later is needed"

#endif /* HCL_CUDAHIP_GPU_MAP_HIP_H */
