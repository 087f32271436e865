/* vecadd (OpenCL C 1.2): c[i] = a[i] + b[i] for i < n, in f32, f16 or bf16 (hcl_cl_types.h; float arithmetic).
 * Grid-stride over groups of four elements, then a scalar tail, so any n and any grid work. Each element is read and
 * written by the same work-item, so c may alias a or b. */
#include "hcl_cl_types.h"

static void hcl_vecadd(__global const void *a, __global const void *b, __global void *c, const size_t n,
                       const int type) {
    const size_t gid = get_global_id(0);
    const size_t stride = get_global_size(0);
    const size_t n4 = n / 4;
    for (size_t i = gid; i < n4; i += stride) hcl_store4(c, i, hcl_load4(a, i, type) + hcl_load4(b, i, type), type);
    for (size_t i = n4 * 4 + gid; i < n; i += stride)
        hcl_store(c, i, hcl_load(a, i, type) + hcl_load(b, i, type), type);
}

#define HCL_VECADD_KERNEL(NAME, TYPE)                                                                                  \
    __kernel void NAME(__global const void *a, __global const void *b, __global void *c, ulong n) {                    \
        hcl_vecadd(a, b, c, (size_t)n, TYPE);                                                                          \
    }

HCL_VECADD_KERNEL(hcl_vecadd_f32, HCL_CL_F32)
HCL_VECADD_KERNEL(hcl_vecadd_f16, HCL_CL_F16)
HCL_VECADD_KERNEL(hcl_vecadd_bf16, HCL_CL_BF16)
