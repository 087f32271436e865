/* The gemm plan's matrix-unit part (kernels/gemm/gemm_tc.cu): not yet any kernel. */
#include "plan_family.h"

hcl_status hcl__plan_gemm_tc(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    (void)dev, (void)l;
    return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "no matrix-unit gemm kernel for %s inputs in this build",
                          hcl_kdtype_name(g->ab_type));
}
