/* The gemm plan's matrix-unit part, NVIDIA tensor cores:
 *  - sm_90 (Hopper) when the rows the TMA reads are 16-byte multiples: the wgmma kernels of kernels/gemm/gemm_wg.cu,
 *    persistent 384-thread blocks, one per SM, over the 128 x 256 tiles of C (128 x 64 ones where those would be few:
 *    wg_bn), operands described by tensor maps;
 *    wgmma reads TF32 operands from shared memory only K-major, so an M-major A goes to it from registers, "nn" runs
 *    on swapped operands (C^T = B^T A^T) and "tn" first copies B transposed into the scratch (hcl_transpose_f32);
 *  - sm_80 and later otherwise: the mma.sync kernels of kernels/gemm/gemm_tc.cu, a 256-thread block per 128 x 128
 *    tile; the grid strides over tiles when it is capped;
 *  - where the Hopper kernels take the call but their tiles fill at most half the SMs and k is long, they run over
 *    slices of k too (a work item is a tile and a slice; the partial products go to the scratch and
 *    hcl_gemm_splitk_sum adds them: hcl__plan_gemm_sliced);
 *  - where they do not, when the 128 x 128 tiles are fewer than the SMs and k is long: the mma.sync kernels over
 *    slices of k (hcl__plan_gemm_splitk). */
#define HCL_TC_TILE 128
#include "gemm_wg.h"
#include "plan_family.h"

#include <stdint.h>
#include <stdio.h>

/* The tensor map of a row-major matrix of `rows` x `cols` elements (row pitch ld) copied in boxes of box_cols x
 * box_rows. */
static hcl_driver_tensor_map tensor_map(hcl_dtype type, size_t rows, size_t cols, size_t ld, uint32_t box_cols,
                                        uint32_t box_rows) {
    hcl_driver_tensor_map t = {
        type, {cols, rows}, ld * hcl_kdtype_size(type), {box_cols, box_rows}, (uint32_t)hcl_kdtype_size(type)};
    return t;
}

/* TF32 on Hopper: "tn" (A transposed, B not) first copies B K-major into the scratch and runs the "tt" kernel; "nn"
 * runs its kernel on swapped operands (C^T = B^T A^T: m and n, A and B trade places and C is stored transposed). So
 * do 16-bit "nn" and "nt" of at most HCL_WG_BN_NARROW rows, on the narrow kernels (wg_bn). */
static int copies_b(const hcl_kgemm *g) {
    return g->compute == HCL_COMPUTE_TF32 && g->trans_a == HCL_TRANS && g->trans_b == HCL_NO_TRANS;
}
static int swaps(const hcl_kgemm *g) {
    if (g->compute == HCL_COMPUTE_TF32) return g->trans_a == HCL_NO_TRANS && g->trans_b == HCL_NO_TRANS;
    return g->trans_a == HCL_NO_TRANS && g->m <= HCL_WG_BN_NARROW;
}

/* The columns of the Hopper kernel's tiles, 256 or HCL_WG_BN_NARROW (64):
 *  - on swapped operands, 64 for at most 64 rows (the narrow kernels, hcl_gemm_wg_*_n64: C^T's columns are C's rows,
 *    and a wide tile would compute three quarters of them past m);
 *  - else, for 16-bit types, 64 where the 128 x 256 tiles of C would fill at most half the SMs (hcl_gemm_wg64_*: four
 *    times the tiles, so fewer slices of k or none). H200, f16 HCL/cuBLAS, 128 x 256 -> 128 x 64 (the llm set):
 *    1024 x 1024 x 4096 0.57 -> 0.81, 256 x 4096 x 4096 0.59 -> 0.88, 256 x 1024 x 4096 0.64 -> 0.86, 127 x 4096 x
 *    4096 0.46 -> 0.65; but with 128 wide tiles (1024 x 4096 x 4096) 0.88 -> 0.57, hence the rule. */
static size_t wg_bn(const hcl_kdevice *dev, const hcl_kgemm *g) {
    if (swaps(g)) return g->m <= HCL_WG_BN_NARROW ? HCL_WG_BN_NARROW : HCL_WG_BN;
    if (g->compute == HCL_COMPUTE_TF32) return HCL_WG_BN;
    const size_t wide = hcl_ceil_div(g->m, HCL_WG_BM) * hcl_ceil_div(g->n, HCL_WG_BN);
    return 2 * wide <= hcl_known_or(dev->compute_units, 1) ? HCL_WG_BN_NARROW : HCL_WG_BN;
}

