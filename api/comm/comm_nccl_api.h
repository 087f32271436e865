/* The part of nccl.h (NCCL 2.28; RCCL's is the same) and of the CUDA and HIP runtimes that the nccl and rccl engines
 * use (comm_nccl.c), declared by hand: the core includes no vendor header. Names are ours (nccl_result, NCCL_SUCCESS)
 * so that conformance/comm_nccl_decls.c can include this next to the real nccl.h and check every value and layout
 * against it where that header is installed. */
#ifndef HCL_COMM_NCCL_API_H
#define HCL_COMM_NCCL_API_H

#include <limits.h>
#include <stddef.h>

typedef struct nccl_comm_s *nccl_comm; /* ncclComm_t */
#define NCCL_ID_BYTES 128
typedef struct nccl_unique_id {
    char internal[NCCL_ID_BYTES];
} nccl_unique_id; /* ncclUniqueId: passed by value to ncclCommInitRank */

/* ncclResult_t, ncclDataType_t and ncclRedOp_t are enums of int size: passed and returned as int. */
typedef int nccl_result;
enum {
    NCCL_SUCCESS = 0,
    NCCL_UNHANDLED_CUDA_ERROR = 1,
    NCCL_SYSTEM_ERROR = 2,
    NCCL_INTERNAL_ERROR = 3,
    NCCL_INVALID_ARGUMENT = 4,
    NCCL_INVALID_USAGE = 5,
    NCCL_REMOTE_ERROR = 6,
    NCCL_IN_PROGRESS = 7,
    NCCL_TIMEOUT = 8 /* after 2.28 (where 8 is ncclNumResults) */
};
typedef int nccl_dtype;
enum { NCCL_FLOAT16 = 6, NCCL_FLOAT32 = 7, NCCL_BFLOAT16 = 9 };
typedef int nccl_op;
enum { NCCL_SUM = 0, NCCL_PROD = 1, NCCL_MAX = 2, NCCL_MIN = 3 };
typedef void *nccl_stream; /* cudaStream_t, hipStream_t */

/* The leading fields of ncclConfig_t as NCCL 2.14 declared it; every later version keeps them first. NCCL copies
 * `size` bytes of the caller's struct over its defaults and resets the fields newer than `version`, so a program
 * built against 2.14's header works with 2.28's library: we are such a program. */
typedef struct nccl_config {
    size_t size;
    unsigned int magic;   /* NCCL_API_MAGIC */
    unsigned int version; /* the NCCL_VERSION_CODE of the header the caller was built with */
    int blocking;
    int cga_cluster_size; /* the padding of 2.14's struct (2.17's cgaClusterSize), "undefined" */
} nccl_config;
#define NCCL_CONFIG_MAGIC 0xcafebeefu
#define NCCL_CONFIG_VERSION 21400u /* NCCL_VERSION(2, 14, 0) */
#define NCCL_CONFIG_UNDEF_INT INT_MIN

/* Entry points: required (REQ) or used when present (OPT: ncclGetLastError from 2.13, ncclCommInitRankConfig from
 * 2.14). ncclSend / ncclRecv need 2.7. */
#define NCCL_SYMBOLS(REQ, OPT)                                                                                         \
    REQ(nccl_result, ncclGetVersion, (int *))                                                                          \
    REQ(nccl_result, ncclGetUniqueId, (nccl_unique_id *))                                                              \
    REQ(nccl_result, ncclCommInitRank, (nccl_comm *, int, nccl_unique_id, int))                                        \
    OPT(nccl_result, ncclCommInitRankConfig, (nccl_comm *, int, nccl_unique_id, int, nccl_config *))                   \
    REQ(nccl_result, ncclCommDestroy, (nccl_comm))                                                                     \
    REQ(nccl_result, ncclCommAbort, (nccl_comm))                                                                       \
    REQ(nccl_result, ncclCommGetAsyncError, (nccl_comm, nccl_result *))                                                \
    REQ(const char *, ncclGetErrorString, (nccl_result))                                                               \
    OPT(const char *, ncclGetLastError, (nccl_comm))                                                                   \
    REQ(nccl_result, ncclAllReduce, (const void *, void *, size_t, nccl_dtype, nccl_op, nccl_comm, nccl_stream))       \
    REQ(nccl_result, ncclReduce, (const void *, void *, size_t, nccl_dtype, nccl_op, int, nccl_comm, nccl_stream))     \
    REQ(nccl_result, ncclBroadcast, (const void *, void *, size_t, nccl_dtype, int, nccl_comm, nccl_stream))           \
    REQ(nccl_result, ncclAllGather, (const void *, void *, size_t, nccl_dtype, nccl_comm, nccl_stream))                \
    REQ(nccl_result, ncclReduceScatter, (const void *, void *, size_t, nccl_dtype, nccl_op, nccl_comm, nccl_stream))   \
    REQ(nccl_result, ncclSend, (const void *, size_t, nccl_dtype, int, nccl_comm, nccl_stream))                        \
    REQ(nccl_result, ncclRecv, (void *, size_t, nccl_dtype, int, nccl_comm, nccl_stream))                              \
    REQ(nccl_result, ncclGroupStart, (void))                                                                           \
    REQ(nccl_result, ncclGroupEnd, (void))

/* The GPU runtimes' few calls: CUresult and hipError_t are ints; CUcontext, CUstream and hipStream_t pointers;
 * CUdevice and hipDevice_t ints. */
#define CUDA_SYMBOLS(REQ, OPT)                                                                                         \
    REQ(int, cuCtxGetCurrent, (void **))                                                                               \
    REQ(int, cuCtxPushCurrent_v2, (void *))                                                                            \
    REQ(int, cuCtxPopCurrent_v2, (void **))                                                                            \
    REQ(int, cuCtxGetDevice, (int *))                                                                                  \
    REQ(int, cuStreamQuery, (void *))                                                                                  \
    OPT(int, cuGetErrorName, (int, const char **))
#define HIP_SYMBOLS(REQ, OPT)                                                                                          \
    REQ(int, hipGetDevice, (int *))                                                                                    \
    REQ(int, hipSetDevice, (int))                                                                                      \
    REQ(int, hipStreamQuery, (void *))                                                                                 \
    OPT(const char *, hipGetErrorName, (int))
#define GPU_NOT_READY 600 /* CUDA_ERROR_NOT_READY, hipErrorNotReady */

#define HCL__NCCL_FIELD(ret, name, params) ret(*name) params;
typedef struct nccl_api {
    NCCL_SYMBOLS(HCL__NCCL_FIELD, HCL__NCCL_FIELD)
} nccl_api;
typedef struct cuda_api {
    CUDA_SYMBOLS(HCL__NCCL_FIELD, HCL__NCCL_FIELD)
} cuda_api;
typedef struct hip_api {
    HIP_SYMBOLS(HCL__NCCL_FIELD, HCL__NCCL_FIELD)
} hip_api;
#undef HCL__NCCL_FIELD

#endif /* HCL_COMM_NCCL_API_H */
