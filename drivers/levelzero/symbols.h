/* The Level Zero entry points the driver uses: one X-macro list, expanded into the symbol table struct
 * (internal.h) and into its resolver (driver.c). All are Level Zero 1.0 core, exported by every loader
 * (libze_loader.so.1). The types come from the declarations in ze_api.h through __typeof__, so a mismatch cannot
 * compile. */
#ifndef HCL_LEVELZERO_SYMBOLS_H
#define HCL_LEVELZERO_SYMBOLS_H

#define HCL_ZE_SYMBOLS(X)                                                                                              \
    X(zeInit)                                                                                                          \
    X(zeDriverGet)                                                                                                     \
    X(zeDriverGetApiVersion)                                                                                           \
    X(zeDriverGetProperties)                                                                                           \
    X(zeDeviceGet)                                                                                                     \
    X(zeDeviceGetProperties)                                                                                           \
    X(zeDeviceGetComputeProperties)                                                                                    \
    X(zeDeviceGetMemoryProperties)                                                                                     \
    X(zeDeviceGetModuleProperties)                                                                                     \
    X(zeDeviceGetCommandQueueGroupProperties)                                                                          \
    X(zeContextCreate)                                                                                                 \
    X(zeContextDestroy)                                                                                                \
    X(zeCommandListCreateImmediate)                                                                                    \
    X(zeCommandListDestroy)                                                                                            \
    X(zeCommandListAppendBarrier)                                                                                      \
    X(zeCommandListAppendMemoryCopy)                                                                                   \
    X(zeCommandListAppendMemoryFill)                                                                                   \
    X(zeCommandListAppendLaunchKernel)                                                                                 \
    X(zeEventPoolCreate)                                                                                               \
    X(zeEventPoolDestroy)                                                                                              \
    X(zeEventCreate)                                                                                                   \
    X(zeEventDestroy)                                                                                                  \
    X(zeEventHostSynchronize)                                                                                          \
    X(zeEventQueryStatus)                                                                                              \
    X(zeEventHostReset)                                                                                                \
    X(zeEventQueryKernelTimestamp)                                                                                     \
    X(zeMemAllocDevice)                                                                                                \
    X(zeMemAllocHost)                                                                                                  \
    X(zeMemFree)                                                                                                       \
    X(zeMemGetAllocProperties)                                                                                         \
    X(zeMemGetAddressRange)                                                                                            \
    X(zeModuleCreate)                                                                                                  \
    X(zeModuleDestroy)                                                                                                 \
    X(zeModuleGetNativeBinary)                                                                                         \
    X(zeModuleBuildLogGetString)                                                                                       \
    X(zeModuleBuildLogDestroy)                                                                                         \
    X(zeKernelCreate)                                                                                                  \
    X(zeKernelDestroy)                                                                                                 \
    X(zeKernelGetProperties)                                                                                           \
    X(zeKernelSetGroupSize)                                                                                            \
    X(zeKernelSetArgumentValue)

#endif /* HCL_LEVELZERO_SYMBOLS_H */
