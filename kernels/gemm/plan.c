/* The launch plan of gemm (hcl_plan.h): C = alpha * op(A) * op(B) + beta * C, one launch. */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"

/* The arguments of the GPU and CL gemm kernels, in the order both take them. */
static void gemm_args(hcl_klaunch *l, const hcl_kgemm *g, size_t k, float alpha) {
    hcl_klaunch_u64(l, g->m);
    hcl_klaunch_u64(l, g->n);
    hcl_klaunch_u64(l, k);
    hcl_klaunch_f32(l, alpha);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_u64(l, g->lda);
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_u64(l, g->ldb);
    hcl_klaunch_f32(l, g->beta);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, g->ldc);
}

/* ---- GPU (kernels/gemm/gemm.cu): 256 threads per 128 x 128 or 64 x 64 tile, the kernel strides over tiles ---- */
static hcl_status plan_gpu(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_klaunch *l) {
    const int trans = (g->trans_a == HCL_TRANS) * 2 + (g->trans_b == HCL_TRANS);
    if (g->k == 0 || g->alpha == 0.0f) {
        /* C = beta * C without reading A or B (BLAS: NaN or Inf in them must not reach C) */
        size_t cap = (size_t)(dev->compute_units ? dev->compute_units : 1) * 32;
        size_t blocks = hcl_min_size(hcl_ceil_div(g->m * g->n, 256), cap);
        hcl_klaunch_1d(l, HCL_KPROG_GPU, hcl_kprogram_kernel(HCL_KPROG_GPU, "hcl_gemm_scale_f32"), blocks ? blocks : 1,
                       256);
        hcl_klaunch_u64(l, g->m);
        hcl_klaunch_u64(l, g->n);
        hcl_klaunch_f32(l, g->beta);
        hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
        hcl_klaunch_u64(l, g->ldc);
        return HCL_SUCCESS;
    }
    /* 128 x 128 tiles when there are at least two per SM, else 64 x 64 (more blocks for small problems) */
    size_t tiles128 = hcl_ceil_div(g->m, 128) * hcl_ceil_div(g->n, 128);
    int big = tiles128 >= 2 * (size_t)(dev->compute_units ? dev->compute_units : 1);
    size_t tile = big ? 128 : 64;
    int kernel = hcl_kprogram_kernel(HCL_KPROG_GPU, big ? "hcl_gemm_f32_128_nn" : "hcl_gemm_f32_64_nn") + trans;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, tile), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, tile), hcl_known_or(dev->max_groups[1], 65535));
    gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}

/* ---- CL (kernels/gemm/gemm.cl): a WG x WG work-group per 8*WG square tile of C, WG fixed per program ---- */
static size_t cl_wg(hcl_kprog prog) { return prog == HCL_KPROG_CL_GEMM16 ? 16 : 8; }

/* two k-major 16 x (8*WG + 4) float tiles */
static uint64_t cl_local_bytes(size_t wg) { return 2u * 16u * (8u * (uint64_t)wg + 4u) * sizeof(float); }

static int cl_fits(const hcl_kdevice *dev, size_t wg) {
    return (!dev->max_group_size || wg * wg <= dev->max_group_size) &&
           (!dev->local_mem || cl_local_bytes(wg) <= dev->local_mem);
}

/* GPU: 16 x 16 work-items, 128 x 128 tiles, the next step prefetched into registers (H100: about 32-38 TFLOP/s at
 * 4096^3, against 22-25 for 64 x 64 tiles). CPU: 8 x 8 work-items, no prefetch: PoCL runs a group's work-items as
 * a loop, and there this was fastest (about 20 GFLOP/s at 512^3 on 2 cores, against 15 for 16 x 16). Also GPUs too
 * small for 16 x 16. */
hcl_kprog hcl_plan_gemm_cl_program(const hcl_kdevice *dev) {
    if (!dev->is_cpu && cl_fits(dev, 16)) return HCL_KPROG_CL_GEMM16;
    return cl_fits(dev, 8) ? HCL_KPROG_CL_GEMM8 : HCL_KPROG_COUNT;
}

static hcl_status plan_cl(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    hcl_kprog prog = hcl_plan_gemm_cl_program(dev);
    if (prog == HCL_KPROG_COUNT)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the built-in gemm needs work-groups of 64 work-items and %llu bytes of local memory; "
                              "the device allows %llu work-items and %llu bytes",
                              (unsigned long long)cl_local_bytes(8), (unsigned long long)dev->max_group_size,
                              (unsigned long long)dev->local_mem);
    const int which = (g->trans_a == HCL_TRANS ? 2 : 0) + (g->trans_b == HCL_TRANS ? 1 : 0);
    const size_t wg = cl_wg(prog), tile = 8 * wg;
    uint64_t kmax = dev->kernel_max_group ? dev->kernel_max_group(dev, prog, which) : 0;
    if (kmax && kmax < wg * wg)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "built-in '%s' needs work-groups of %zu work-items; the device allows %llu for it",
                              hcl_kprogram_get(prog)->kernels[which], wg * wg, (unsigned long long)kmax);
    size_t gx = hcl_ceil_div(g->n, tile), gy = hcl_ceil_div(g->m, tile);
    uint64_t mx = hcl_known_or(dev->max_groups[0], UINT32_MAX), my = hcl_known_or(dev->max_groups[1], UINT32_MAX);
    if (gx > mx || gy > my)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "gemm %zu x %zu needs %zu x %zu work-groups; the device allows %llu x %llu", g->m, g->n,
                              gx, gy, (unsigned long long)mx, (unsigned long long)my);
    /* BLAS: with k or alpha 0, A and B are not read and C = beta * C */
    const int no_product = g->k == 0 || g->alpha == 0.0f;
    hcl_klaunch_1d(l, prog, which, gx, wg);
    l->grid.y = (uint32_t)gy;
    l->block.y = (uint32_t)wg;
    gemm_args(l, g, no_product ? 0 : g->k, no_product ? 0.0f : g->alpha);
    return HCL_SUCCESS;
}

/* ---- host (kernels/gemm/gemm.c): the whole call in one work-group, the packing workspace from the core ---- */
static hcl_status plan_host(const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    hcl_klaunch_1d(l, HCL_KPROG_HOST, 1, 1, 1);
    out->scratch_bytes = hcl__host_gemm_workspace_bytes(g->m, g->n, g->k);
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

hcl_status hcl_plan_gemm(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    hcl_status st = hcl_kplan_init(out, 1);
    if (st != HCL_SUCCESS) return st;
    switch (dev->family) {
    case HCL_KFAMILY_GPU: return plan_gpu(dev, g, &out->launch[0]);
    case HCL_KFAMILY_CL: return plan_cl(dev, g, out, &out->launch[0]);
    default: return plan_host(g, out, &out->launch[0]);
    }
}
