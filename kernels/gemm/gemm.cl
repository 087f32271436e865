/* gemm (OpenCL C 1.2): row-major SGEMM with BLAS meaning, C = alpha * op(A) * op(B) + beta * C.
 *
 * Tiling: a work-group of 16 x 16 work-items computes a 64 x 64 tile of C; each work-item holds a 4 x 4 block
 * of accumulators in registers, at rows ty + 16*i and columns tx + 16*j (i, j < 4), so that reads of the local
 * tiles are conflict-free and writes of C are coalesced. The K dimension goes in steps of 16: each step loads a
 * 64 x 16 tile of op(A) and a 16 x 64 tile of op(B) into local memory, stored k-major (As[k][row], Bs[k][col]);
 * the transposes are resolved while loading, with the read pattern chosen so that consecutive work-items read
 * consecutive addresses of the matrix in memory. A pad column keeps the transposing stores conflict-free.
 * Edges: elements outside the matrices load as 0 and writes are bounds-checked, so any m, n, k works.
 * BLAS rules: beta == 0 writes alpha * AB without reading C (NaN in C does not propagate); the host passes
 * k = 0 and alpha = 0 when k or alpha is 0, so A and B are not read and C = beta * C. */

#define HCL_GEMM_TILE 64 /* rows and columns of C per work-group */
#define HCL_GEMM_TK 16   /* K per step */
#define HCL_GEMM_WG 16   /* work-group is HCL_GEMM_WG x HCL_GEMM_WG */
#define HCL_GEMM_WPT 4   /* rows and columns per work-item: HCL_GEMM_TILE / HCL_GEMM_WG */
#define HCL_GEMM_LD (HCL_GEMM_TILE + 1)

static void hcl_gemm_tile(const int ta, const int tb, const size_t m, const size_t n, const size_t k,
                          const float alpha, __global const float *a, const size_t lda, __global const float *b,
                          const size_t ldb, const float beta, __global float *c, const size_t ldc,
                          __local float (*as)[HCL_GEMM_LD], __local float (*bs)[HCL_GEMM_LD]) {
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int t = ty * HCL_GEMM_WG + tx;
    const size_t col0 = get_group_id(0) * HCL_GEMM_TILE;
    const size_t row0 = get_group_id(1) * HCL_GEMM_TILE;

    float acc[HCL_GEMM_WPT][HCL_GEMM_WPT];
    for (int i = 0; i < HCL_GEMM_WPT; i++)
        for (int j = 0; j < HCL_GEMM_WPT; j++) acc[i][j] = 0.0f;

    for (size_t k0 = 0; k0 < k; k0 += HCL_GEMM_TK) {
        /* op(A) tile: 64 rows x 16 k. */
        if (!ta) { /* A is m x k: k is contiguous */
            const int kk = t % HCL_GEMM_TK;
            const size_t gk = k0 + kk;
            for (int l = 0; l < HCL_GEMM_WPT; l++) {
                const int r = t / HCL_GEMM_TK + 16 * l;
                const size_t gr = row0 + r;
                as[kk][r] = (gr < m && gk < k) ? a[gr * lda + gk] : 0.0f;
            }
        } else { /* A is k x m: m is contiguous */
            const int r = t % HCL_GEMM_TILE;
            const size_t gr = row0 + r;
            for (int l = 0; l < HCL_GEMM_WPT; l++) {
                const int kk = t / HCL_GEMM_TILE + 4 * l;
                const size_t gk = k0 + kk;
                as[kk][r] = (gr < m && gk < k) ? a[gk * lda + gr] : 0.0f;
            }
        }
        /* op(B) tile: 16 k x 64 columns. */
        if (!tb) { /* B is k x n: n is contiguous */
            const int cc = t % HCL_GEMM_TILE;
            const size_t gc = col0 + cc;
            for (int l = 0; l < HCL_GEMM_WPT; l++) {
                const int kk = t / HCL_GEMM_TILE + 4 * l;
                const size_t gk = k0 + kk;
                bs[kk][cc] = (gc < n && gk < k) ? b[gk * ldb + gc] : 0.0f;
            }
        } else { /* B is n x k: k is contiguous */
            const int kk = t % HCL_GEMM_TK;
            const size_t gk = k0 + kk;
            for (int l = 0; l < HCL_GEMM_WPT; l++) {
                const int cc = t / HCL_GEMM_TK + 16 * l;
                const size_t gc = col0 + cc;
                bs[kk][cc] = (gc < n && gk < k) ? b[gc * ldb + gk] : 0.0f;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
        for (int kk = 0; kk < HCL_GEMM_TK; kk++) {
            float ar[HCL_GEMM_WPT], br[HCL_GEMM_WPT];
#pragma unroll
            for (int i = 0; i < HCL_GEMM_WPT; i++) ar[i] = as[kk][ty + HCL_GEMM_WG * i];
#pragma unroll
            for (int j = 0; j < HCL_GEMM_WPT; j++) br[j] = bs[kk][tx + HCL_GEMM_WG * j];
#pragma unroll
            for (int i = 0; i < HCL_GEMM_WPT; i++)
#pragma unroll
                for (int j = 0; j < HCL_GEMM_WPT; j++) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < HCL_GEMM_WPT; i++) {
        const size_t gr = row0 + ty + HCL_GEMM_WG * i;
        if (gr >= m) continue;
        for (int j = 0; j < HCL_GEMM_WPT; j++) {
            const size_t gc = col0 + tx + HCL_GEMM_WG * j;
            if (gc >= n) continue;
            __global float *p = c + gr * ldc + gc;
            float v = alpha * acc[i][j];
            if (beta != 0.0f) v = fma(beta, *p, v);
            *p = v;
        }
    }
}

#define HCL_GEMM_KERNEL(NAME, TA, TB)                                                                      \
    __kernel __attribute__((reqd_work_group_size(HCL_GEMM_WG, HCL_GEMM_WG, 1))) void NAME(                \
        ulong m, ulong n, ulong k, float alpha, __global const float *a, ulong lda, __global const float *b, \
        ulong ldb, float beta, __global float *c, ulong ldc) {                                             \
        __local float as[HCL_GEMM_TK][HCL_GEMM_LD];                                                        \
        __local float bs[HCL_GEMM_TK][HCL_GEMM_LD];                                                        \
        hcl_gemm_tile(TA, TB, (size_t)m, (size_t)n, (size_t)k, alpha, a, (size_t)lda, b, (size_t)ldb, beta, c, \
                      (size_t)ldc, as, bs);                                                                \
    }

HCL_GEMM_KERNEL(hcl_gemm_nn_f32, 0, 0)
HCL_GEMM_KERNEL(hcl_gemm_nt_f32, 0, 1)
HCL_GEMM_KERNEL(hcl_gemm_tn_f32, 1, 0)
HCL_GEMM_KERNEL(hcl_gemm_tt_f32, 1, 1)
