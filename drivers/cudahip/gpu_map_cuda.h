/* The CUDA side of the shared host code (gpu.h): the CUDA driver API and NVRTC under the neutral names.
 *
 * The entry points are named by the symbol the library exports. cuda.h #defines most calls to a versioned symbol
 * (cuMemAlloc -> cuMemAlloc_v2, cuCtxPushCurrent -> cuCtxPushCurrent_v2, cuEventElapsedTime ->
 * cuEventElapsedTime_v2, ...); the list names that versioned symbol, so what dlsym finds has the signature
 * cuda.h declares and the struct member spells out which ABI is called (hcl__gpu.cuMemAlloc_v2(...)). None of
 * these names is itself a macro (this driver never defines CUDA_API_PER_THREAD_DEFAULT_STREAM; checked below).
 * dlsym of exact exported names is used rather than cuGetProcAddress: we need no per-thread-default-stream
 * variants, and the exported _v2 names are the ABI this code is compiled against. */
#ifndef HCL_CUDAHIP_GPU_MAP_CUDA_H
#define HCL_CUDAHIP_GPU_MAP_CUDA_H

#include <cuda.h>
#include <nvrtc.h>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error                                                                                                                 \
    "the CUDA driver resolves the legacy-default-stream entry points; do not define CUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

#define HCL_GPU_NAME "cuda" /* the backend */
#define HCL_GPU_API "CUDA"  /* in messages: "a CUDA C++ kernel" */
#define HCL_GPU_RTC_NAME "NVRTC"
#define HCL_GPU_RTC_ENV "HCL_NVRTC_LIBRARY"
#define HCL_GPU_HELPER_BINARY_NAME "fatbin" /* what the build embeds for the helper kernels */
#define HCL_GPU_RTC_KEY "nvrtc"             /* the compiler, in cache keys */
#define HCL_GPU_SOURCE_C HCL_SOURCE_CUDA_C
#define HCL_GPU_SOURCE_BINARY HCL_SOURCE_CUDA_BINARY
#define HCL_GPU_SOURCE_C_NAME "CUDA_C"
#define HCL_GPU_SOURCE_BINARY_NAME "CUDA_BINARY"
#define HCL_GPU_BINARY_FORMS "fatbin, cubin or PTX"

typedef CUresult hcl_gpu_result;
#define HCL_GPU_SUCCESS CUDA_SUCCESS
/* The codes that map to a status other than HCL_ERROR_VENDOR (runtime.c, hcl__gpu_status). */
#define HCL_GPU_ERROR_OUT_OF_MEMORY CUDA_ERROR_OUT_OF_MEMORY
#define HCL_GPU_ERROR_NOT_FOUND CUDA_ERROR_NOT_FOUND
/* The sticky errors: the context is unusable after them until it is reset (HCL_ERROR_DEVICE_LOST). */
// clang-format off
#define HCL_GPU_LOST_ERRORS(X)                                                                                        \
    X(CUDA_ERROR_ILLEGAL_ADDRESS)                                                                                     \
    X(CUDA_ERROR_LAUNCH_FAILED)                                                                                       \
    X(CUDA_ERROR_ECC_UNCORRECTABLE)                                                                                   \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR)                                                                                \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION)                                                                                 \
    X(CUDA_ERROR_MISALIGNED_ADDRESS)                                                                                  \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE)                                                                               \
    X(CUDA_ERROR_INVALID_PC)                                                                                          \
    X(CUDA_ERROR_ASSERT)                                                                                              \
    X(CUDA_ERROR_LAUNCH_TIMEOUT)
// clang-format on
/* clang-format off: one vendor name per list entry, as the vendor headers order them */
// clang-format off
#define HCL_GPU_BUILD_ERRORS(X)                                                                                        \
    X(CUDA_ERROR_INVALID_IMAGE)                                                                                        \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU)                                                                                    \
    X(CUDA_ERROR_INVALID_PTX) X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION) X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)               \
        X(CUDA_ERROR_JIT_COMPILATION_DISABLED) X(CUDA_ERROR_INVALID_SOURCE)                                            \
            X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND) X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)
// clang-format on
typedef CUdevice hcl_gpu_device;
typedef CUdeviceptr hcl_gpu_dptr; /* an integer */
typedef CUstream hcl_gpu_stream;
typedef CUevent hcl_gpu_event;
typedef CUmodule hcl_gpu_module;
typedef CUfunction hcl_gpu_function;

typedef unsigned int hcl_gpu_memset32_value; /* the value parameter of MemsetD32Async */
#define HCL_GPU_DPTR(mem) ((CUdeviceptr)(uintptr_t)(mem))
#define HCL_GPU_DPTR_ADD(p, bytes) ((CUdeviceptr)((p) + (bytes)))

