/* What the gemm plan's parts share (kernels/gemm/plan_family.h): the f32 kernels' argument list, the transposes' suffix
 * of the kernel names, and the launch of a matrix-unit kernel over 128 x 128 tiles. Below every part: it calls none. */
#include "plan_family.h"

void hcl__gemm_args(hcl_klaunch *l, const hcl_kgemm *g, size_t k, float alpha) {
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

const char *hcl__gemm_trans_name(const hcl_kgemm *g) {
    static const char *const names[4] = {"nn", "nt", "tn", "tt"};
    return names[(g->trans_a == HCL_TRANS) * 2 + (g->trans_b == HCL_TRANS)];
}

hcl_status hcl__plan_gemm_tiles128(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l,
                                   const char *name) {
    const int kernel = hcl_kplan_kernel(out, HCL_KPROG_GPU, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel,
                   hcl_min_size(hcl_ceil_div(g->n, 128), hcl_known_or(dev->max_groups[0], 65535)), 256);
    l->grid.y = (uint32_t)hcl_min_size(hcl_ceil_div(g->m, 128), hcl_known_or(dev->max_groups[1], 65535));
    hcl__gemm_args(l, g, g->k, g->alpha);
    return HCL_SUCCESS;
}
