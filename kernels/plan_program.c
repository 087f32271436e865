/* The program a built-in call first needs on a device (hcl_plan.h): a plan's choice, above the catalogue that lists
 * the programs and above the gemm plan's CL part that knows which gemm.cl program fits a device. */
#include "hcl_plan.h"

hcl_kprog hcl_plan_program(const hcl_kdevice *dev, hcl_kop op) {
    switch (dev->family) {
    case HCL_KFAMILY_GPU: return HCL_KPROG_GPU;
    case HCL_KFAMILY_HOST: return HCL_KPROG_HOST;
    case HCL_KFAMILY_VK: return HCL_KPROG_VK;
    case HCL_KFAMILY_CL:
        switch (op) {
        case HCL_KOP_VECADD: return HCL_KPROG_CL_VECADD;
        case HCL_KOP_GEMM: return hcl_plan_gemm_cl_program(dev);
        case HCL_KOP_SOFTMAX: return HCL_KPROG_CL_SOFTMAX;
        case HCL_KOP_REDUCE: return HCL_KPROG_CL_REDUCE;
        default: break;
        }
        break;
    default: break;
    }
    return HCL_KPROG_COUNT;
}
