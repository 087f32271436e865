/* The gemm plan's matrix-unit part: the tensor-core kernels (kernels/gemm/gemm_tc.cu) on NVIDIA GPUs of sm_80 and
 * later, for f16 and bf16 inputs and for TF32. A 256-thread block per 128 x 128 tile of C; the grid strides over
 * tiles when it is capped. */
#include "plan_family.h"

#include <stdio.h>

hcl_status hcl__plan_gemm_tc(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    const int tf32 = g->compute == HCL_COMPUTE_TF32;
    const uint32_t need = tf32 ? HCL_TYPE_BIT_TF32 : HCL_TYPE_BIT(g->ab_type);
    if (dev->matrix_unit != HCL_MATRIX_UNIT_TENSOR_CORE || dev->arch_level < 80 || !(dev->matrix_types & need) ||
        (!tf32 && g->ab_type == HCL_DTYPE_F32))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "no matrix-unit gemm for %s inputs%s on this device (tensor cores of sm_80 or later)",
                              hcl_kdtype_name(g->ab_type), tf32 ? " in TF32" : "");
    static const char *const trans[4] = {"nn", "nt", "tn", "tt"};
    char name[64];
    snprintf(name, sizeof name, "hcl_gemm_tc_%s_%s_%s", tf32 ? "tf32" : hcl_kdtype_name(g->ab_type),
             hcl_kdtype_name(g->c_type), trans[(g->trans_a == HCL_TRANS) * 2 + (g->trans_b == HCL_TRANS)]);
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, 128), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, 128), hcl_known_or(dev->max_groups[1], 65535));
    hcl__gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}
