/* The gemm plan for a C of few rows (kernels/gemm/plan_family.h): gemm_rows.cu's kernels over slices of k, summed by
 * the split-K sum kernel (hcl__plan_gemm_sliced). C of at most ROWS_MAX rows runs as it is; C of more rows but at most
 * ROWS_MAX columns runs on swapped operands, C^T = B^T A^T (the kernel's rows are C's columns, and it writes its
 * partial products transposed, so the sum kernel reads them as for C). */
#include "plan_family.h"

#include <stdio.h>

#define ROWS_MAX 16   /* rows of C the kernels take (their largest MR) */
#define ROWS_MIN_K 64 /* k below which the one-launch kernels are left the call (unless the variant is forced) */
/* blocks per SM the slices fill at most: the blocks an SM holds at once (gemm_rows.cu's launch bounds; their 92 to 125
 * registers a thread on sm_90 allow no more), so that the grid is one wave. 4, rounded up, made about two waves (1.94
 * under Nsight Compute at 1 and 4 x 4096 x 4096 f16); on an H200 (HCL/cuBLAS, bench, the same GPU and process) one
 * wave took f16 1 x 4096 x 4096 0.79 -> 0.97, 4 x 4096 x 4096 0.50 -> 0.72, 4 x 14336 x 4096 0.68 -> 0.80, f32 16 x
 * 1024 x 4096 0.73 -> 1.03, 16 x 14336 x 4096 0.92 -> 1.16 */
#define ROWS_PER_SM 2
#define ROWS_SLICE 64          /* slices of k are multiples of this (keeps the slices' vectors of B aligned) */
#define ROWS_COLS_T 32         /* columns of a t kernel's block (gemm_rows.cu: 8 groups x HCL_GEMM_ROWS_COLS_T) */
#define ROWS_MAX_16BIT 4       /* 16-bit rows the kernels take before the matrix-unit kernels */
#define ROWS_MAX_TF32_NARROW 4 /* TF32 rows they take before a narrow Hopper kernel */

/* The rows of C the kernel computes: C's own, or on swapped operands its columns. */
static size_t kernel_rows(const hcl_kgemm *g) { return g->m <= ROWS_MAX ? g->m : g->n; }

/* Whether the few-rows kernels go before the matrix-unit kernels (plan_family.h). On an H200 (HCL/cuBLAS, k 4096):
 * f32, and TF32 in float32, from 1 to 16 rows (TF32 4 x 4096: 0.91 against 0.46 on the mma split-K kernels, 16 x
 * 14336: 0.53 against 0.47 on wgmma); 16-bit up to 4 rows (bf16 2 x 4096: 0.98 against 0.60, 4 x 128256: 0.85
 * against 0.77), but from 8 rows the float FMA kernel is bound by its arithmetic and the matrix-unit kernels win (f16
 * 8 x 14336: 0.54 against 0.80 on wgmma, 16 x 4096: 0.47 against 0.50 on the mma split-K kernels). TF32 of 16 rows
 * runs faster on a narrow Hopper kernel (HCL/cuBLAS 0.62-0.72 -> 0.92-1.02 over the llm set's (N, K)), 8 rows mostly
 * (0.84-0.91 -> 0.88-0.97, but 8 x 128256 0.94 -> 0.90), 4 rows slower (0.94-1.11 -> 0.78-0.96): so it goes there from
 * 5 rows (5 to 7 not measured; the rows kernels take them as 8). */
int hcl__plan_gemm_rows_first(const hcl_kdevice *dev, const hcl_kgemm *g) {
    if (g->ab_type != HCL_DTYPE_F32) return kernel_rows(g) <= ROWS_MAX_16BIT;
    return g->compute != HCL_COMPUTE_TF32 || kernel_rows(g) <= ROWS_MAX_TF32_NARROW ||
           !hcl__plan_gemm_tc_narrow(dev, g);
}

/* The rows kernels' plan (plan_family.h): the kernel's operands, MR and layout from the shape, slices of k for about
 * ROWS_PER_SM blocks per SM (one wave), two launches (hcl__plan_gemm_sliced). */
