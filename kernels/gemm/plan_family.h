/* The gemm plan's parts, one file per source family (kernels/gemm/plan_<family>.c), and what they share. */
#ifndef HCL_GEMM_PLAN_FAMILY_H
#define HCL_GEMM_PLAN_FAMILY_H

#include "hcl_plan.h"

/* ---- what the parts share (plan_args.c) ---- */
/* The arguments of the GPU and CL f32 gemm kernels, in the order both take them: m, n, k, alpha, A, lda, B, ldb, beta,
 * C, ldc. */
void hcl__gemm_args(hcl_klaunch *l, const hcl_kgemm *g, size_t k, float alpha);
/* "nn", "nt", "tn" or "tt": the transposes of A and B, the suffix of every family's gemm kernel names. */
const char *hcl__gemm_trans_name(const hcl_kgemm *g);
/* The launch of a matrix-unit kernel `name` of the GPU program that takes the f32 kernels' arguments (hcl__gemm_args):
 * a 256-thread block per 128 x 128 tile of C, the grid capped to the device's (the kernels stride over tiles).
 * HCL_ERROR_UNSUPPORTED when the program has no such kernel. */
hcl_status hcl__plan_gemm_tiles128(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l,
                                   const char *name);

/* ---- the plans that slice k (plan_splitk.c) ---- */
/* A plan of two launches over k in `slices`: launch 0, kernel `part_name` (*out_part; the caller sets its grid and
 * arguments), writes each slice's partial product (m x n floats) to the scratch, and launch 1 adds the slices in slice
 * order into C (hcl_gemm_splitk_sum_<C's type>: alpha, beta, C unread at beta 0; the same sum whatever the timing).
 * HCL_ERROR_UNSUPPORTED, in a plan of one launch again, where the program lacks the kernels (an older one). */
hcl_status hcl__plan_gemm_sliced(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t slices, int *out_part);
/* The slice of k for about `slices` slices: a multiple of align, fewer slices while their partial products (m x n
 * floats each) would pass the scratch's limit (256 MiB). The slices are then ceil(k / the slice). */
size_t hcl__gemm_kslice(const hcl_kgemm *g, size_t slices, size_t align);
/* Split-K: when C's tile x tile tiles are fewer than the device's SMs and k is long (or whenever it can, when
 * `forced`: a split-K variant), two launches: kernel `part_name` (the arguments m, n, k, kslice, A, lda, B, ldb, P; a
 * tile per block, grid (n tiles, m tiles, slices)) writes each slice of k's partial product as floats to the scratch,
 * hcl_gemm_splitk_sum_<C's type> adds them in slice order into C; about per_sm blocks per SM. HCL_ERROR_UNSUPPORTED,
 * with the reason in out->why, when it is not worth it, k does not make two slices, or the program lacks the kernels
 * (the plan then holds one launch again). */
hcl_status hcl__plan_gemm_splitk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t tile, size_t per_sm, int forced);
/* C of one row or one column: the gemv kernels (gemm.cu's hcl_gemv_f32_*; the caller checked that A, B and C are f32)
 * over slices of k, about four blocks per SM; HCL_ERROR_UNSUPPORTED, with the reason in out->why, for any other C or
 * a grid the device does not allow. */
hcl_status hcl__plan_gemm_gemv(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out);

/* ---- the parts, one per family (plan_gpu.c, plan_cl.c, plan_host.c), called by hcl_plan_gemm (plan.c) ---- */
hcl_status hcl__plan_gemm_gpu(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);
hcl_status hcl__plan_gemm_cl(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);
hcl_status hcl__plan_gemm_host(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);

/* The GPU family's matrix-unit parts, one per vendor (plan_tc.c: NVIDIA tensor cores; plan_mfma.c: AMD matrix cores):
 * HCL_SUCCESS with the launch written (or the plan re-made with several), HCL_ERROR_UNSUPPORTED when the device or the
 * call is not for the matrix-unit kernels (the SIMT kernels then run it; TF32 then fails). */
hcl_status hcl__plan_gemm_tc(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);
hcl_status hcl__plan_gemm_mfma(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);

#endif /* HCL_GEMM_PLAN_FAMILY_H */