#define HCL_GPU_STREAM_NON_BLOCKING CU_STREAM_NON_BLOCKING
#define HCL_GPU_EVENT_TIMING CU_EVENT_DEFAULT /* default flags: timing enabled */
#define HCL_GPU_HOST_ALLOC_PORTABLE CU_MEMHOSTALLOC_PORTABLE
#define HCL_GPU_HOST_REGISTER_PORTABLE CU_MEMHOSTREGISTER_PORTABLE

/* Making a device current: push its primary context when another one (or none) is current, and pop exactly
 * what was pushed, so a caller's own context is left as it was. */
typedef struct hcl__gpu_scope {
    int pushed;
} hcl__gpu_scope;

/* Device attributes under neutral names (hcl__gpu_attr), and the kernel attribute kernel_max_group reads. */
typedef CUdevice_attribute hcl_gpu_attribute;
#define HCL_GPU_ATTR_MULTIPROCESSOR_COUNT CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
#define HCL_GPU_ATTR_MAX_THREADS_PER_BLOCK CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
#define HCL_GPU_ATTR_CLOCK_RATE CU_DEVICE_ATTRIBUTE_CLOCK_RATE
#define HCL_GPU_ATTR_MAX_GRID_DIM_X CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X
#define HCL_GPU_ATTR_MAX_GRID_DIM_Y CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y
#define HCL_GPU_ATTR_MAX_GRID_DIM_Z CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z
#define HCL_GPU_ATTR_MAX_BLOCK_DIM_X CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X
#define HCL_GPU_ATTR_MAX_BLOCK_DIM_Y CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y
#define HCL_GPU_ATTR_MAX_BLOCK_DIM_Z CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z
#define HCL_GPU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
/* what hcl-info shows a kernel writer: kHz, bits, bytes */
#define HCL_GPU_ATTR_WARP_SIZE CU_DEVICE_ATTRIBUTE_WARP_SIZE
#define HCL_GPU_ATTR_MEMORY_CLOCK_RATE CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
#define HCL_GPU_ATTR_MEMORY_BUS_WIDTH CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
#define HCL_GPU_ATTR_L2_CACHE_SIZE CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
#define HCL_GPU_FUNC_MAX_THREADS_PER_BLOCK CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK

/* The neutral operations of the shared code (HCL_GPU(op, ...)) and the CUDA symbol each one is. */
#define HCL_GPU_SYM_StreamCreate cuStreamCreate /* (&stream, HCL_GPU_STREAM_NON_BLOCKING) */
#define HCL_GPU_SYM_StreamDestroy cuStreamDestroy_v2
#define HCL_GPU_SYM_StreamSynchronize cuStreamSynchronize
#define HCL_GPU_SYM_StreamWaitEvent cuStreamWaitEvent
#define HCL_GPU_SYM_EventCreate cuEventCreate /* (&event, HCL_GPU_EVENT_TIMING) */
#define HCL_GPU_SYM_EventDestroy cuEventDestroy_v2
#define HCL_GPU_SYM_EventRecord cuEventRecord
#define HCL_GPU_SYM_EventSynchronize cuEventSynchronize
#define HCL_GPU_SYM_EventQuery cuEventQuery
#define HCL_GPU_SYM_EventElapsedTime cuEventElapsedTime_v2
#define HCL_GPU_SYM_MemAlloc cuMemAlloc_v2
#define HCL_GPU_SYM_MemFree cuMemFree_v2
#define HCL_GPU_SYM_MemHostAlloc cuMemHostAlloc
#define HCL_GPU_SYM_MemFreeHost cuMemFreeHost
#define HCL_GPU_SYM_MemHostRegister cuMemHostRegister_v2  /* (ptr, size, HCL_GPU_HOST_REGISTER_PORTABLE); optional */
#define HCL_GPU_SYM_MemHostUnregister cuMemHostUnregister /* optional */
#define HCL_GPU_SYM_MemcpyHtoDAsync cuMemcpyHtoDAsync_v2
#define HCL_GPU_SYM_MemcpyDtoHAsync cuMemcpyDtoHAsync_v2
#define HCL_GPU_SYM_MemcpyDtoDAsync cuMemcpyDtoDAsync_v2
#define HCL_GPU_SYM_MemsetD8Async cuMemsetD8Async
#define HCL_GPU_SYM_MemsetD16Async cuMemsetD16Async
#define HCL_GPU_SYM_MemsetD32Async cuMemsetD32Async
#define HCL_GPU_SYM_ModuleUnload cuModuleUnload
#define HCL_GPU_SYM_ModuleGetFunction cuModuleGetFunction
#define HCL_GPU_SYM_LaunchKernel cuLaunchKernel
#define HCL_GPU_SYM_DeviceGet cuDeviceGet
#define HCL_GPU_SYM_DeviceGetName cuDeviceGetName
#define HCL_GPU_SYM_DeviceTotalMem cuDeviceTotalMem_v2
#define HCL_GPU_SYM_DeviceGetAttribute cuDeviceGetAttribute
#define HCL_GPU_SYM_FuncGetAttribute cuFuncGetAttribute
#define HCL_GPU_SYM_DeviceCanAccessPeer cuDeviceCanAccessPeer /* (&can, device, peer) */
#define HCL_GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
#define HCL_GPU_ERROR_NOT_READY CUDA_ERROR_NOT_READY
/* buffer_wrap's checks of a foreign pointer: cuPointerGetAttribute (data, attribute, pointer); optional */
#define HCL_GPU_SYM_PointerGetAttribute cuPointerGetAttribute
#define HCL_GPU_POINTER_DEVICE_ORDINAL CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#define HCL_GPU_POINTER_RANGE_START CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
#define HCL_GPU_POINTER_RANGE_SIZE CU_POINTER_ATTRIBUTE_RANGE_SIZE

