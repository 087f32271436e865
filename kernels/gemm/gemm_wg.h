/* The shape of the Hopper gemm (kernels/gemm/gemm_wg.cu), shared by the kernel and its plan (kernels/gemm/plan_tc.c).
 * Plain #defines: the file is C for the plan and part of the one CUDA text of the kernels. */
#ifndef HCL_GEMM_WG_H
#define HCL_GEMM_WG_H

#define HCL_WG_THREADS 384 /* three warpgroups: one loads (TMA), two multiply */
#define HCL_WG_BM 128      /* a block's tile of C: BM x BN, each multiplying warpgroup 64 x BN */
#define HCL_WG_BN 256
#define HCL_WG_BN_NARROW 64 /* the narrow tile, 128 x 64: over C^T for few rows (hcl_gemm_wg_*_n64), over C (wg64) */
#define HCL_WG_ROW                                                                                                     \
    128 /* K per stage, in bytes of each row: one row of the 128-byte swizzle, 64 16-bit elements or 32 floats */
#define HCL_WG_STAGES 4
#define HCL_WG_STAGE_BYTES ((HCL_WG_BM + HCL_WG_BN) * HCL_WG_ROW)
/* a consumer warp's rows for storing C (gemm_wg.cu): 8 rows of 64 values of up to 4 bytes, their pitch 64 + 8 values
 * (no bank conflicts writing the fragments or reading the rows) */
#define HCL_WG_EPI_PITCH 72
#define HCL_WG_EPI_WARP_BYTES (8 * HCL_WG_EPI_PITCH * 4)
/* dynamic shared memory of a block: the stages, the 8 consumer warps' rows for C, plus slack to align the stages to
 * 1024 bytes (the swizzle's period) */
#define HCL_WG_SMEM_BYTES (HCL_WG_STAGES * HCL_WG_STAGE_BYTES + 8 * HCL_WG_EPI_WARP_BYTES + 1024)
#define HCL_WG_GROUP_M 16 /* tiles are visited in groups of 16 tile rows, column by column (L2 reuse) */

#endif /* HCL_GEMM_WG_H */