/* The Hopper kernel's name for C of type `c` (the kernel of the slices' partial products: f32). */
static void wg_name(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_dtype c, char *name, size_t size) {
    const int narrow = wg_bn(dev, g) == HCL_WG_BN_NARROW;
    snprintf(name, size, "hcl_gemm_wg%s_%s_%s_%s%s", narrow && !swaps(g) ? "64" : "",
             g->compute == HCL_COMPUTE_TF32 ? "tf32" : hcl_kdtype_name(g->ab_type), hcl_kdtype_name(c),
             copies_b(g) ? "tt" : hcl__gemm_trans_name(g), narrow && swaps(g) ? "_n64" : "");
}

/* The Hopper kernel's tiles of 128 x wg_bn: over C, or over C^T when the operands are swapped. */
static size_t wg_tiles(const hcl_kdevice *dev, const hcl_kgemm *g) {
    const size_t m = swaps(g) ? g->n : g->m, n = swaps(g) ? g->m : g->n;
    return hcl_ceil_div(m, HCL_WG_BM) * hcl_ceil_div(n, wg_bn(dev, g));
}

/* Why the Hopper kernels do not take the call, or NULL when they do: sm_90; the rows the TMA reads 16-byte multiples
 * (B's copy, when there is one, is read instead of B); coordinates that fit in int; the grid and shared memory fit.
 * The reason goes to buf. */
static const char *wg_declines(const hcl_kdevice *dev, const hcl_kgemm *g, char *buf, size_t size) {
    const size_t v = 16 / hcl_kdtype_size(g->ab_type);
    const int b_copied = copies_b(g);
    if (dev->arch_level != 90)
        snprintf(buf, size, "the Hopper kernels need sm_90 (this device: %s%u)", dev->arch_level ? "sm_" : "level ",
                 dev->arch_level);
    else if (g->lda % v != 0 || (!b_copied && g->ldb % v != 0))
        snprintf(buf, size, "the TMA reads rows of 16-byte multiples: lda %zu, ldb %zu of %s must be multiples of %zu",
                 g->lda, g->ldb, hcl_kdtype_name(g->ab_type), v);
    else if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
        snprintf(buf, size, "the Hopper kernels take m, n and k below 2^31 (%zu, %zu, %zu)", g->m, g->n, g->k);
    else if (wg_tiles(dev, g) > hcl_known_or(dev->max_groups[0], INT32_MAX) ||
             /* the copy's grid has a row of blocks per 32 of k */
             (b_copied && hcl_ceil_div(g->k, 32) > hcl_known_or(dev->max_groups[1], 65535)))
        snprintf(buf, size, "the Hopper plan's grid exceeds the device's");
    else if (dev->local_mem < HCL_WG_SMEM_BYTES + 1024)
        snprintf(buf, size, "the Hopper kernels need %d bytes of shared memory a block (the device: %llu)",
                 HCL_WG_SMEM_BYTES + 1024, (unsigned long long)dev->local_mem);
    else
        return NULL;
    return buf;
}

int hcl__plan_gemm_tc_narrow(const hcl_kdevice *dev, const hcl_kgemm *g) {
    char why[160];
    return hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_WGMMA) && swaps(g) &&
           wg_bn(dev, g) == HCL_WG_BN_NARROW && !wg_declines(dev, g, why, sizeof why);
}

/* Launch `l`: hcl_transpose_f32 of the matrix in `slot` (rows x cols, pitch ld) into the scratch at `offset` (cols x
 * rows, pitch ld_out). */
static void plan_transpose(hcl_klaunch *l, int kernel, hcl_kslot slot, size_t rows, size_t cols, size_t ld,
                           size_t offset, size_t ld_out) {
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, hcl_ceil_div(cols, 32), 256);
    l->grid.y = (uint32_t)hcl_ceil_div(rows, 32);
    l->block = (hcl_dim3){32, 8, 1};
    hcl_klaunch_u64(l, rows);
    hcl_klaunch_u64(l, cols);
    hcl_klaunch_mem(l, slot, 0);
    hcl_klaunch_u64(l, ld);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, offset);
    hcl_klaunch_u64(l, ld_out);
}

