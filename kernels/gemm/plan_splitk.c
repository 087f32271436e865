/* The gemm plans that cut k into slices (kernels/gemm/plan_family.h): each slice's partial product goes to the scratch
 * and a second launch sums the slices into C. Split-K for the SIMT kernels (plan_gpu.c) and the mma.sync kernels
 * (plan_tc.c), and the gemv kernels for a C of one row or one column (plan_gpu.c). */
#include "plan_family.h"

#define SPLITK_MAX_BYTES ((size_t)256 << 20) /* scratch for the partial products at most */

/* Fewer slices while their partial products (m x n floats each) would not fit in SPLITK_MAX_BYTES. */
static size_t slices_within_scratch(const hcl_kgemm *g, size_t slices) {
    while (slices > 1 && slices * g->m * g->n * sizeof(float) > SPLITK_MAX_BYTES) slices /= 2;
    return slices;
}

size_t hcl__gemm_kslice(const hcl_kgemm *g, size_t slices, size_t align) {
    slices = slices_within_scratch(g, slices ? slices : 1);
    return hcl_ceil_div(hcl_ceil_div(g->k, slices), align) * align;
}

hcl_status hcl__plan_gemm_sliced(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t slices, int *out_part) {
    hcl_status st = hcl_kplan_init(out, 2);
    if (st != HCL_SUCCESS) return st;
    const int part = hcl_kplan_kernel(out, HCL_KPROG_GPU, part_name);
    const int sum = hcl_kplan_typed_kernel(out, HCL_KPROG_GPU, "hcl_gemm_splitk_sum", g->c_type);
    if (part < 0 || sum < 0) {
        st = hcl_kplan_init(out, 1);
        return st == HCL_SUCCESS ? HCL_ERROR_UNSUPPORTED : st;
    }
    out->scratch_bytes = slices * g->m * g->n * sizeof(float);
    const size_t sms = dev->compute_units ? dev->compute_units : 1;
    hcl_klaunch *l = &out->launch[1];
    hcl_klaunch_1d(l, HCL_KPROG_GPU, sum, hcl_min_size(hcl_ceil_div(g->m * g->n, 256), 32 * sms), 256);
    hcl_klaunch_u64(l, g->m);
    hcl_klaunch_u64(l, g->n);
    hcl_klaunch_u64(l, slices);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    hcl_klaunch_f32(l, g->alpha);
    hcl_klaunch_f32(l, g->beta);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, g->ldc);
    *out_part = part;
    return HCL_SUCCESS;
}

/* Split-K: when C's tiles are fewer than the SMs and k is long (a few rows or columns, k far above m and n), k is cut
 * into slices (hcl__plan_gemm_sliced) so that about `per_sm` blocks per SM work at once. Forced (a split-K variant), whenever
 * k makes two slices of 64 or more and they fit the scratch and the grid. */
#define SPLITK_MIN_SLICE 256 /* k a slice takes at least (unless forced) */
hcl_status hcl__plan_gemm_splitk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t tile, size_t per_sm, int forced) {
    const size_t sms = dev->compute_units ? dev->compute_units : 1;
    const size_t tiles = hcl_ceil_div(g->m, tile) * hcl_ceil_div(g->n, tile);
    if (!forced && (tiles >= sms || g->k < 4 * SPLITK_MIN_SLICE))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "split-K is not worth it here");
    size_t slices = hcl_min_size(hcl_ceil_div(per_sm * sms, tiles), g->k / SPLITK_MIN_SLICE);
    if (forced && slices < 2) slices = 2;
    const size_t kslice = hcl__gemm_kslice(g, hcl_min_size(slices, hcl_known_or(dev->max_groups[2], 65535)), 64);
    slices = hcl_ceil_div(g->k, kslice);
    if (slices < 2)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "split-K needs two slices of k of 64 or more within %zu MiB of scratch (m %zu, n %zu, "
                              "k %zu)",
                              SPLITK_MAX_BYTES >> 20, g->m, g->n, g->k);
    int part;
    hcl_status st = hcl__plan_gemm_sliced(dev, g, out, part_name, slices, &part);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, HCL_KPROG_GPU, part, hcl_ceil_div(g->n, tile), 256);
    l->grid.y = (uint32_t)hcl_ceil_div(g->m, tile);
    l->grid.z = (uint32_t)slices;
    hcl_klaunch_u64(l, g->m);
    hcl_klaunch_u64(l, g->n);
    hcl_klaunch_u64(l, g->k);
    hcl_klaunch_u64(l, kslice);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_u64(l, g->lda);
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_u64(l, g->ldb);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    return HCL_SUCCESS;
}

/* C of one row or one column (gemm.cu's hcl_gemv_f32_*): the matrix operand X and the vector v as strides, k cut into
 * slices (hcl__plan_gemm_sliced; a partial product is len = m x n floats) so that about four blocks per SM work at once. */
hcl_status hcl__plan_gemm_gemv(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    if (g->m != 1 && g->n != 1)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the gemv kernels take C of one row or one column (%zu x %zu)", g->m, g->n);
    const int ta = g->trans_a == HCL_TRANS, tb = g->trans_b == HCL_TRANS, row = g->m == 1;
    const size_t len = row ? g->n : g->m, sms = dev->compute_units ? dev->compute_units : 1;
    const size_t wave = dev->subgroup_width ? dev->subgroup_width : 32;
    /* one row: X = B (element (j, q)), v = A; one column: X = A (element (i, q)), v = B */
    const hcl_kslot xs = row ? HCL_KSLOT_B : HCL_KSLOT_A, vs = row ? HCL_KSLOT_A : HCL_KSLOT_B;
    const size_t xo = row ? (tb ? g->ldb : 1) : (ta ? 1 : g->lda), xq = row ? (tb ? 1 : g->ldb) : (ta ? g->lda : 1);
    const size_t vq = row ? (ta ? g->lda : 1) : (tb ? 1 : g->ldb);
    const int warp = xq == 1 && xo != 1;
    const size_t per_block = warp ? 256 / wave : 256, blocks = hcl_ceil_div(len, per_block);
    const size_t most = g->k / (warp ? 8 * wave : 64) > 1 ? g->k / (warp ? 8 * wave : 64) : 1; /* work per thread */
    size_t slices = slices_within_scratch(
        g, hcl_min_size(hcl_min_size(hcl_ceil_div(4 * sms, blocks), most), hcl_known_or(dev->max_groups[1], 65535)));
    const size_t kslice = hcl_ceil_div(g->k, slices);
    slices = hcl_ceil_div(g->k, kslice);
    if (blocks > hcl_known_or(dev->max_groups[0], 65535))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the gemv kernels' %zu blocks exceed the device's grid",
                              blocks);
    int part;
    hcl_status st =
        hcl__plan_gemm_sliced(dev, g, out, warp ? "hcl_gemv_f32_warp" : "hcl_gemv_f32_thread", slices, &part);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, HCL_KPROG_GPU, part, blocks, 256);
    l->grid.y = (uint32_t)slices;
    hcl_klaunch_u64(l, len);
    hcl_klaunch_u64(l, g->k);
    hcl_klaunch_u64(l, kslice);
    hcl_klaunch_mem(l, xs, 0);
    hcl_klaunch_u64(l, xo);
    hcl_klaunch_u64(l, xq);
    hcl_klaunch_mem(l, vs, 0);
    hcl_klaunch_u64(l, vq);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    return HCL_SUCCESS;
}
