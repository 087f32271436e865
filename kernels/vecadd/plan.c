/* The launch plan of vecadd (hcl_plan.h): c = a + b over n floats, one launch. */
#include "hcl_plan.h"

/* Blocks of a grid-stride loop over `items` with `threads` per block: enough to fill the GPU several times. */
static size_t gpu_stride_blocks(const hcl_kdevice *dev, size_t items, size_t threads) {
    size_t cap = (size_t)(dev->compute_units ? dev->compute_units : 1) * 32;
    size_t b = hcl_min_size(hcl_ceil_div(items, threads), cap);
    return b ? b : 1;
}

hcl_status hcl_plan_vecadd(const hcl_kdevice *dev, size_t n, hcl_kplan *out) {
    hcl_status st = hcl_kplan_init(out, 1);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = &out->launch[0];
    switch (dev->family) {
    case HCL_KFAMILY_GPU: /* kernels/vecadd/vecadd.cu: float4 per thread, grid-stride, 256 threads */
        hcl_klaunch_1d(l, HCL_KPROG_GPU, 0, gpu_stride_blocks(dev, hcl_ceil_div(n, 4), 256), 256);
        break;
    case HCL_KFAMILY_CL: { /* kernels/vecadd/vecadd.cl: float4 per work-item, grid-stride past 2^18 groups */
        size_t wg = hcl_pow2_floor(hcl_kgroup_max(dev, HCL_KPROG_CL_VECADD, 0, 256));
        size_t items = n / 4 > 0 ? n / 4 : 1;
        size_t groups = hcl_min_size(hcl_ceil_div(items, wg), (size_t)1 << 18);
        groups = hcl_min_size(groups, hcl_known_or(dev->max_groups[0], UINT32_MAX));
        hcl_klaunch_1d(l, HCL_KPROG_CL_VECADD, 0, groups, wg);
        break;
    }
    default: /* kernels/vecadd/vecadd.c: the whole call in one work-group */
        hcl_klaunch_1d(l, HCL_KPROG_HOST, 0, 1, 1);
        break;
    }
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, n);
    return HCL_SUCCESS;
}
