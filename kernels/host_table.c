/* The host program: the host built-ins as a table of host kernels (hcl_host_kernels.h), found by name by the plans. */
#include "hcl_host_kernels.h"

/* For each type of hcl_dtypes.def: hcl_<op>_<type> for vecadd, gemm, softmax and reduce. */
const hcl_host_function hcl__host_table[] = {
#define HCL_DTYPE(id, t, bytes)                                                                                        \
    {"hcl_vecadd_" #t, hcl__host_vecadd_##t##_kernel}, {"hcl_gemm_" #t, hcl__host_gemm_kernel},                        \
        {"hcl_softmax_" #t, hcl__host_softmax_##t##_kernel}, {"hcl_reduce_" #t, hcl__host_reduce_##t##_kernel},
#include "hcl_dtypes.def"
#undef HCL_DTYPE
};
const size_t hcl__host_table_count = sizeof hcl__host_table / sizeof hcl__host_table[0];
