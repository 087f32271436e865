/* The launch plans of the Vulkan family (HCL_KFAMILY_VK, plan_vk.c): one per op, called by the op's plan
 * (kernels/<op>/plan.c) after hcl_kplan_begin, for the kernels of kernels/<op>/<op>.comp. Each returns HCL_SUCCESS,
 * HCL_ERROR_UNSUPPORTED with the reason in out->why (a shape past the kernels' 32-bit indices or the device's
 * work-group counts), or HCL_ERROR_OUT_OF_MEMORY. */
#ifndef HCL_PLAN_VK_H
#define HCL_PLAN_VK_H

#include "hcl_plan.h"

hcl_status hcl__plan_vecadd_vk(const hcl_kdevice *dev, hcl_dtype type, size_t n, hcl_kplan *out);
hcl_status hcl__plan_reduce_vk(const hcl_kdevice *dev, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_kplan *out);
hcl_status hcl__plan_softmax_vk(const hcl_kdevice *dev, hcl_dtype type, size_t rows, size_t cols, hcl_kplan *out);
hcl_status hcl__plan_gemm_vk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out);

#endif /* HCL_PLAN_VK_H */
