/* The gemm plan's GPU part (kernels/gemm/plan_family.h). */
#include "plan_family.h"

#include <stdio.h>

/* A short k (gemm.cu's hcl_gemm_smallk_<f32 | ab_c>, k <= 8, every type, TF32 in float32): a block of 256 threads per
 * 32 rows x 256 columns of C, which is all the kernel's traffic (the tiled and matrix-unit kernels spent their time on
 * tiles of A and B that are one column deep: H200, 8191 x 8191 x 1, f16 0.42 and TF32 0.33 of cuBLAS on them). */
#define SMALLK_MAX 8
#define SMALLK_ROWS 32
static hcl_status plan_smallk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    if (g->k > SMALLK_MAX || hcl_ceil_div(g->m, SMALLK_ROWS) > hcl_known_or(dev->max_groups[1], 65535) ||
        hcl_ceil_div(g->n, 256) > hcl_known_or(dev->max_groups[0], 65535))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the short-k kernel takes k of at most %d and a grid of 32-row x 256-column blocks the "
                              "device allows (m %zu, n %zu, k %zu)",
                              SMALLK_MAX, g->m, g->n, g->k);
    char name[48];
    if (g->ab_type == HCL_DTYPE_F32)
        snprintf(name, sizeof name, "hcl_gemm_smallk_f32");
    else
        snprintf(name, sizeof name, "hcl_gemm_smallk_%s_%s", hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->c_type));
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
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

/* ---- GPU (kernels/gemm/gemm.cu): 256 threads per 256 x 128, 128 x 128, 64 x 128 or 64 x 64 tile, the kernel strides
 * over tiles ---- */
/* The SIMT tiles, largest first: rows, columns, the kernels' name part, their float32 rate relative to the 256 x 128
 * tiles' on full tiles (H100 and H200: 64 x 64 about 26, 128 x 128 about 42, 256 x 128 about 48 TFLOP/s; 64 x 128
 * about 36 at 64 x 128256 x 4096 on an H200), the tiles that keep the SMs busy (in SMs: 256 x 128, one block per SM,
 * where 3/4 of the SMs get one; 128 x 128 where every SM gets one of its two; 64 x 128 where every SM gets two: 1021 x
 * 1031 x 1033 on 144 of them ran at 0.55 of cuBLAS, on 272 of 64 x 64 at 0.64), blocks per SM, whether the kernels
 * exist for 16-bit inputs, and the name part of their split-K form (float32 only; NULL: none) (gemm.cu). */
static const struct simt_tile {
    size_t m, n;
    const char *name;
    double rate, busy;
    size_t per_sm;
    int typed;
    const char *splitk;
} simt_tiles[] = {{256, 128, "256", 1.0, 0.75, 1, 0, NULL},
                  {128, 128, "128", 0.85, 1.0, 2, 1, "_128"},
                  {64, 128, "64x128", 0.75, 2.0, 2, 0, "_64x128"},
                  {64, 64, "64", 0.5, 0.0, 3, 1, ""}};
#define SIMT_TILES (sizeof simt_tiles / sizeof simt_tiles[0])

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
    /* a short k, any type: writing C is the whole cost (plan_smallk), before any other kernel */
    const hcl_kvariant v = dev->variant[HCL_KOP_GEMM];
    hcl_status st = HCL_ERROR_UNSUPPORTED;
    if (hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SMALLK) &&
        (st = hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SMALLK, plan_smallk(dev, g, out, l), out)) !=
            HCL_ERROR_UNSUPPORTED)
        return st;
    if (v == HCL_KVARIANT_GEMM_SMALLK) return st; /* the refusal */
    /* a C of few rows (or columns), any type (plan_rows.c): reading B once is the whole cost. First where the
     * few-rows kernels beat the matrix-unit kernels, else where these decline the call (below) */
    const int rows_first = v == HCL_KVARIANT_GEMM_ROWS || hcl__plan_gemm_rows_first(dev, g);
    if (rows_first && hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_ROWS) &&
        ((st = hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_ROWS, hcl__plan_gemm_rows(dev, g, out), out)) !=
             HCL_ERROR_UNSUPPORTED ||
         v == HCL_KVARIANT_GEMM_ROWS))
        return st;
    /* the matrix-unit kernels of the device's vendor next (plan_family.h), or the matrix-unit variant forced */
    const int simt_side = v == HCL_KVARIANT_GEMM_SIMT || v == HCL_KVARIANT_GEMM_SIMT_SPLITK;
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
        /* gemm.cu's hcl_gemm_splitk_f32_*: the largest tiles with a split-K form that are at least 3/4 full where k is
         * long (128 x 128, then 64 x 128, two blocks per SM), else 64 x 64 tiles, three blocks per SM */
        if (hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SIMT_SPLITK)) {
            const int forced = v == HCL_KVARIANT_GEMM_SIMT_SPLITK;
            for (size_t i = 0; i < SIMT_TILES; i++) {
                const struct simt_tile *t = &simt_tiles[i];
                const int last = i + 1 == SIMT_TILES;
                if (!t->splitk || (!last && (g->k < 2048 || hcl__gemm_tile_fill(g, t->m, t->n) < 0.75))) continue;
                snprintf(name, sizeof name, "hcl_gemm_splitk_f32%s_%s", t->splitk, hcl__gemm_trans_name(g));
                st = hcl__plan_gemm_splitk(dev, g, out, name, t->m, t->n, t->per_sm, forced);
                if (st != HCL_ERROR_UNSUPPORTED || (last && forced))
                    return hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_SIMT_SPLITK, st, out);
            }
        }
    } else if (v != HCL_KVARIANT_AUTO && v != HCL_KVARIANT_GEMM_SIMT) {
        return hcl_kvariant_refuse(out, dev, HCL_KOP_GEMM, "its kernels take f32 A, B and C (here %s x %s -> %s)",
                                   hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->ab_type),
                                   hcl_kdtype_name(g->c_type));
    }
    /* The tiles that do the most useful work: the rate of each tile size that keeps the SMs busy (simt_tiles; 64 x 64
     * always, more blocks for small problems) times the part of its tiles inside C (a C of 64 rows fills a quarter of
     * the 256-row tiles: 64 x 14336 x 4096 ran at 0.27 of cuBLAS on them on an H200). H100 SGEMM, HCL/cuBLAS, see
     * docs/architecture.md: 2048^3 on 64 x 64 tiles: 0.64. */
    const double sms = dev->compute_units ? dev->compute_units : 1;
    const struct simt_tile *t = &simt_tiles[SIMT_TILES - 1];
    double best = 0;
    for (size_t i = 0; i < SIMT_TILES; i++) {
        const struct simt_tile *c = &simt_tiles[i];
        const double tiles = (double)(hcl_ceil_div(g->m, c->m) * hcl_ceil_div(g->n, c->n)),
                     score = c->rate * hcl__gemm_tile_fill(g, c->m, c->n);
        if ((c->typed || g->ab_type == HCL_DTYPE_F32) && tiles >= c->busy * sms && score > best) t = c, best = score;
    }
    /* hcl_gemm_<f32 | ab_c>_<tile>_<trans> (gemm.cu) */
    if (g->ab_type == HCL_DTYPE_F32)
        snprintf(name, sizeof name, "hcl_gemm_f32_%s_%s", t->name, hcl__gemm_trans_name(g));
    else
        snprintf(name, sizeof name, "hcl_gemm_%s_%s_%s_%s", hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->c_type),
                 t->name, hcl__gemm_trans_name(g));
    kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, t->n), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, t->m), hcl_known_or(dev->max_groups[1], 65535));
    hcl__gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}
