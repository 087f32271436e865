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
/* Split-K: when C's tile_m x tile_n tiles are fewer than the device's SMs and k is long (or whenever it can, when
 * `forced`: a split-K variant), two launches: kernel `part_name` (the arguments m, n, k, kslice, A, lda, B, ldb, P; a
 * tile per block, grid (n tiles, m tiles, slices)) writes each slice of k's partial product as floats to the scratch,
 * hcl_gemm_splitk_sum_<C's type> adds them in slice order into C; about per_sm blocks per SM. HCL_ERROR_UNSUPPORTED,
 * with the reason in out->why, when it is not worth it, k does not make two slices, or the program lacks the kernels
 * (the plan then holds one launch again). */
hcl_status hcl__plan_gemm_splitk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t tile_m, size_t tile_n, size_t per_sm, int forced);
/* The part of tiles of tile_m x tile_n over C that lies inside C (1: C is whole tiles). */
double hcl__gemm_tile_fill(const hcl_kgemm *g, size_t tile_m, size_t tile_n);
/* The length of k's slices (a multiple of `align`) for about `slices` of them, their number halved while their partial
 * products (m x n floats each) would not fit in the scratch the sliced plans allow themselves (256 MiB); the number
 * of slices that length makes (the last one short) in *out_slices. Every sliced plan cuts k this one way. */
size_t hcl__gemm_kslice(const hcl_kgemm *g, size_t slices, size_t align, size_t *out_slices);
/* A plan of two launches over k in `slices`: launch 0, the program's kernel `part_name` (its index in *out_part; the
 * caller sets its grid and arguments), writes each slice's partial product (m x n floats, pitch n, slice z at z * m *
 * n floats) to the scratch, and launch 1 (hcl_gemm_splitk_sum_<C's type>) adds the slices in slice order into C with
 * alpha and beta. HCL_ERROR_UNSUPPORTED, in a plan of one launch again, where the program lacks the kernels. */
hcl_status hcl__plan_gemm_sliced(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, const char *part_name,
                                 size_t slices, int *out_part);

/* ---- the few-rows kernels (plan_rows.c) ---- */
/* C of at most 16 rows, or else of at most 16 columns (on swapped operands, C^T = B^T A^T), any element type (TF32
 * computed in float): gemm_rows.cu's kernels over slices of k (hcl__plan_gemm_sliced), about four blocks per SM.
 * HCL_ERROR_UNSUPPORTED, with the reason in out->why, for any other C, a k too short to pay for the second launch
 * (unless the rows variant is forced) or a grid the device does not allow. */
hcl_status hcl__plan_gemm_rows(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out);
/* Whether the plan tries the few-rows kernels before the matrix-unit kernels (f32; TF32 but where more than 4 rows go
 * to a narrow Hopper kernel; 16-bit inputs of at most 4 rows or columns) or only after these decline the call (16-bit
 * inputs of 5 to 16: slower there). */
int hcl__plan_gemm_rows_first(const hcl_kdevice *dev, const hcl_kgemm *g);

/* ---- the parts, one per family (plan_gpu.c, plan_cl.c, plan_host.c), called by hcl_plan_gemm (plan.c) ---- */
hcl_status hcl__plan_gemm_gpu(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);
hcl_status hcl__plan_gemm_cl(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);
hcl_status hcl__plan_gemm_host(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);

/* The GPU family's matrix-unit parts, one per vendor (plan_tc.c: NVIDIA tensor cores; plan_mfma.c: AMD matrix cores):
 * HCL_SUCCESS with the launch written (or the plan re-made with several), HCL_ERROR_UNSUPPORTED when the device or the
 * call is not for the matrix-unit kernels (the SIMT kernels then run it; TF32 then fails). */
hcl_status hcl__plan_gemm_tc(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);
/* Whether hcl__plan_gemm_tc runs the call on a narrow Hopper kernel (plan_tc.c: at most 64 rows on swapped operands,
 * the wgmma variant allowed). */
int hcl__plan_gemm_tc_narrow(const hcl_kdevice *dev, const hcl_kgemm *g);
hcl_status hcl__plan_gemm_mfma(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l);

#endif /* HCL_GEMM_PLAN_FAMILY_H */
