/* The launch plan of gemm (hcl_plan.h): C = alpha * op(A) * op(B) + beta * C, one launch, planned by the part of the
 * device's source family (kernels/gemm/plan_<family>.c). */
#include "plan_family.h"
#include "plan_vk.h"

hcl_status hcl_plan_gemm(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    const hcl_status st = hcl_kplan_begin(dev, HCL_KOP_GEMM, out);
    if (st != HCL_SUCCESS) return st;
    switch (dev->family) {
    case HCL_KFAMILY_GPU: return hcl__plan_gemm_gpu(dev, g, out, &out->launch[0]);
    case HCL_KFAMILY_CL: return hcl__plan_gemm_cl(dev, g, out, &out->launch[0]);
    case HCL_KFAMILY_VK: return hcl__plan_gemm_vk(dev, g, out);
    default: return hcl__plan_gemm_host(dev, g, out, &out->launch[0]);
    }
}
