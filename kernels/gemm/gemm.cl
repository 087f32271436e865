/* gemm (OpenCL C 1.2): row-major GEMM with BLAS meaning, C = alpha * op(A) * op(B) + beta * C; A and B in f32, f16 or
 * bf16, C in their type or f32 (hcl_cl_types.h): elements are widened while they are staged, the arithmetic is float
 * and C is rounded once.
 *
 * Tiling: a work-group of WG x WG work-items computes a TILE x TILE tile of C, TILE = 8 * WG (default WG 16:
 * a 128 x 128 tile). Each work-item keeps an 8 x 8 block of accumulators in registers: rows 4*ty .. 4*ty+3
 * and TILE/2 + 4*ty .. +3, columns likewise with tx, so it reads each step's operands from local memory as four
 * float4s (the two halves keep the reads of a warp spread over the banks). K goes in steps of TK = 16: the
 * work-group stages a TILE x 16 tile of op(A) and a 16 x TILE tile of op(B) in local memory, k-major
 * (as[k][row], bs[k][col], rows padded by 4 floats: 16-byte aligned, and transposing stores conflict less).
 * The transposes are resolved while loading, choosing the element order so that consecutive work-items read
 * consecutive addresses of the matrix. With HCL_GEMM_PREFETCH (default 1) the next step's elements are read
 * from global memory into registers while the current step computes.
 * Edges: elements outside the matrices load as 0 and writes are bounds-checked, so any m, n, k works.
 * BLAS rules: beta == 0 writes alpha * AB without reading C (NaN in C does not propagate); the host passes
 * k = 0 and alpha = 0 when k or alpha is 0, so A and B are not read and C = beta * C. */
#include "hcl_cl_types.h"

#ifndef HCL_GEMM_WG
#define HCL_GEMM_WG 16 /* the work-group is WG x WG (a power of two, at least 4) */
#endif
#ifndef HCL_GEMM_PREFETCH
#define HCL_GEMM_PREFETCH 1
#endif
#define HCL_GEMM_TK 16
#define HCL_GEMM_TILE (8 * HCL_GEMM_WG)
#define HCL_GEMM_HALF (4 * HCL_GEMM_WG)
#define HCL_GEMM_THREADS (HCL_GEMM_WG * HCL_GEMM_WG)
#define HCL_GEMM_LOADS (HCL_GEMM_TILE * HCL_GEMM_TK / HCL_GEMM_THREADS) /* elements per work-item per step */
#define HCL_GEMM_LD (HCL_GEMM_TILE + 4)

/* Read this work-item's share of the step at k0 from global memory into registers (0 outside the matrices).
 * Element e of a tile: k-major where k is contiguous in memory (A as m x k, B as n x k), else row-major. */
static void hcl_gemm_fetch(const int ta, const int tb, const int t, const size_t k0, const size_t row0,
                           const size_t col0, const size_t m, const size_t n, const size_t k, __global const void *a,
                           const size_t lda, __global const void *b, const size_t ldb, const int abt, float *ra,
                           float *rb) {
#pragma unroll
    for (int l = 0; l < HCL_GEMM_LOADS; l++) {
        const int e = t + HCL_GEMM_THREADS * l;
        if (!ta) { /* A is m x k */
            const size_t gr = row0 + e / HCL_GEMM_TK, gk = k0 + e % HCL_GEMM_TK;
            ra[l] = (gr < m && gk < k) ? hcl_load(a, gr * lda + gk, abt) : 0.0f;
        } else { /* A is k x m */
            const size_t gr = row0 + e % HCL_GEMM_TILE, gk = k0 + e / HCL_GEMM_TILE;
            ra[l] = (gr < m && gk < k) ? hcl_load(a, gk * lda + gr, abt) : 0.0f;
        }
        if (!tb) { /* B is k x n */
            const size_t gc = col0 + e % HCL_GEMM_TILE, gk = k0 + e / HCL_GEMM_TILE;
            rb[l] = (gc < n && gk < k) ? hcl_load(b, gk * ldb + gc, abt) : 0.0f;
        } else { /* B is n x k */
            const size_t gc = col0 + e / HCL_GEMM_TK, gk = k0 + e % HCL_GEMM_TK;
            rb[l] = (gc < n && gk < k) ? hcl_load(b, gc * ldb + gk, abt) : 0.0f;
        }
    }
}

/* Write the registers of hcl_gemm_fetch into the k-major local tiles. */
static void hcl_gemm_stage(const int ta, const int tb, const int t, const float *ra, const float *rb, __local float *as,
                           __local float *bs) {
#pragma unroll
    for (int l = 0; l < HCL_GEMM_LOADS; l++) {
        const int e = t + HCL_GEMM_THREADS * l;
        if (!ta)
            as[(e % HCL_GEMM_TK) * HCL_GEMM_LD + e / HCL_GEMM_TK] = ra[l];
        else
            as[(e / HCL_GEMM_TILE) * HCL_GEMM_LD + e % HCL_GEMM_TILE] = ra[l];
        if (!tb)
            bs[(e / HCL_GEMM_TILE) * HCL_GEMM_LD + e % HCL_GEMM_TILE] = rb[l];
        else
            bs[(e % HCL_GEMM_TK) * HCL_GEMM_LD + e / HCL_GEMM_TK] = rb[l];
    }
}

