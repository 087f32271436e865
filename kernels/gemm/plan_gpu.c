/* The gemm plan's GPU part (kernels/gemm/plan_family.h). */
#include "plan_family.h"

#include <stdio.h>

/* A short k (gemm.cu's hcl_gemm_smallk_f32, k <= 8): a block of 256 threads per 32 rows x 256 columns of C, which is
 * all the kernel's traffic (the tiled kernels spent their time on tiles of A and B that are one column deep). */
#define SMALLK_MAX 8
#define SMALLK_ROWS 32
static hcl_status plan_smallk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    if (g->k > SMALLK_MAX || hcl_ceil_div(g->m, SMALLK_ROWS) > hcl_known_or(dev->max_groups[1], 65535) ||
        hcl_ceil_div(g->n, 256) > hcl_known_or(dev->max_groups[0], 65535))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the short-k kernel takes k of at most %d and a grid of 32-row x 256-column blocks the "
                              "device allows (m %zu, n %zu, k %zu)",
                              SMALLK_MAX, g->m, g->n, g->k);
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, "hcl_gemm_smallk_f32");
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, hcl_ceil_div(g->n, 256), 256);
    l->grid.y = (uint32_t)hcl_ceil_div(g->m, SMALLK_ROWS);
    hcl_klaunch_u64(l, g->m);
    hcl_klaunch_u64(l, g->n);
    hcl_klaunch_u64(l, g->k);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_u64(l, g->lda);
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_u64(l, g->ldb);
    hcl_klaunch_f32(l, g->alpha);
    hcl_klaunch_f32(l, g->beta);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, g->ldc);
    hcl_klaunch_u32(l, g->trans_a == HCL_TRANS);
    hcl_klaunch_u32(l, g->trans_b == HCL_TRANS);
    return HCL_SUCCESS;
}

/* ---- GPU (kernels/gemm/gemm.cu): 256 threads per 256 x 128, 128 x 128 or 64 x 64 tile, the kernel strides over tiles ---- */
/* The SIMT kernels' float32 rates relative to the 256 x 128 tiles' on full tiles (H100 and H200: 64 x 64 about 26,
 * 128 x 128 about 42, 256 x 128 about 48 TFLOP/s) */
#define SIMT_RATE_128 0.85
#define SIMT_RATE_64 0.5

