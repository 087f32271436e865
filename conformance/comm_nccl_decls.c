/* The nccl and rccl engines declare the part of nccl.h they use by hand (api/comm/comm_nccl_api.h), since the core
 * includes no vendor header. Built only where nccl.h is installed, this file puts both side by side: every value and
 * layout the engine relies on is checked at compile time (a mismatch fails the build), and the program prints what
 * it checked against. */
#include "comm_nccl_api.h"

#include <nccl.h>
#include <stdio.h>

#define SAME(ours, theirs) _Static_assert((long long)(ours) == (long long)(theirs), #ours " != " #theirs)

/* results */
SAME(NCCL_SUCCESS, ncclSuccess);
SAME(NCCL_UNHANDLED_CUDA_ERROR, ncclUnhandledCudaError);
SAME(NCCL_SYSTEM_ERROR, ncclSystemError);
SAME(NCCL_INTERNAL_ERROR, ncclInternalError);
SAME(NCCL_INVALID_ARGUMENT, ncclInvalidArgument);
SAME(NCCL_INVALID_USAGE, ncclInvalidUsage);
SAME(NCCL_REMOTE_ERROR, ncclRemoteError);
SAME(NCCL_IN_PROGRESS, ncclInProgress);
/* types and operators */
SAME(NCCL_FLOAT16, ncclFloat16);
SAME(NCCL_FLOAT32, ncclFloat32);
SAME(NCCL_BFLOAT16, ncclBfloat16);
SAME(NCCL_SUM, ncclSum);
SAME(NCCL_PROD, ncclProd);
SAME(NCCL_MAX, ncclMax);
SAME(NCCL_MIN, ncclMin);
/* enums passed as int, handles and streams as pointers */
SAME(sizeof(nccl_result), sizeof(ncclResult_t));
SAME(sizeof(nccl_dtype), sizeof(ncclDataType_t));
SAME(sizeof(nccl_op), sizeof(ncclRedOp_t));
SAME(sizeof(nccl_comm), sizeof(ncclComm_t));
SAME(sizeof(void *), sizeof(cudaStream_t));
/* the unique id, passed by value */
SAME(sizeof(nccl_unique_id), sizeof(ncclUniqueId));
SAME(_Alignof(nccl_unique_id), _Alignof(ncclUniqueId));
SAME(NCCL_ID_BYTES, NCCL_UNIQUE_ID_BYTES);
/* the config: our struct is the leading part of NCCL's, field for field */
SAME(offsetof(nccl_config, size), offsetof(ncclConfig_t, size));
SAME(offsetof(nccl_config, magic), offsetof(ncclConfig_t, magic));
SAME(offsetof(nccl_config, version), offsetof(ncclConfig_t, version));
SAME(offsetof(nccl_config, blocking), offsetof(ncclConfig_t, blocking));
SAME(offsetof(nccl_config, cga_cluster_size), offsetof(ncclConfig_t, cgaClusterSize));
SAME(sizeof(nccl_config), offsetof(ncclConfig_t, minCTAs));
SAME(NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT);
SAME(NCCL_CONFIG_VERSION, NCCL_VERSION(2, 14, 0));
_Static_assert(NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0), "nccl.h is older than the config the engine passes");

/* Every entry point's type, exactly: our names mapped to NCCL's, each declaration of NCCL_SYMBOLS must be the type
 * of nccl.h's function (C's compatible types: ncclGroupStart's empty parentheses match our (void)). */
#define nccl_comm ncclComm_t
#define nccl_result ncclResult_t
#define nccl_dtype ncclDataType_t
#define nccl_op ncclRedOp_t
#define nccl_stream cudaStream_t
#define nccl_unique_id ncclUniqueId
#define nccl_config ncclConfig_t
#define SIGNATURE(ret, name, params)                                                                                   \
    _Static_assert(_Generic(&name, ret(*) params : 1, default : 0), #name ": its declaration differs from nccl.h");
NCCL_SYMBOLS(SIGNATURE, SIGNATURE)
#undef nccl_config

int main(void) {
    ncclConfig_t theirs = NCCL_CONFIG_INITIALIZER; /* the magic is a literal in the initializer, not a macro */
    if (theirs.magic != NCCL_CONFIG_MAGIC) {
        printf("FAIL: NCCL_CONFIG_INITIALIZER's magic is 0x%x, the engine passes 0x%x\n", theirs.magic,
               NCCL_CONFIG_MAGIC);
        return 1;
    }
    printf("comm_nccl_api.h matches nccl.h of NCCL %d.%d.%d (NCCL_VERSION_CODE %d): results, types, operators, "
           "the unique id, the leading %zu bytes of ncclConfig_t (of %zu) and the type of every entry point used\n",
           NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, NCCL_VERSION_CODE, sizeof(nccl_config), sizeof(ncclConfig_t));
    return 0;
}