static void hcl_gemm_tile(const int ta, const int tb, const size_t m, const size_t n, const size_t k, const float alpha,
                          __global const void *a, const size_t lda, __global const void *b, const size_t ldb,
                          const float beta, __global void *c, const size_t ldc, const int abt, const int ct,
                          __local float *as, __local float *bs) {
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int t = ty * HCL_GEMM_WG + tx;
    const size_t col0 = get_group_id(0) * HCL_GEMM_TILE, row0 = get_group_id(1) * HCL_GEMM_TILE;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

    float ra[HCL_GEMM_LOADS], rb[HCL_GEMM_LOADS];
    if (k > 0) hcl_gemm_fetch(ta, tb, t, 0, row0, col0, m, n, k, a, lda, b, ldb, abt, ra, rb);
    for (size_t k0 = 0; k0 < k; k0 += HCL_GEMM_TK) {
        hcl_gemm_stage(ta, tb, t, ra, rb, as, bs);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (HCL_GEMM_PREFETCH && k0 + HCL_GEMM_TK < k)
            hcl_gemm_fetch(ta, tb, t, k0 + HCL_GEMM_TK, row0, col0, m, n, k, a, lda, b, ldb, abt, ra, rb);
#pragma unroll
        for (int kk = 0; kk < HCL_GEMM_TK; kk++) {
            __local const float4 *a4 = (__local const float4 *)(as + kk * HCL_GEMM_LD);
            __local const float4 *b4 = (__local const float4 *)(bs + kk * HCL_GEMM_LD);
            const float4 a0 = a4[ty], a1 = a4[HCL_GEMM_WG + ty];
            const float4 b0 = b4[tx], b1 = b4[HCL_GEMM_WG + tx];
            const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!HCL_GEMM_PREFETCH && k0 + HCL_GEMM_TK < k)
            hcl_gemm_fetch(ta, tb, t, k0 + HCL_GEMM_TK, row0, col0, m, n, k, a, lda, b, ldb, abt, ra, rb);
    }

#pragma unroll
    for (int i = 0; i < 8; i++) {
        const size_t gr = row0 + (i < 4 ? 4 * ty + i : HCL_GEMM_HALF + 4 * ty + (i - 4));
        if (gr >= m) continue;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const size_t gc = col0 + (j < 4 ? 4 * tx + j : HCL_GEMM_HALF + 4 * tx + (j - 4));
            if (gc >= n) continue;
            const size_t at = gr * ldc + gc;
            float v = alpha * acc[i][j];
            if (beta != 0.0f) v = fma(beta, hcl_load(c, at, ct), v);
            hcl_store(c, at, v, ct);
        }
    }
}

#define HCL_GEMM_KERNEL(NAME, TA, TB, ABT, CT)                                                                         \
    __kernel __attribute__((reqd_work_group_size(HCL_GEMM_WG, HCL_GEMM_WG, 1))) void NAME(                             \
        ulong m, ulong n, ulong k, float alpha, __global const void *a, ulong lda, __global const void *b, ulong ldb,  \
        float beta, __global void *c, ulong ldc) {                                                                     \
        __local float as[HCL_GEMM_TK * HCL_GEMM_LD] __attribute__((aligned(16)));                                      \
        __local float bs[HCL_GEMM_TK * HCL_GEMM_LD] __attribute__((aligned(16)));                                      \
        hcl_gemm_tile(TA, TB, (size_t)m, (size_t)n, (size_t)k, alpha, a, (size_t)lda, b, (size_t)ldb, beta, c,         \
                      (size_t)ldc, ABT, CT, as, bs);                                                                   \
    }
