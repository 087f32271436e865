/* The gemm plan's matrix-unit part, NVIDIA tensor cores:
 *  - sm_90 (Hopper), f16/bf16 inputs whose rows the TMA can copy (lda, ldb multiples of 8): the wgmma kernels of
 *    kernels/gemm/gemm_wg.cu, one 384-thread block per 128 x 256 tile of C, operands described by tensor maps;
 *  - sm_80 and later otherwise (and TF32 everywhere): the mma.sync kernels of kernels/gemm/gemm_tc.cu, a 256-thread
 *    block per 128 x 128 tile; the grid strides over tiles when it is capped. */
#include "gemm_wg.h"
#include "plan_family.h"

#include <stdint.h>
#include <stdio.h>

static const char *const trans_names[4] = {"nn", "nt", "tn", "tt"};

static const char *trans_name(const hcl_kgemm *g) {
    return trans_names[(g->trans_a == HCL_TRANS) * 2 + (g->trans_b == HCL_TRANS)];
}

/* The tensor map of a row-major matrix of `rows` x `cols` elements (row pitch ld) copied in boxes of box_cols x
 * box_rows. */
static hcl_driver_tensor_map tensor_map(hcl_dtype type, size_t rows, size_t cols, size_t ld, uint32_t box_cols,
                                        uint32_t box_rows) {
    hcl_driver_tensor_map t = {type, {cols, rows}, ld * 2, {box_cols, box_rows}};
    return t;
}

static int wg_fits(const hcl_kdevice *dev, const hcl_kgemm *g) {
    const size_t tiles = hcl_ceil_div(g->m, HCL_WG_BM) * hcl_ceil_div(g->n, HCL_WG_BN);
    return dev->arch_level == 90 && g->compute != HCL_COMPUTE_TF32 && g->ab_type != HCL_DTYPE_F32 && g->lda % 8 == 0 &&
           g->ldb % 8 == 0 && g->m <= INT32_MAX && g->n <= INT32_MAX && g->k <= INT32_MAX &&
           tiles <= hcl_known_or(dev->max_groups[0], INT32_MAX) && dev->local_mem >= HCL_WG_SMEM_BYTES + 1024;
}

static hcl_status plan_wg(const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    char name[64];
    snprintf(name, sizeof name, "hcl_gemm_wg_%s_%s_%s", hcl_kdtype_name(g->ab_type), hcl_kdtype_name(g->c_type),
             trans_name(g));
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, hcl_ceil_div(g->m, HCL_WG_BM) * hcl_ceil_div(g->n, HCL_WG_BN),
                   HCL_WG_THREADS);
    l->shared_bytes = HCL_WG_SMEM_BYTES;
    /* A is m x k (k x m transposed), B is k x n (n x k transposed); a K-contiguous operand moves in one box of
     * BK x (its tile's rows), an M- or N-contiguous one in boxes of 64 x BK */
    const hcl_driver_tensor_map a = g->trans_a == HCL_TRANS
                                        ? tensor_map(g->ab_type, g->k, g->m, g->lda, HCL_WG_BOX, HCL_WG_BK)
                                        : tensor_map(g->ab_type, g->m, g->k, g->lda, HCL_WG_BK, HCL_WG_BM);
    const hcl_driver_tensor_map b = g->trans_b == HCL_TRANS
                                        ? tensor_map(g->ab_type, g->n, g->k, g->ldb, HCL_WG_BK, HCL_WG_BN)
                                        : tensor_map(g->ab_type, g->k, g->n, g->ldb, HCL_WG_BOX, HCL_WG_BK);
    hcl_klaunch_u64(l, g->m);
    hcl_klaunch_u64(l, g->n);
    hcl_klaunch_u64(l, g->k);
    hcl_klaunch_f32(l, g->alpha);
    hcl_klaunch_tensor_map(l, HCL_KSLOT_A, 0, &a);
    hcl_klaunch_tensor_map(l, HCL_KSLOT_B, 0, &b);
    hcl_klaunch_f32(l, g->beta);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, g->ldc);
    return HCL_SUCCESS;
}

hcl_status hcl__plan_gemm_tc(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    const int tf32 = g->compute == HCL_COMPUTE_TF32;
    const uint32_t need = tf32 ? HCL_TYPE_BIT_TF32 : HCL_TYPE_BIT(g->ab_type);
    if (dev->matrix_unit != HCL_MATRIX_UNIT_TENSOR_CORE || dev->arch_level < 80 || !(dev->matrix_types & need) ||
        (!tf32 && g->ab_type == HCL_DTYPE_F32))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "no matrix-unit gemm for %s inputs%s on this device (tensor cores of sm_80 or later)",
                              hcl_kdtype_name(g->ab_type), tf32 ? " in TF32" : "");
    if (wg_fits(dev, g)) return plan_wg(g, out, l);
    char name[64];
    snprintf(name, sizeof name, "hcl_gemm_tc_%s_%s_%s", tf32 ? "tf32" : hcl_kdtype_name(g->ab_type),
             hcl_kdtype_name(g->c_type), trans_name(g));
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, 128), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, 128), hcl_known_or(dev->max_groups[1], 65535));
    hcl__gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}