hcl_status hcl__plan_gemm_gpu(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    char name[64];
    int kernel;
    if (g->k == 0 || g->alpha == 0.0f) {
        /* C = beta * C without reading A or B (BLAS: NaN or Inf in them must not reach C), whatever variant is forced:
         * there is no product to compute */
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
    /* a C of few rows (or columns), any type (plan_rows.c): reading B once is the whole cost. First where the
     * few-rows kernels beat the matrix-unit kernels, else where these decline the call (below) */
    const hcl_kvariant v = dev->variant[HCL_KOP_GEMM];
    const int rows_first = v == HCL_KVARIANT_GEMM_ROWS || hcl__plan_gemm_rows_first(g);
    hcl_status st = HCL_ERROR_UNSUPPORTED;
    if (rows_first && hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_ROWS) &&
        ((st = hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_ROWS, hcl__plan_gemm_rows(dev, g, out), out)) !=
             HCL_ERROR_UNSUPPORTED ||
         v == HCL_KVARIANT_GEMM_ROWS))
        return st;
    /* the matrix-unit kernels of the device's vendor next (plan_family.h), or the matrix-unit variant forced */
    const int simt_side =
        v == HCL_KVARIANT_GEMM_SIMT || v == HCL_KVARIANT_GEMM_SIMT_SPLITK || v == HCL_KVARIANT_GEMM_SMALLK;
    if (!simt_side) {
        const int mfma =
            v == HCL_KVARIANT_GEMM_MFMA || (v == HCL_KVARIANT_AUTO && dev->matrix_unit == HCL_MATRIX_UNIT_MFMA);
        st = mfma ? hcl__plan_gemm_mfma(dev, g, out, l) : hcl__plan_gemm_tc(dev, g, out, l);
        if (st != HCL_ERROR_UNSUPPORTED || g->compute == HCL_COMPUTE_TF32 || v != HCL_KVARIANT_AUTO)
            return hcl_kvariant_settle(dev, HCL_KOP_GEMM, v, st, out);
        /* no matrix-unit kernel takes it (nothing forced): the few-rows kernels, where they were not tried first */
        if (!rows_first && (st = hcl__plan_gemm_rows(dev, g, out)) != HCL_ERROR_UNSUPPORTED) return st;
    } else if (g->compute == HCL_COMPUTE_TF32) {
        return hcl_kvariant_refuse(out, dev, HCL_KOP_GEMM,
                                   "TF32 needs a matrix unit (the wgmma, mma or mma-splitk "
                                   "variants); the SIMT kernels compute in float32");
    }
    if (g->ab_type == HCL_DTYPE_F32 && g->c_type == HCL_DTYPE_F32) {
        if (hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SMALLK) &&
            (st = hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SMALLK, plan_smallk(dev, g, out, l), out)) !=
                HCL_ERROR_UNSUPPORTED)
            return st;
        if (v == HCL_KVARIANT_GEMM_SMALLK) return st; /* the refusal */
        /* gemm.cu's hcl_gemm_splitk_f32_*: 128 x 128 tiles, two blocks per SM, where k is long and those tiles are
         * at least 3/4 full (the 64 x 64 tiles' kernel ran at about 26 TFLOP/s on the H100, the 128 x 128 one's at 42);
         * else 64 x 64 tiles, three blocks per SM */
        if (hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SIMT_SPLITK)) {
            const int forced = v == HCL_KVARIANT_GEMM_SIMT_SPLITK;
            if (g->k >= 2048 && hcl__gemm_tile_fill(g, 128, 128) >= 0.75) {
                snprintf(name, sizeof name, "hcl_gemm_splitk_f32_128_%s", hcl__gemm_trans_name(g));
                if ((st = hcl__plan_gemm_splitk(dev, g, out, name, 128, 2, forced)) != HCL_ERROR_UNSUPPORTED) return st;
            }
            snprintf(name, sizeof name, "hcl_gemm_splitk_f32_%s", hcl__gemm_trans_name(g));
            st = hcl__plan_gemm_splitk(dev, g, out, name, 64, 3, forced);
            if (st != HCL_ERROR_UNSUPPORTED || forced)
                return hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SIMT_SPLITK, st, out);
        }
    } else if (v != HCL_KVARIANT_AUTO && v != HCL_KVARIANT_GEMM_SIMT) {
        return hcl_kvariant_refuse(out, dev, HCL_KOP_GEMM, "its kernels take f32 A, B and C (here %s x %s -> %s)",
                                   hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->ab_type),
                                   hcl_kdtype_name(g->c_type));
    }
    /* The tiles that do the most useful work: each tile size's rate (256 x 128, float32 only, one block per SM, where
     * its tiles give at least 3/4 of the SMs a block; 128 x 128, two per SM, where its tiles give every SM one; 64 x
     * 64, three per SM, more blocks for small problems) times the part of its tiles inside C (a C of 64 rows fills a
     * quarter of the 256-row tiles: 64 x 14336 x 4096 ran at 0.27 of cuBLAS on them on an H200). H100 SGEMM,
     * HCL/cuBLAS, see docs/architecture.md: 2048^3 on 64 x 64 tiles: 0.64. */
    const size_t sms = dev->compute_units ? dev->compute_units : 1;
    const size_t tiles256 = hcl_ceil_div(g->m, 256) * hcl_ceil_div(g->n, 128);
    const size_t tiles128 = hcl_ceil_div(g->m, 128) * hcl_ceil_div(g->n, 128);
    size_t tile_m = 64;
    double best = SIMT_RATE_64 * hcl__gemm_tile_fill(g, 64, 64);
    if (tiles128 >= sms && SIMT_RATE_128 * hcl__gemm_tile_fill(g, 128, 128) > best)
        tile_m = 128, best = SIMT_RATE_128 * hcl__gemm_tile_fill(g, 128, 128);
    if (g->ab_type == HCL_DTYPE_F32 && 4 * tiles256 >= 3 * sms && hcl__gemm_tile_fill(g, 256, 128) > best) tile_m = 256;
    const size_t tile_n = tile_m == 256 ? 128 : tile_m;
    /* hcl_gemm_<f32 | ab_c>_<tile rows>_<trans> (gemm.cu) */
    if (g->ab_type == HCL_DTYPE_F32)
        snprintf(name, sizeof name, "hcl_gemm_f32_%zu_%s", tile_m, hcl__gemm_trans_name(g));
    else
        snprintf(name, sizeof name, "hcl_gemm_%s_%s_%zu_%s", hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->c_type),
                 tile_m, hcl__gemm_trans_name(g));
    kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, tile_n), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, tile_m), hcl_known_or(dev->max_groups[1], 65535));
    hcl__gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}
