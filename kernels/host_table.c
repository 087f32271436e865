/* The host program: the host built-ins as a table of host kernels (hcl_host_kernels.h), found by name by the plans. */
#include "hcl_host_kernels.h"

const hcl_host_function hcl__host_table[] = {
    {"hcl_vecadd_f32", hcl__host_vecadd_kernel},
    {"hcl_vecadd_f16", hcl__host_vecadd_f16_kernel},
    {"hcl_vecadd_bf16", hcl__host_vecadd_bf16_kernel},
    {"hcl_gemm_f32", hcl__host_gemm_kernel},
    {"hcl_gemm_f16", hcl__host_gemm_kernel},
    {"hcl_gemm_bf16", hcl__host_gemm_kernel},
    {"hcl_softmax_f32", hcl__host_softmax_kernel},
    {"hcl_softmax_f16", hcl__host_softmax_f16_kernel},
    {"hcl_softmax_bf16", hcl__host_softmax_bf16_kernel},
    {"hcl_reduce_f32", hcl__host_reduce_kernel},
    {"hcl_reduce_f16", hcl__host_reduce_f16_kernel},
    {"hcl_reduce_bf16", hcl__host_reduce_bf16_kernel},
};
const size_t hcl__host_table_count = sizeof hcl__host_table / sizeof hcl__host_table[0];
