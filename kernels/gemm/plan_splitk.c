/* The gemm plans that cut k into slices (kernels/gemm/plan_family.h): each slice's partial product goes to the scratch
 * and a second launch sums the slices into C. Split-K for the SIMT kernels (plan_gpu.c) and the mma.sync kernels
 * (plan_tc.c); the two launches and the scratch's size are also the few-rows kernels' (plan_rows.c). */
#include "plan_family.h"

#define SPLITK_MAX_BYTES ((size_t)256 << 20) /* scratch for the partial products at most */
#define SPLITK_SUM_THREADS 256               /* the sum kernel's blocks (gemm.cu) */
#define SPLITK_SUM_MAX_GROUPS 32             /* threads an element at most (8 elements a block: 32-byte runs) */

double hcl__gemm_tile_fill(const hcl_kgemm *g, size_t tile_m, size_t tile_n) {
    return (double)(g->m * g->n) / (double)(hcl_ceil_div(g->m, tile_m) * tile_m * hcl_ceil_div(g->n, tile_n) * tile_n);
}

/* Fewer slices while their partial products (m x n floats each) would not fit in SPLITK_MAX_BYTES; then k over that
 * many slices rounded up to `align`, and the slices that makes counted again. */
size_t hcl__gemm_kslice(const hcl_kgemm *g, size_t slices, size_t align, size_t *out_slices) {
    while (slices > 1 && slices * g->m * g->n * sizeof(float) > SPLITK_MAX_BYTES) slices /= 2;
    const size_t kslice = hcl_ceil_div(hcl_ceil_div(g->k, slices ? slices : 1), align) * align;
    *out_slices = hcl_ceil_div(g->k, kslice);
    return kslice;
}

/* A plan of two launches over k in `slices`: launch 0, kernel `part_name` (*out_part; the caller sets its grid and
 * arguments), writes each slice's partial product (m x n floats) to the scratch, and launch 1 adds the slices in slice
 * order into C (hcl_gemm_splitk_sum_<C's type>: alpha, beta, C unread at beta 0; the same sum whatever the timing).
 * HCL_ERROR_UNSUPPORTED, in a plan of one launch again, where the program lacks the kernels (an older one). */
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
    const size_t sms = dev->compute_units ? dev->compute_units : 1, total = g->m * g->n;
    /* threads an element of C (the sum kernel's groups): doubled while the slices allow and the blocks stay within
     * two per SM (few elements over many slices: 1 x 1024 over 64 slices, 5.5 us on an H200 with one thread each) */
    size_t groups = 1;
    while (groups < SPLITK_SUM_MAX_GROUPS && 2 * groups <= slices &&
           hcl_ceil_div(total * 2 * groups, SPLITK_SUM_THREADS) <= 2 * sms)
        groups *= 2;
    hcl_klaunch *l = &out->launch[1];
    hcl_klaunch_1d(l, HCL_KPROG_GPU, sum, hcl_min_size(hcl_ceil_div(total * groups, SPLITK_SUM_THREADS), 32 * sms),
                   SPLITK_SUM_THREADS);
    l->waits_in_device = 1; /* the sum waits for the partial products in the device: it may start early */
    hcl_klaunch_u64(l, g->m);
    hcl_klaunch_u64(l, g->n);
    hcl_klaunch_u64(l, slices);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    hcl_klaunch_f32(l, g->alpha);
    hcl_klaunch_f32(l, g->beta);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, g->ldc);
    hcl_klaunch_u64(l, groups);
    *out_part = part;
    return HCL_SUCCESS;
}

/* The number of slices, 1 to max, for `tiles` tiles on `slots` blocks at once that takes the least time when every
 * block does the same work (k / slices) and b blocks take ceil(b / slots) rounds: not a last round nearly empty (64
 * tiles on 264 slots: 4 slices, one round, rather than 5, two rounds, the second a fifth full). The fewest of equals. */
static size_t wave_slices(size_t tiles, size_t slots, size_t max) {
    size_t best = 1, best_rounds = hcl_ceil_div(tiles, slots);
    for (size_t s = 2; s <= max; s++) {
        const size_t rounds = hcl_ceil_div(tiles * s, slots);
        if (rounds * best < best_rounds * s) best = s, best_rounds = rounds; /* rounds / s < best_rounds / best */
    }
    return best;
}

/* Split-K: when C's tiles are fewer than the SMs and k is long (a few rows or columns, k far above m and n), k is cut
 * into slices (hcl__plan_gemm_sliced) so that about `per_sm` blocks per SM work at once. Forced (a split-K variant),
 * whenever k makes two slices of 64 or more and they fit the scratch and the grid. */
#define SPLITK_MIN_SLICE 256 /* k a slice takes at least (unless forced) */
hcl_status hcl__plan_gemm_splitk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t tile_m, size_t tile_n, size_t per_sm, int forced) {
    const size_t sms = dev->compute_units ? dev->compute_units : 1;
    const size_t tiles = hcl_ceil_div(g->m, tile_m) * hcl_ceil_div(g->n, tile_n);
    if (!forced && (tiles >= sms || g->k < 4 * SPLITK_MIN_SLICE))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "split-K is not worth it here");
    size_t slices =
        wave_slices(tiles, per_sm * sms, hcl_min_size(hcl_ceil_div(per_sm * sms, tiles), g->k / SPLITK_MIN_SLICE));
    if (forced && slices < 2) slices = 2;
    const size_t kslice =
        hcl__gemm_kslice(g, hcl_min_size(slices, hcl_known_or(dev->max_groups[2], 65535)), 64, &slices);
    if (slices < 2)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "split-K needs two slices of k of 64 or more within %zu MiB of scratch (m %zu, n %zu, "
                              "k %zu)",
                              SPLITK_MAX_BYTES >> 20, g->m, g->n, g->k);
    int part;
    hcl_status st = hcl__plan_gemm_sliced(dev, g, out, part_name, slices, &part);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, HCL_KPROG_GPU, part, hcl_ceil_div(g->n, tile_n), 256);
    l->grid.y = (uint32_t)hcl_ceil_div(g->m, tile_m);
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
