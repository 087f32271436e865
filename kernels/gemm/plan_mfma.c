/* The gemm plan's matrix-unit part, AMD matrix cores: the MFMA kernels of kernels/gemm/gemm_mfma.cu (f16 and bf16
 * inputs, C in their type or f32), a 256-thread block (4 wavefronts of 64) per 128 x 128 tile of C; the grid strides
 * over tiles when it is capped. A device takes them for the input types in its matrix_types (kernels/plan_types.c:
 * f16 on gfx908, f16 and bf16 on gfx90a and gfx94x), the targets whose code objects hold the kernels' bodies;
 * elsewhere the SIMT kernels run the call. */
#include "plan_family.h"

#include <stdio.h>

/* the kernels' static LDS: two buffers of a 128 x 40 tile of A and of B, 16-bit elements */
#define HCL_MFMA_LDS_BYTES (2 * 2 * 128 * 40 * 2)

hcl_status hcl__plan_gemm_mfma(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    if (g->compute == HCL_COMPUTE_TF32)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "no TF32 gemm on AMD matrix cores (the MFMA kernels take f16 and bf16 inputs)");
    if (dev->matrix_unit != HCL_MATRIX_UNIT_MFMA || g->ab_type == HCL_DTYPE_F32 ||
        !(dev->matrix_types & HCL_TYPE_BIT(g->ab_type)) || dev->subgroup_width != 64 ||
        hcl_known_or(dev->local_mem, HCL_MFMA_LDS_BYTES) < HCL_MFMA_LDS_BYTES)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "no matrix-unit gemm for %s inputs on this device (MFMA kernels: f16 on gfx908, f16 and "
                              "bf16 on gfx90a and gfx94x, wave64, %d bytes of LDS a block)",
                              hcl_kdtype_name(g->ab_type), HCL_MFMA_LDS_BYTES);
    char name[64];
    snprintf(name, sizeof name, "hcl_gemm_mfma_%s_%s_%s", hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->c_type),
             hcl__gemm_trans_name(g));
    return hcl__plan_gemm_tiles128(dev, g, out, l, name);
}
