/* The launch plan of vecadd (hcl_plan.h): c = a + b over n elements of one type, one launch. */
#include "hcl_plan.h"
#include "plan_vk.h"

/* Blocks of a grid-stride loop over `items` with `threads` per block: enough to fill the GPU several times. */
static size_t gpu_stride_blocks(const hcl_kdevice *dev, size_t items, size_t threads) {
    size_t cap = (size_t)(dev->compute_units ? dev->compute_units : 1) * 32;
    size_t b = hcl_min_size(hcl_ceil_div(items, threads), cap);
    return b ? b : 1;
}

hcl_status hcl_plan_vecadd(const hcl_kdevice *dev, hcl_dtype type, size_t n, hcl_kplan *out) {
    hcl_status st = hcl_kplan_init(out, 1);
    if (st != HCL_SUCCESS) return st;
    if (dev->family == HCL_KFAMILY_VK) return hcl__plan_vecadd_vk(dev, type, n, out);
    hcl_klaunch *l = &out->launch[0];
    const hcl_kprog prog = hcl_plan_program(dev, HCL_KOP_VECADD);
    const int kernel = hcl_kplan_typed_kernel(out, prog, "hcl_vecadd", type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    switch (dev->family) {
    case HCL_KFAMILY_GPU: /* kernels/vecadd/vecadd.cu: four elements per thread, grid-stride, 256 threads */
        hcl_klaunch_1d(l, prog, kernel, gpu_stride_blocks(dev, hcl_ceil_div(n, 4), 256), 256);
        break;
    case HCL_KFAMILY_CL: { /* kernels/vecadd/vecadd.cl: four elements per work-item, grid-stride past 2^18 groups */
        size_t wg = hcl_pow2_floor(hcl_kgroup_max(dev, prog, kernel, 256));
        size_t items = n / 4 > 0 ? n / 4 : 1;
        size_t groups = hcl_min_size(hcl_ceil_div(items, wg), (size_t)1 << 18);
        groups = hcl_min_size(groups, hcl_known_or(dev->max_groups[0], UINT32_MAX));
        hcl_klaunch_1d(l, prog, kernel, groups, wg);
        break;
    }
    default: /* kernels/vecadd/vecadd.c: the whole call in one work-group */
        hcl_klaunch_1d(l, prog, kernel, 1, 1);
        break;
    }
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, n);
    return HCL_SUCCESS;
}