/* The four transposes of one type combination: hcl_gemm_<nn|nt|tn|tt>_<suffix> */
#define HCL_GEMM_KERNELS(SUFFIX, ABT, CT)                                                                              \
    HCL_GEMM_KERNEL(hcl_gemm_nn_##SUFFIX, 0, 0, ABT, CT)                                                               \
    HCL_GEMM_KERNEL(hcl_gemm_nt_##SUFFIX, 0, 1, ABT, CT)                                                               \
    HCL_GEMM_KERNEL(hcl_gemm_tn_##SUFFIX, 1, 0, ABT, CT)                                                               \
    HCL_GEMM_KERNEL(hcl_gemm_tt_##SUFFIX, 1, 1, ABT, CT)

/* Every type combination, as X(suffix, A's and B's type, C's type): the tiled and the rows kernels are made for each */
#define HCL_GEMM_TYPES(X)                                                                                              \
    X(f32, HCL_CL_F32, HCL_CL_F32)                                                                                     \
    X(f16, HCL_CL_F16, HCL_CL_F16)                                                                                     \
    X(f16_f32, HCL_CL_F16, HCL_CL_F32)                                                                                 \
    X(bf16, HCL_CL_BF16, HCL_CL_BF16)                                                                                  \
    X(bf16_f32, HCL_CL_BF16, HCL_CL_F32)
HCL_GEMM_TYPES(HCL_GEMM_KERNELS)

/* ---- C of few rows (m <= 16; the decode shapes, where the whole cost is reading B once): hcl_gemm_rows<MR>_<n|t>_<
 * suffix>, MR 4 or 16 the rows computed at once (rows from m on zeros). A work-group of HCL_GEMM_ROWS_WG work-items,
 * a column of C each; op(A)'s rows staged in local memory (as float, value q of row r at q * MR + r) in chunks of
 * HCL_GEMM_ROWS_KC values of k; each work-item reads its column of op(B) once (n: B's rows run along C's columns, the
 * work-items' loads consecutive; t: along k, PyTorch's W[n][k]) and sums its products in k order in float. ta: A is
 * stored transposed (k x m). BLAS rules as above (k = 0 and alpha = 0 from the host: C = beta * C). ---- */
#define HCL_GEMM_ROWS_WG 64
#define HCL_GEMM_ROWS_KC 256
static void hcl_gemm_rows(const int MR, const int tb, const size_t m, const size_t n, const size_t k, const float alpha,
                          __global const void *a, const size_t lda, __global const void *b, const size_t ldb,
                          const float beta, __global void *c, const size_t ldc, const int ta, const int abt,
                          const int ct, __local float *as) {
    const size_t j = get_global_id(0);
    const int t = (int)get_local_id(0);
    float acc[16];
    for (int r = 0; r < MR; r++) acc[r] = 0.0f;
    for (size_t k0 = 0; k0 < k; k0 += HCL_GEMM_ROWS_KC) {
        const int len = k - k0 < HCL_GEMM_ROWS_KC ? (int)(k - k0) : HCL_GEMM_ROWS_KC;
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous chunk's readers are done */
        for (int e = t; e < MR * HCL_GEMM_ROWS_KC; e += HCL_GEMM_ROWS_WG) {
            const int q = e / MR, r = e % MR;
            as[e] = (size_t)r < m && q < len ? hcl_load(a, ta ? (k0 + q) * lda + r : r * lda + k0 + q, abt) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (j < n)
            for (int q = 0; q < len; q++) {
                const float bv = hcl_load(b, tb ? j * ldb + k0 + q : (k0 + q) * ldb + j, abt);
                for (int r = 0; r < MR; r++) acc[r] = fma(as[q * MR + r], bv, acc[r]);
            }
    }
    if (j >= n) return;
    for (int r = 0; r < MR; r++) {
        if ((size_t)r >= m) break;
        const size_t at = r * ldc + j;
        float v = alpha * acc[r];
        if (beta != 0.0f) v = fma(beta, hcl_load(c, at, ct), v);
        hcl_store(c, at, v, ct);
    }
}

#define HCL_GEMM_ROWS_KERNEL(NAME, MR, TB, ABT, CT)                                                                    \
    __kernel __attribute__((reqd_work_group_size(HCL_GEMM_ROWS_WG, 1, 1))) void NAME(                                  \
        ulong m, ulong n, ulong k, float alpha, __global const void *a, ulong lda, __global const void *b, ulong ldb,  \
        float beta, __global void *c, ulong ldc, ulong ta) {                                                           \
        __local float as[MR * HCL_GEMM_ROWS_KC];                                                                       \
        hcl_gemm_rows(MR, TB, (size_t)m, (size_t)n, (size_t)k, alpha, a, (size_t)lda, b, (size_t)ldb, beta, c,         \
                      (size_t)ldc, ta != 0, ABT, CT, as);                                                              \
    }
/* The rows kernels of one type combination: hcl_gemm_rows<4|16>_<n|t>_<suffix> */
#define HCL_GEMM_ROWS_KERNELS(SUFFIX, ABT, CT)                                                                         \
    HCL_GEMM_ROWS_KERNEL(hcl_gemm_rows4_n_##SUFFIX, 4, 0, ABT, CT)                                                     \
    HCL_GEMM_ROWS_KERNEL(hcl_gemm_rows4_t_##SUFFIX, 4, 1, ABT, CT)                                                     \
    HCL_GEMM_ROWS_KERNEL(hcl_gemm_rows16_n_##SUFFIX, 16, 0, ABT, CT)                                                   \
    HCL_GEMM_ROWS_KERNEL(hcl_gemm_rows16_t_##SUFFIX, 16, 1, ABT, CT)

HCL_GEMM_TYPES(HCL_GEMM_ROWS_KERNELS)