hcl_status hcl__plan_gemm_rows(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    const int swap = g->m > ROWS_MAX, ta = g->trans_a == HCL_TRANS, tb = g->trans_b == HCL_TRANS;
    if (swap && g->n > ROWS_MAX)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the rows kernels take C of at most %d rows or %d columns (here %zu x %zu)", ROWS_MAX,
                              ROWS_MAX, g->m, g->n);
    if (g->k < ROWS_MIN_K && dev->variant[HCL_KOP_GEMM] != HCL_KVARIANT_GEMM_ROWS)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the rows kernels' second launch does not pay at k %zu",
                              g->k);
    /* the kernel's operands: A' (rows x k, element (i, p) at i * a_i + p * a_p) and B' (k x cols; kt: k contiguous,
     * element (p, j) at j * ldb' + p, else at p * ldb' + j); swapped, A' = B^T and B' = A^T */
    const size_t rows = kernel_rows(g), cols = swap ? g->m : g->n;
    const hcl_kslot sa = swap ? HCL_KSLOT_B : HCL_KSLOT_A, sb = swap ? HCL_KSLOT_A : HCL_KSLOT_B;
    const int at = swap ? tb : ta; /* the operand stored for A' is transposed (op()) */
    const size_t lda = swap ? g->ldb : g->lda, ldb = swap ? g->lda : g->ldb;
    const size_t a_i = swap ? (at ? lda : 1) : (at ? 1 : lda), a_p = swap ? (at ? 1 : lda) : (at ? lda : 1);
    const int kt = swap ? !ta : tb;
    const size_t mr = rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : rows <= 8 ? 8 : 16;
    const size_t esize = hcl_kdtype_size(g->ab_type), vec = 16 / esize;
    const size_t per_block = kt ? ROWS_COLS_T : 32 * (mr * vec > 64 ? vec / 2 : vec); /* gemm_rows.cu's CW */
    const size_t blocks = hcl_ceil_div(cols, per_block), sms = dev->compute_units ? dev->compute_units : 1;
    /* at most ROWS_PER_SM blocks per SM (at least one slice), while the slices' partial products (written and read
     * again: 8 bytes a row and column) stay within half of B's bytes, and slices of at least ROWS_SLICE */
    size_t slices = blocks < ROWS_PER_SM * sms ? ROWS_PER_SM * sms / blocks : 1;
    const size_t traffic = g->k * esize / (16 * rows), deep = g->k / ROWS_SLICE;
    slices = hcl_min_size(slices, traffic > 1 ? traffic : 1);
    slices = hcl_min_size(slices, deep > 1 ? deep : 1);
    const size_t kslice =
        hcl__gemm_kslice(g, hcl_min_size(slices, hcl_known_or(dev->max_groups[1], 65535)), ROWS_SLICE, &slices);
    if (blocks > hcl_known_or(dev->max_groups[0], 65535))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the rows kernels' %zu blocks exceed the device's grid",
                              blocks);
    char name[64];
    snprintf(name, sizeof name, "hcl_gemm_rows_%s_%zu_%c", hcl_kdtype_name(g->ab_type), mr, kt ? 't' : 'n');
    int part;
    const hcl_status st = hcl__plan_gemm_sliced(dev, g, out, name, slices, &part);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, HCL_KPROG_GPU, part, blocks, 256);
    l->grid.y = (uint32_t)slices;
    hcl_klaunch_u64(l, rows);
    hcl_klaunch_u64(l, cols);
    hcl_klaunch_u64(l, g->k);
    hcl_klaunch_u64(l, kslice);
    hcl_klaunch_mem(l, sa, 0);
    hcl_klaunch_u64(l, a_i);
    hcl_klaunch_u64(l, a_p);
    hcl_klaunch_mem(l, sb, 0);
    hcl_klaunch_u64(l, ldb);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    hcl_klaunch_u64(l, swap ? 1 : g->n); /* element (i, j) of the kernel's product at i * p_i + j * p_j */
    hcl_klaunch_u64(l, swap ? g->n : 1);
    return HCL_SUCCESS;
}