/* libcuda, X-macro list:
 *   REQ(ret, name, params)          init fails without it
 *   OPT(ret, name, params)          may be missing: NULL, checked where it is used
 *   REQ_OR(ret, name, old, params)  falls back to the older export `old` of the same signature (older drivers)
 *   REQ_U / OPT_U                   as REQ / OPT, for entries the headers cannot check (CUDA: cuFuncGetParamCount,
 *                                   which drivers after CUDA 13.0's export and 13.0's cuda.h does not declare)
 * Every signature is checked against cuda.h at compile time (runtime.c). */
#define HCL_GPU_SYMBOLS(REQ, OPT, REQ_OR, REQ_U, OPT_U)                                                                \
    REQ(CUresult, cuGetErrorName, (CUresult, const char **))                                                           \
    REQ(CUresult, cuGetErrorString, (CUresult, const char **))                                                         \
    REQ(CUresult, cuInit, (unsigned int))                                                                              \
    REQ(CUresult, cuDriverGetVersion, (int *))                                                                         \
    REQ(CUresult, cuDeviceGetCount, (int *))                                                                           \
    REQ(CUresult, cuDeviceGet, (CUdevice *, int))                                                                      \
    REQ(CUresult, cuDeviceGetName, (char *, int, CUdevice))                                                            \
    REQ_OR(CUresult, cuDeviceGetUuid_v2, "cuDeviceGetUuid", (CUuuid *, CUdevice))                                      \
    REQ(CUresult, cuDeviceTotalMem_v2, (size_t *, CUdevice))                                                           \
    REQ(CUresult, cuDeviceGetAttribute, (int *, CUdevice_attribute, CUdevice))                                         \
    REQ(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                                   \
    REQ(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))                                                            \
    REQ(CUresult, cuCtxGetCurrent, (CUcontext *))                                                                      \
    REQ(CUresult, cuCtxPushCurrent_v2, (CUcontext))                                                                    \
    REQ(CUresult, cuCtxPopCurrent_v2, (CUcontext *))                                                                   \
    REQ(CUresult, cuCtxGetDevice, (CUdevice *))                                                                        \
    REQ(CUresult, cuDevicePrimaryCtxReset_v2, (CUdevice))                                                              \
    REQ(CUresult, cuStreamCreate, (CUstream *, unsigned int))                                                          \
    REQ(CUresult, cuStreamDestroy_v2, (CUstream))                                                                      \
    REQ(CUresult, cuStreamSynchronize, (CUstream))                                                                     \
    REQ(CUresult, cuStreamWaitEvent, (CUstream, CUevent, unsigned int))                                                \
    REQ(CUresult, cuEventCreate, (CUevent *, unsigned int))                                                            \
    REQ(CUresult, cuEventDestroy_v2, (CUevent))                                                                        \
    REQ(CUresult, cuEventRecord, (CUevent, CUstream))                                                                  \
    REQ(CUresult, cuEventSynchronize, (CUevent))                                                                       \
    REQ(CUresult, cuEventQuery, (CUevent))                                                                             \
    REQ_OR(CUresult, cuEventElapsedTime_v2, "cuEventElapsedTime", (float *, CUevent, CUevent))                         \
    REQ(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))                                                              \
    REQ(CUresult, cuMemFree_v2, (CUdeviceptr))                                                                         \
    REQ(CUresult, cuMemHostAlloc, (void **, size_t, unsigned int))                                                     \
    REQ(CUresult, cuMemFreeHost, (void *))                                                                             \
    REQ(CUresult, cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void *, size_t, CUstream))                                 \
    REQ(CUresult, cuMemcpyDtoHAsync_v2, (void *, CUdeviceptr, size_t, CUstream))                                       \
    REQ(CUresult, cuMemcpyDtoDAsync_v2, (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                  \
    REQ(CUresult, cuMemsetD8Async, (CUdeviceptr, unsigned char, size_t, CUstream))                                     \
    REQ(CUresult, cuMemsetD16Async, (CUdeviceptr, unsigned short, size_t, CUstream))                                   \
    REQ(CUresult, cuMemsetD32Async, (CUdeviceptr, unsigned int, size_t, CUstream))                                     \
    REQ(CUresult, cuModuleLoadDataEx, (CUmodule *, const void *, unsigned int, CUjit_option *, void **))               \
    REQ(CUresult, cuModuleUnload, (CUmodule))                                                                          \
    REQ(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                                         \
    REQ(CUresult, cuFuncGetAttribute, (int *, CUfunction_attribute, CUfunction))                                       \
    REQ(CUresult, cuFuncSetAttribute, (CUfunction, CUfunction_attribute, int))                                         \
    OPT(CUresult, cuFuncGetParamInfo, (CUfunction, size_t, size_t *, size_t *))                                        \
    OPT_U(CUresult, cuFuncGetParamCount, (CUfunction, size_t *))                                                       \
    OPT(CUresult, cuDeviceCanAccessPeer, (int *, CUdevice, CUdevice))                                                  \
    OPT(CUresult, cuCtxEnablePeerAccess, (CUcontext, unsigned int))                                                    \
    OPT(CUresult, cuMemcpyPeerAsync, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))               \
    OPT(CUresult, cuMemHostRegister_v2, (void *, size_t, unsigned int))                                                \
    OPT(CUresult, cuMemHostUnregister, (void *))                                                                       \
    OPT(CUresult, cuPointerGetAttribute, (void *, CUpointer_attribute, CUdeviceptr))                                   \
    OPT(CUresult, cuOccupancyMaxActiveClusters, (int *, CUfunction, const CUlaunchConfig *))                           \
    OPT(CUresult, cuLaunchKernelEx, (const CUlaunchConfig *, CUfunction, void **, void **))                            \
    OPT(CUresult, cuTensorMapEncodeTiled,                                                                              \
        (CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,               \
         const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,    \
         CUtensorMapFloatOOBfill))                                                                                     \
    REQ(CUresult, cuLaunchKernel,                                                                                      \
        (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, \
         CUstream, void **, void **))
#define HCL_GPU_LIBRARY_LABEL "libcuda"
#define HCL_GPU_RUNTIME_TOO_OLD "the NVIDIA driver is too old for this build"

/* NVRTC, opened only when CUDA source has to be compiled. X(return type, name, params). */
typedef nvrtcResult hcl_gpu_rtc_result;
typedef nvrtcProgram hcl_gpu_rtc_program;
#define HCL_GPU_RTC_SUCCESS NVRTC_SUCCESS
#define HCL_GPU_RTC_ERROR_COMPILATION NVRTC_ERROR_COMPILATION
#define HCL_GPU_RTC_SYMBOLS(X)                                                                                         \
    X(const char *, nvrtcGetErrorString, (nvrtcResult))                                                                \
    X(nvrtcResult, nvrtcVersion, (int *, int *))                                                                       \
    X(nvrtcResult, nvrtcGetNumSupportedArchs, (int *))                                                                 \
    X(nvrtcResult, nvrtcGetSupportedArchs, (int *))                                                                    \
    X(nvrtcResult, nvrtcCreateProgram,                                                                                 \
      (nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *))                     \
    X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram *))                                                              \
    X(nvrtcResult, nvrtcCompileProgram, (nvrtcProgram, int, const char *const *))                                      \
    X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram, size_t *))                                                   \
    X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram, char *))                                                         \
    X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram, size_t *))                                                          \
    X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram, char *))                                                                \
    X(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram, size_t *))                                                        \
    X(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram, char *))
#define HCL_GPU_RTC_SYM_GetErrorString nvrtcGetErrorString
#define HCL_GPU_RTC_SYM_Version nvrtcVersion
#define HCL_GPU_RTC_SYM_CreateProgram nvrtcCreateProgram
#define HCL_GPU_RTC_SYM_DestroyProgram nvrtcDestroyProgram
#define HCL_GPU_RTC_SYM_CompileProgram nvrtcCompileProgram
#define HCL_GPU_RTC_SYM_GetProgramLogSize nvrtcGetProgramLogSize
#define HCL_GPU_RTC_SYM_GetProgramLog nvrtcGetProgramLog
#define HCL_GPU_RTC_TOO_OLD "NVRTC 11.2 or later is needed"

#endif /* HCL_CUDAHIP_GPU_MAP_CUDA_H */
