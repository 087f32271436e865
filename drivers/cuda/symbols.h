/* The vendor entry points the CUDA driver uses: one X-macro list for libcuda and one for NVRTC, each expanded
 * into a struct of function pointers (internal.h) and its resolver (driver.c, nvrtc.c).
 *
 * Entries are named by the symbol the library exports. cuda.h #defines most calls to a versioned symbol
 * (cuMemAlloc -> cuMemAlloc_v2, cuCtxPushCurrent -> cuCtxPushCurrent_v2, cuEventElapsedTime ->
 * cuEventElapsedTime_v2, ...); the list names that versioned symbol, so what dlsym finds has the signature
 * cuda.h declares and the struct member spells out which ABI is called (cu.cuMemAlloc_v2(...)). None of these
 * names is itself a macro (this driver never defines CUDA_API_PER_THREAD_DEFAULT_STREAM; internal.h checks).
 *
 *   REQ(name, params)          init fails without it
 *   OPT(name, params)          may be missing: NULL, checked where it is used
 *   REQ_OR(name, old, params)  falls back to the older export `old` of the same signature (older drivers)
 *
 * dlsym of exact exported names is used rather than cuGetProcAddress: we need no per-thread-default-stream
 * variants, and the exported _v2 names are the ABI this code is compiled against. */
#ifndef HCL_CUDA_SYMBOLS_H
#define HCL_CUDA_SYMBOLS_H

#define HCL_CU_SYMBOLS(REQ, OPT, REQ_OR)                                                                    \
    REQ(cuGetErrorName, (CUresult, const char **))                                                          \
    REQ(cuGetErrorString, (CUresult, const char **))                                                        \
    REQ(cuInit, (unsigned int))                                                                             \
    REQ(cuDriverGetVersion, (int *))                                                                        \
    REQ(cuDeviceGetCount, (int *))                                                                          \
    REQ(cuDeviceGet, (CUdevice *, int))                                                                     \
    REQ(cuDeviceGetName, (char *, int, CUdevice))                                                           \
    REQ_OR(cuDeviceGetUuid_v2, "cuDeviceGetUuid", (CUuuid *, CUdevice))                                    \
    REQ(cuDeviceTotalMem_v2, (size_t *, CUdevice))                                                          \
    REQ(cuDeviceGetAttribute, (int *, CUdevice_attribute, CUdevice))                                        \
    REQ(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                                  \
    REQ(cuDevicePrimaryCtxRelease_v2, (CUdevice))                                                           \
    REQ(cuCtxGetCurrent, (CUcontext *))                                                                     \
    REQ(cuCtxPushCurrent_v2, (CUcontext))                                                                   \
    REQ(cuCtxPopCurrent_v2, (CUcontext *))                                                                  \
    REQ(cuStreamCreate, (CUstream *, unsigned int))                                                         \
    REQ(cuStreamDestroy_v2, (CUstream))                                                                     \
    REQ(cuStreamSynchronize, (CUstream))                                                                    \
    REQ(cuStreamWaitEvent, (CUstream, CUevent, unsigned int))                                               \
    REQ(cuEventCreate, (CUevent *, unsigned int))                                                           \
    REQ(cuEventDestroy_v2, (CUevent))                                                                       \
    REQ(cuEventRecord, (CUevent, CUstream))                                                                 \
    REQ(cuEventSynchronize, (CUevent))                                                                      \
    REQ_OR(cuEventElapsedTime_v2, "cuEventElapsedTime", (float *, CUevent, CUevent))                       \
    REQ(cuMemAlloc_v2, (CUdeviceptr *, size_t))                                                             \
    REQ(cuMemFree_v2, (CUdeviceptr))                                                                        \
    REQ(cuMemHostAlloc, (void **, size_t, unsigned int))                                                    \
    REQ(cuMemFreeHost, (void *))                                                                            \
    REQ(cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void *, size_t, CUstream))                                \
    REQ(cuMemcpyDtoHAsync_v2, (void *, CUdeviceptr, size_t, CUstream))                                      \
    REQ(cuMemcpyDtoDAsync_v2, (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                 \
    REQ(cuMemsetD8Async, (CUdeviceptr, unsigned char, size_t, CUstream))                                    \
    REQ(cuMemsetD16Async, (CUdeviceptr, unsigned short, size_t, CUstream))                                  \
    REQ(cuMemsetD32Async, (CUdeviceptr, unsigned int, size_t, CUstream))                                    \
    REQ(cuModuleLoadDataEx, (CUmodule *, const void *, unsigned int, CUjit_option *, void **))              \
    REQ(cuModuleUnload, (CUmodule))                                                                         \
    REQ(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                                        \
    REQ(cuFuncGetAttribute, (int *, CUfunction_attribute, CUfunction))                                      \
    REQ(cuFuncSetAttribute, (CUfunction, CUfunction_attribute, int))                                        \
    OPT(cuFuncGetParamInfo, (CUfunction, size_t, size_t *, size_t *))                                       \
    REQ(cuLaunchKernel, (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,  \
                         unsigned int, unsigned int, CUstream, void **, void **))

/* NVRTC, opened only when CUDA source has to be compiled. X(return type, name, params). */
#define HCL_NVRTC_SYMBOLS(X)                                                                                \
    X(const char *, nvrtcGetErrorString, (nvrtcResult))                                                     \
    X(nvrtcResult, nvrtcVersion, (int *, int *))                                                            \
    X(nvrtcResult, nvrtcGetNumSupportedArchs, (int *))                                                      \
    X(nvrtcResult, nvrtcGetSupportedArchs, (int *))                                                         \
    X(nvrtcResult, nvrtcCreateProgram,                                                                      \
      (nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *))          \
    X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram *))                                                   \
    X(nvrtcResult, nvrtcCompileProgram, (nvrtcProgram, int, const char *const *))                           \
    X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram, size_t *))                                        \
    X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram, char *))                                              \
    X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram, size_t *))                                               \
    X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram, char *))                                                     \
    X(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram, size_t *))                                             \
    X(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram, char *))

#endif /* HCL_CUDA_SYMBOLS_H */