/* The Hopper kernel's launch l (kernel index `kernel`) over `items` work items: its operands (B's K-major copy for TF32
 * "tn", A and B swapped for TF32 "nn" and the narrow kernels) and C, or with k in slices of kslice (< k) the scratch,
 * where each slice's product (alpha 1, beta 0) goes to its m x n floats. An operand's tensor map copies one box of (a
 * row's 128 bytes) x (its tile's rows) when it is K-contiguous, boxes of (a row's 128 bytes) x (one stage's K) when it
 * is M- or N-contiguous. */
static void wg_launch(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_klaunch *l, int kernel, size_t items,
                      size_t kslice) {
    const int b_copied = copies_b(g), swapped = swaps(g), sliced = kslice < g->k;
    const size_t kp = (g->k + 3) / 4 * 4;
    /* persistent blocks, one per SM (the shared memory allows no more), each taking items until none is left */
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, hcl_min_size(items, hcl_known_or(dev->compute_units, items)),
                   HCL_WG_THREADS);
    l->shared_bytes = HCL_WG_SMEM_BYTES;
    const hcl_dtype t = g->ab_type;
    const uint32_t bk = (uint32_t)(HCL_WG_ROW / hcl_kdtype_size(t));
    /* A is m x k (k x m transposed), B is k x n (n x k transposed) */
    const hcl_driver_tensor_map a = swapped && g->trans_b == HCL_TRANS
                                        ? tensor_map(t, g->n, g->k, g->ldb, bk, HCL_WG_BM)
                                    : swapped                 ? tensor_map(t, g->k, g->n, g->ldb, bk, bk)
                                    : g->trans_a == HCL_TRANS ? tensor_map(t, g->k, g->m, g->lda, bk, bk)
                                                              : tensor_map(t, g->m, g->k, g->lda, bk, HCL_WG_BM);
    const uint32_t bn = (uint32_t)wg_bn(dev, g);
    const hcl_driver_tensor_map b = swapped                   ? tensor_map(t, g->m, g->k, g->lda, bk, bn)
                                    : b_copied                ? tensor_map(t, g->n, g->k, kp, bk, bn)
                                    : g->trans_b == HCL_TRANS ? tensor_map(t, g->n, g->k, g->ldb, bk, bn)
                                                              : tensor_map(t, g->k, g->n, g->ldb, bk, bk);
    /* the kernel's operands: A' (m' x k), B' (k x n'), C' = C (C^T when swapped; a slice's pitch is n either way) */
    hcl_klaunch_u64(l, swapped ? g->n : g->m);
    hcl_klaunch_u64(l, swapped ? g->m : g->n);
    hcl_klaunch_u64(l, g->k);
    hcl_klaunch_f32(l, sliced ? 1.0f : g->alpha);
    hcl_klaunch_tensor_map(l, swapped ? HCL_KSLOT_B : HCL_KSLOT_A, 0, &a);
    hcl_klaunch_tensor_map(l, b_copied ? HCL_KSLOT_SCRATCH : swapped ? HCL_KSLOT_A : HCL_KSLOT_B, 0, &b);
    hcl_klaunch_f32(l, sliced ? 0.0f : g->beta);
    hcl_klaunch_mem(l, sliced ? HCL_KSLOT_SCRATCH : HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, sliced ? g->n : g->ldc);
    hcl_klaunch_u64(l, sliced ? kslice : g->k);
}

