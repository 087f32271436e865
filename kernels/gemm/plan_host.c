/* The gemm plan's host part (kernels/gemm/plan_family.h). */
#include "hcl_host_kernels.h"
#include "plan_family.h"

/* ---- host (kernels/gemm/gemm.c): the whole call in one work-group, the packing workspace (and a 16-bit C's float
 * copy) from the core ---- */
hcl_status hcl__plan_gemm_host(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    (void)dev;
    if (g->compute != HCL_COMPUTE_F32) /* the core refuses TF32 on a device without a matrix unit */
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the host gemm computes in float32 only");
    const int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_HOST, "hcl_gemm", g->ab_type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_HOST, kernel, 1, 1);
    out->scratch_bytes = hcl__host_gemm_workspace_bytes(g);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    if (out->scratch_bytes)
        hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    else
        hcl_klaunch_value(l, &(void *){NULL}, sizeof(void *)); /* NULL: no packing needed (k or alpha 0) */
    hcl_klaunch_value(l, g, sizeof *g);
    return HCL_SUCCESS;
}
