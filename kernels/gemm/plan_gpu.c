/* The gemm plan's GPU part (kernels/gemm/plan_family.h). */
#include "plan_family.h"

#include <stdio.h>

/* ---- GPU (kernels/gemm/gemm.cu): 256 threads per 128 x 128 or 64 x 64 tile, the kernel strides over tiles ---- */
hcl_status hcl__plan_gemm_gpu(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    char name[64];
    int kernel;
    if (g->k == 0 || g->alpha == 0.0f) {
        /* C = beta * C without reading A or B (BLAS: NaN or Inf in them must not reach C) */
        size_t cap = (size_t)(dev->compute_units ? dev->compute_units : 1) * 32;
        size_t blocks = hcl_min_size(hcl_ceil_div(g->m * g->n, 256), cap);
        kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_GPU, "hcl_gemm_scale", g->c_type);
        if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
        hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, blocks ? blocks : 1, 256);
        hcl_klaunch_u64(l, g->m);
        hcl_klaunch_u64(l, g->n);
        hcl_klaunch_f32(l, g->beta);
        hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
        hcl_klaunch_u64(l, g->ldc);
        return HCL_SUCCESS;
    }
    /* the matrix-unit kernels of the device's vendor first (plan_family.h) */
    hcl_status st = dev->matrix_unit == HCL_MATRIX_UNIT_MFMA ? hcl__plan_gemm_mfma(dev, g, out, l)
                                                             : hcl__plan_gemm_tc(dev, g, out, l);
    if (st != HCL_ERROR_UNSUPPORTED || g->compute == HCL_COMPUTE_TF32) return st;
    /* 128 x 128 tiles when there are at least two per SM, else 64 x 64 (more blocks for small problems) */
    size_t tiles128 = hcl_ceil_div(g->m, 128) * hcl_ceil_div(g->n, 128);
    int big = tiles128 >= 2 * (size_t)(dev->compute_units ? dev->compute_units : 1);
    size_t tile = big ? 128 : 64;
    /* hcl_gemm_<f32 | ab_c>_<tile>_<trans> (gemm.cu) */
    if (g->ab_type == HCL_DTYPE_F32)
        snprintf(name, sizeof name, "hcl_gemm_f32_%zu_%s", tile, hcl__gemm_trans_name(g));
    else
        snprintf(name, sizeof name, "hcl_gemm_%s_%s_%zu_%s", hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->c_type),
                 tile, hcl__gemm_trans_name(g));
    kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, tile), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, tile), hcl_known_or(dev->max_groups[1], 65535));
    hcl__gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}