/* The Hopper plan, unsliced: the kernel (after B's transposed copy for TF32 "tn") over C's tiles. */
static hcl_status plan_wg(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    const int b_copied = copies_b(g);
    const size_t kp = (g->k + 3) / 4 * 4;
    char name[64];
    wg_name(dev, g, g->c_type, name, sizeof name);
    /* the kernels first: a failure leaves the plan as it was (the caller's single launch) */
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    const int transpose = b_copied ? hcl_kplan_kernel(out, HCL_KPROG_GPU, "hcl_transpose_f32") : 0;
    if (kernel < 0 || transpose < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_kplan_free(out);
    hcl_status st = hcl_kplan_init(out, 1 + (size_t)b_copied);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = out->launch;
    if (b_copied) plan_transpose(l++, transpose, HCL_KSLOT_B, g->k, g->n, g->ldb, 0, kp);
    out->scratch_bytes = b_copied ? g->n * kp * 4 : 0;
    wg_launch(dev, g, l, kernel, wg_tiles(dev, g), g->k);
    return HCL_SUCCESS;
}

/* The Hopper plan over slices of k, when its tiles fill at most half the SMs and k is long (not for TF32 "tn", whose
 * scratch holds B's copy): about one work item per SM, slices of a multiple of 64 of k, at least WG_MIN_SLICE, and
 * their partial products (slices x m x n floats, written and read back) at most the bytes of A and B, within the
 * scratch's limit; the partial products in f32 (the kernel whose C is f32), summed into C's type.
 * HCL_ERROR_UNSUPPORTED (the plan as it was) when that does not apply or the program lacks the kernels.
 * Measured on an H200 (HCL/cuBLAS, n 1024, k 4096; least slice 512 -> 256): f16 16 rows 0.53 -> 0.59, 64 rows 0.57 ->
 * 0.62, 128 rows 0.60 -> 0.62, TF32 0.63-1.06 -> 0.66-1.10; f16 256 rows 0.63 -> 0.57 with 16 slices (its partials
 * twice B's bytes), hence the bound on the partials (10 slices there). A least slice of 128: no better. */
#define WG_MIN_SLICE 256
#define WG_SLICED_MIN_K 2048 /* k below this is never sliced */
static hcl_status plan_wg_sliced(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    const size_t sms = hcl_known_or(dev->compute_units, 1), tiles = wg_tiles(dev, g);
    if (copies_b(g) || 2 * tiles > sms || g->k < WG_SLICED_MIN_K) return HCL_ERROR_UNSUPPORTED;
    const size_t operands = (g->m + g->n) * g->k * hcl_kdtype_size(g->ab_type), partial = g->m * g->n * sizeof(float);
    const size_t most = hcl_min_size(hcl_min_size(sms / tiles, g->k / WG_MIN_SLICE), operands / partial);
    size_t slices;
    const size_t kslice = hcl__gemm_kslice(g, most, 64, &slices);
    if (slices < 2) return HCL_ERROR_UNSUPPORTED;
    char name[64];
    wg_name(dev, g, HCL_DTYPE_F32, name, sizeof name);
    int kernel;
    hcl_status st = hcl__plan_gemm_sliced(dev, g, out, name, slices, &kernel);
    if (st != HCL_SUCCESS) return st;
    wg_launch(dev, g, &out->launch[0], kernel, tiles * slices, kslice);
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
    char name[64], why[160];
    /* few tiles and a long k where the Hopper kernels do not take the call: the mma.sync kernels over slices of k (two
     * blocks per SM). Where they do, they slice k themselves (plan_wg_sliced: H100 before, with the mma.sync kernels
     * split instead for at most a quarter of the SMs' worth of tiles, 1024^3 f16 on 64 tiles: 0.88 of cuBLAS unsplit,
     * 0.41 split on mma.sync). Each variant alone where it is forced. */
    const hcl_kvariant v = dev->variant[HCL_KOP_GEMM];
    const char *declines = wg_declines(dev, g, why, sizeof why);
    if (v == HCL_KVARIANT_GEMM_MMA_SPLITK || (v == HCL_KVARIANT_AUTO && declines)) {
        snprintf(name, sizeof name, "hcl_gemm_tc_splitk_%s_%s", tf32 ? "tf32" : hcl_kdtype_name(g->ab_type),
                 hcl__gemm_trans_name(g));
        hcl_status st = hcl__plan_gemm_splitk(dev, g, out, name, HCL_TC_TILE, HCL_TC_TILE, 2, v != HCL_KVARIANT_AUTO);
        if (st != HCL_ERROR_UNSUPPORTED || v != HCL_KVARIANT_AUTO) return st;
    }
    if (hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_WGMMA)) {
        if (!declines) {
            const hcl_status st = plan_wg_sliced(dev, g, out);
            return st != HCL_ERROR_UNSUPPORTED ? st : plan_wg(dev, g, out);
        }
        if (v == HCL_KVARIANT_GEMM_WGMMA) return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "%s", declines);
    }
    snprintf(name, sizeof name, "hcl_gemm_tc_%s_%s_%s", tf32 ? "tf32" : hcl_kdtype_name(g->ab_type),
             hcl_kdtype_name(g->c_type), hcl__gemm_trans_name(g));
    return hcl__plan_gemm_tiles128(dev, g, out, l, name);
}
