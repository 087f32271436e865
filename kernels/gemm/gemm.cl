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
            hcl_store_scaled(c, gr * ldc + gc, acc[i][j], alpha, beta, ct);
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

/* values of k of op(A)'s rows the few-rows kernels stage at a time */
#define HCL_GEMM_ROWS_KC 256
/* A family's few-rows kernels of one type combination: KERNEL(NAME, MR, TB, ABT, CT) for BASE<4|16>_<n|t>_<suffix> */
#define HCL_GEMM_FEW_ROWS(KERNEL, BASE, SUFFIX, ABT, CT)                                                               \
    KERNEL(BASE##4_n_##SUFFIX, 4, 0, ABT, CT)                                                                          \
    KERNEL(BASE##4_t_##SUFFIX, 4, 1, ABT, CT)                                                                          \
    KERNEL(BASE##16_n_##SUFFIX, 16, 0, ABT, CT)                                                                        \
    KERNEL(BASE##16_t_##SUFFIX, 16, 1, ABT, CT)
#if HCL_GEMM_WG == 8 /* the CPU's program (kernels/gemm/plan_cl.c) */
/* ---- C of few rows (m <= 16; the decode shapes, where the whole cost is reading B once) on a CPU (in the program of
 * 8 x 8 work-groups, which CPUs take): hcl_gemm_rows<MR>_<n|t>_<suffix>, MR 4 or 16 the rows computed at once (rows
 * from m on zeros). A work-group of HCL_GEMM_ROWS_WG work-items, a column of C each; op(A)'s rows staged in local
 * memory (as float, value q of row r at q * MR + r) in chunks of HCL_GEMM_ROWS_KC values of k; each work-item reads its
 * column of op(B) once (n: B's rows run along C's columns, the work-items' loads consecutive; t: along k, PyTorch's
 * W[n][k]) and sums its products in k order in float. ta: A is stored transposed (k x m). BLAS rules as above (k = 0
 * and alpha = 0 from the host: C = beta * C). ---- */
#define HCL_GEMM_ROWS_WG 64
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
        hcl_store_scaled(c, r * ldc + j, acc[r], alpha, beta, ct);
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
#define HCL_GEMM_ROWS_KERNELS(SUFFIX, ABT, CT) HCL_GEMM_FEW_ROWS(HCL_GEMM_ROWS_KERNEL, hcl_gemm_rows, SUFFIX, ABT, CT)

HCL_GEMM_TYPES(HCL_GEMM_ROWS_KERNELS)
#endif

#if HCL_GEMM_WG == 16 /* the GPU's program */

/* ---- C of few rows on a GPU (in the program of 16 x 16 work-groups): hcl_gemm_rowsk<MR>_<n|t>_<suffix>, MR (4 or 16)
 * rows at once, the rows kernels over slices of k. A work-group of 256 work-items per range of C's columns (grid x)
 * and slice of k (grid y, `kslice` values of k a slice, a multiple of 64), so that a decode call of few columns'
 * ranges still fills a GPU; each work-item reads 4 consecutive values of op(B) at once (one 16- or 8-byte load where
 * B's base and ldb allow, else element by element), several loads in flight:
 *   n (B is k x n, its rows along C's columns): 16 column lanes of 4 columns (64 columns a group) x 16 k lanes, lane
 *     group kl taking the values of k kl, kl + 16, ... of the slice; a warp's loads are two rows of 64 columns;
 *   t (B is n x k, PyTorch's W[n][k]): 16 lanes a column, each lane 4 consecutive values of k of every 64, 16
 *     columns a group; a warp's loads are two columns' 64 consecutive values.
 * op(A)'s rows are staged in local memory as floats in chunks of HCL_GEMM_ROWS_KC, read as vectors of 4.
 * The lanes' sums of a column meet in local memory (in lane order). With one slice the group writes C; else it writes
 * its MR x columns floats to the scratch (`ws`: a ticket a range of columns, padded to 64 words, then the slices'
 * partials, slice-major, MR rows of the launch's columns each),
 * takes the range's ticket, and the last group of the range adds the slices in slice order (the same bits every
 * run), writes C and puts the partials and the ticket back to 0 (the host gives the scratch zeroed). BLAS rules as
 * above. ---- */
#define HCL_GEMM_ROWSK_WG 256
#define HCL_GEMM_ROWSK_LANES 16 /* the k lanes of a range of 4 columns (n) or of a column (t) */
/* the loads a lane issues before it multiplies (t: a chunk's, HCL_GEMM_ROWS_KC / (4 * lanes)). H200, NVIDIA's OpenCL,
 * B's bytes a second, f16 1 x 4096 x 4096: 8 loads of 16-bit values (n) 654 GB/s against 1036 with 4; t over lanes of 8
 * and 8 loads 603 against 722 over lanes of 16 and 4 loads (runs apart); 8 loads of floats (n) gained 15% at 4 x 14336
 * x 4096 and lost 8-13% at 1 and 4 x 4096 x 4096 */
#define HCL_GEMM_ROWSK_UNROLL 4
/* hcl_gemm_rowsk4w_n_<16-bit suffix>, the "wide" n kernels of 16-bit B at 4 rows, laid out as CUDA's rows kernels
 * (gemm_rows.cu): a work-item holds 8 columns (one 16-byte load), 32 column lanes x 8 k lanes (256 columns a group),
 * op(A) staged HCL_GEMM_ROWSK_WIDE_KC values of k at a time, 8 loads in flight a work-item. A quarter of the groups
 * of the others for the same columns, so the plan takes them where those still fill the GPU (plan_cl.c). */
#define HCL_GEMM_ROWSK_WIDE_KC 1024

/* Four consecutive values of B from element e: one load when vec and all four are there (avail of them), else
 * element by element, 0 past avail */
static float4 hcl_gemm_rowsk_b4(__global const void *b, const size_t e, const int vec, const size_t avail,
                                const int abt) {
    if (vec && avail >= 4) return hcl_load4(b, e / 4, abt);
    float4 v = (float4)(0.0f);
    if (avail > 0) v.x = hcl_load(b, e, abt);
    if (avail > 1) v.y = hcl_load(b, e + 1, abt);
    if (avail > 2) v.z = hcl_load(b, e + 2, abt);
    if (avail > 3) v.w = hcl_load(b, e + 3, abt);
    return v;
}

/* Eight consecutive values of B from element e: one 16-byte load when vec and all eight are there (16-bit types), else
 * element by element, 0 past avail */
static float8 hcl_gemm_rowsk_b8(__global const void *b, const size_t e, const int vec, const size_t avail,
                                const int abt) {
    if (vec && avail >= 8) return hcl_load8(b, e / 8, abt);
    float v[8];
    for (int i = 0; i < 8; i++) v[i] = (size_t)i < avail ? hcl_load(b, e + i, abt) : 0.0f;
    return vload8(0, v);
}

/* acc[i] += x v[i], i < 4 */
static void hcl_gemm_rowsk_fma4(float *acc, const float x, const float4 v) {
    acc[0] = fma(x, v.x, acc[0]);
    acc[1] = fma(x, v.y, acc[1]);
    acc[2] = fma(x, v.z, acc[2]);
    acc[3] = fma(x, v.w, acc[3]);
}

/* The group's result for row r and column j of C (v: op(A) op(B) over its slice): into C, or the slice's partial (the
 * complement of the float's bits, NaN made the one quiet NaN: never 0, see the last group's reads). */
static void hcl_gemm_rowsk_put(const size_t r, const size_t j, const float v, const size_t slices, const size_t slice,
                               const size_t npad, const int MR, const float alpha, const float beta, __global void *c,
                               const size_t ldc, const int ct, __global volatile uint *part) {
    if (slices > 1) {
        part[(slice * MR + r) * npad + j] = ~as_uint(isnan(v) ? NAN : v);
        return;
    }
    hcl_store_scaled(c, r * ldc + j, v, alpha, beta, ct);
}

static void hcl_gemm_rowsk(const int MR, const int tb, const size_t m, const size_t n, const size_t k,
                           const float alpha, __global const void *a, const size_t lda, __global const void *b,
                           const size_t ldb, const float beta, __global void *c, const size_t ldc, const int ta,
                           const size_t kslice, __global volatile uint *ws, const int abt, const int ct, const int wide,
                           __local float *as, __local int *is_last) {
    const int KC = wide ? HCL_GEMM_ROWSK_WIDE_KC : HCL_GEMM_ROWS_KC;
    const int t = (int)get_local_id(0), U = HCL_GEMM_ROWSK_UNROLL, L = wide ? 8 : HCL_GEMM_ROWSK_LANES;
    const int CW = wide ? 8 : 4, CL = HCL_GEMM_ROWSK_WG / L;         /* n: a work-item's columns; the column lanes */
    const int lane = tb ? t % L : t / CL, col = tb ? t / L : t % CL; /* the k lane; the column (t) or range of CW (n) */
    const int ncols = tb ? CL : CW * CL;                             /* a group's */
    const size_t j0 = get_group_id(0) * ncols, slice = get_group_id(1), slices = get_num_groups(1);
    const size_t j = j0 + (tb ? (size_t)col : (size_t)(CW * col)); /* the work-item's (first) column */
    const size_t k0 = slice * kslice, k1 = k - k0 < kslice ? k : k0 + kslice;
    const size_t es = abt == HCL_CL_F32 ? 4 : 2;
    const int vec = ((size_t)b % (CW * es)) == 0 && ldb % CW == 0;
    /* n: acc[r * CW + e] row r, column j + e; t: acc[r] row r */
    float acc[64];
    for (int i = 0; i < CW * MR; i++) acc[i] = 0.0f;
    for (size_t kc = k0; kc < k1; kc += KC) {
        const int len = k1 - kc < (size_t)KC ? (int)(k1 - kc) : KC;
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous chunk's readers are done */
        /* op(A)'s chunk as floats: n, value q of row r at q * MR + r (a value of k's MR rows in vectors of 4); t, at
         * r * KC + q (a row's 4 consecutive values of k in a vector) */
        for (int e = t; e < MR * KC; e += HCL_GEMM_ROWSK_WG) {
            const int q = tb ? e % KC : e / MR, r = tb ? e / KC : e % MR;
            as[e] = (size_t)r < m && q < len ? hcl_load(a, ta ? (kc + q) * lda + r : r * lda + kc + q, abt) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (j >= n) continue;
        if (wide) { /* batches of 8 loads of 8 columns (k values q = lane, lane + 8, ...), then their products */
            for (int q0 = lane; q0 < len; q0 += 8 * L) {
                float8 v[8];
#pragma unroll
                for (int u = 0; u < 8; u++) {
                    const int q = q0 + u * L;
                    v[u] = q >= len ? (float8)(0.0f) : hcl_gemm_rowsk_b8(b, (kc + q) * ldb + j, vec, n - j, abt);
                }
#pragma unroll
                for (int u = 0; u < 8; u++) {
                    const int q = q0 + u * L;
                    if (q >= len) break;
                    const float4 x = vload4(0, as + q * 4);
                    const float xr[4] = {x.x, x.y, x.z, x.w};
                    for (int r = 0; r < 4; r++) {
                        hcl_gemm_rowsk_fma4(acc + 8 * r, xr[r], v[u].lo);
                        hcl_gemm_rowsk_fma4(acc + 8 * r + 4, xr[r], v[u].hi);
                    }
                }
            }
            continue;
        }
        /* batches of U loads (k values q = lane, lane + 16, ... (n) or runs of 4 from 4 * lane of every 64 (t)),
         * then their products */
        const int step = tb ? 4 * L : L, first = tb ? 4 * lane : lane;
        for (int q0 = first; q0 < len; q0 += step * U) {
            float4 v[HCL_GEMM_ROWSK_UNROLL];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int q = q0 + u * step;
                v[u] = q >= len ? (float4)(0.0f)
                       : tb     ? hcl_gemm_rowsk_b4(b, j * ldb + kc + q, vec, (size_t)(len - q), abt)
                                : hcl_gemm_rowsk_b4(b, (kc + q) * ldb + j, vec, n - j, abt);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int q = q0 + u * step;
                if (q >= len) break;
                if (tb) {
                    for (int r = 0; r < MR; r++) {
                        const float4 x = vload4(0, as + r * KC + q);
                        acc[r] += fma(x.x, v[u].x, x.y * v[u].y) + fma(x.z, v[u].z, x.w * v[u].w);
                    }
                } else {
                    for (int h = 0; h < MR; h += 4) {
                        const float4 x = vload4(0, as + q * MR + h);
                        const float xr[4] = {x.x, x.y, x.z, x.w};
                        for (int i = 0; i < 4; i++) {
                            const int r = h + i;
                            acc[4 * r] = fma(xr[i], v[u].x, acc[4 * r]);
                            acc[4 * r + 1] = fma(xr[i], v[u].y, acc[4 * r + 1]);
                            acc[4 * r + 2] = fma(xr[i], v[u].z, acc[4 * r + 2]);
                            acc[4 * r + 3] = fma(xr[i], v[u].w, acc[4 * r + 3]);
                        }
                    }
                }
            }
        }
    }
    /* the lanes' sums of each output meet in local memory (reusing `as`: MR x 256 floats), row by row (n: 4 columns a
     * work-item) or at once (t: a float a row), in lane order */
    const size_t npad = get_num_groups(0) * (size_t)ncols;
    /* the tickets, a word a range of columns (in whole 64-word lines), then the partials */
    __global volatile uint *part = ws + (get_num_groups(0) + 63) / 64 * 64;
    const int rows = m < (size_t)MR ? (int)m : MR;
    if (!tb) {
        for (int r = 0; r < rows; r++)
            for (int h = 0; h < CW; h += 4) { /* 4 of a work-item's columns at a time */
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int e = 0; e < 4; e++) as[e * HCL_GEMM_ROWSK_WG + t] = acc[CW * r + h + e];
                barrier(CLK_LOCAL_MEM_FENCE);
                if (t < 4 * CL) { /* column range t / 4, its column h + t % 4 */
                    const size_t jj = j0 + (size_t)(CW * (t / 4) + h + t % 4);
                    float s = 0.0f;
                    for (int l = 0; l < L; l++) s += as[(t % 4) * HCL_GEMM_ROWSK_WG + l * CL + t / 4];
                    if (jj < n) hcl_gemm_rowsk_put(r, jj, s, slices, slice, npad, MR, alpha, beta, c, ldc, ct, part);
                }
            }
    } else {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int r = 0; r < MR; r++) as[r * HCL_GEMM_ROWSK_WG + t] = acc[r];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = t; e < rows * ncols; e += HCL_GEMM_ROWSK_WG) { /* output row e / ncols, column j0 + e % ncols */
            const int r = e / ncols, cc = e % ncols;
            float s = 0.0f;
            for (int l = 0; l < L; l++) s += as[r * HCL_GEMM_ROWSK_WG + cc * L + l];
            if (j0 + cc < n) hcl_gemm_rowsk_put(r, j0 + cc, s, slices, slice, npad, MR, alpha, beta, c, ldc, ct, part);
        }
    }
    if (slices == 1) return;
    /* the slices' partials of this range of columns meet: the last group to take the range's ticket adds them */
    barrier(CLK_GLOBAL_MEM_FENCE); /* the partials are out before the ticket is taken */
    if (t == 0) *is_last = atomic_inc(ws + get_group_id(0)) == (uint)slices - 1u;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!*is_last) return;
    /* a partial is never 0, so the last group waits for each word to be written rather than trusting the order in
     * which other groups' stores arrive (the ticket says they were made, not that they are visible here; on NVIDIA's
     * OpenCL the sum read a stale zero without this: f16 2 x 259 x 4099 nt, H200) */
    for (int e = t; e < rows * ncols; e += HCL_GEMM_ROWSK_WG) {
        const int r = e / ncols;
        const size_t jj = j0 + (size_t)(e % ncols);
        if (jj >= n) continue;
        float s = 0.0f;
        for (size_t sl = 0; sl < slices; sl++) {
            const size_t at = (sl * MR + r) * npad + jj;
            uint w;
            while ((w = part[at]) == 0u) {
            }
            s += as_float(~w);
            part[at] = 0u; /* the scratch is left as zeros, as it came */
        }
        hcl_store_scaled(c, r * ldc + jj, s, alpha, beta, ct);
    }
    if (t == 0) ws[get_group_id(0)] = 0u;
}

#define HCL_GEMM_ROWSK_KERNEL_OF(NAME, MR, TB, ABT, CT, WIDE, KC)                                                      \
    __kernel __attribute__((reqd_work_group_size(HCL_GEMM_ROWSK_WG, 1, 1))) void NAME(                                 \
        ulong m, ulong n, ulong k, float alpha, __global const void *a, ulong lda, __global const void *b, ulong ldb,  \
        float beta, __global void *c, ulong ldc, ulong ta, ulong kslice, __global volatile uint *ws) {                 \
        __local float as[(MR) * (KC)] __attribute__((aligned(16)));                                                    \
        __local int is_last;                                                                                           \
        hcl_gemm_rowsk(MR, TB, (size_t)m, (size_t)n, (size_t)k, alpha, a, (size_t)lda, b, (size_t)ldb, beta, c,        \
                       (size_t)ldc, ta != 0, (size_t)kslice, ws, ABT, CT, WIDE, as, &is_last);                         \
    }
#define HCL_GEMM_ROWSK_KERNEL(NAME, MR, TB, ABT, CT)                                                                   \
    HCL_GEMM_ROWSK_KERNEL_OF(NAME, MR, TB, ABT, CT, 0, HCL_GEMM_ROWS_KC)
/* The sliced rows kernels of one type combination: hcl_gemm_rowsk<4|16>_<n|t>_<suffix> */
#define HCL_GEMM_ROWSK_KERNELS(SUFFIX, ABT, CT)                                                                        \
    HCL_GEMM_FEW_ROWS(HCL_GEMM_ROWSK_KERNEL, hcl_gemm_rowsk, SUFFIX, ABT, CT)

HCL_GEMM_TYPES(HCL_GEMM_ROWSK_KERNELS)
/* the wide n kernels of the 16-bit types: hcl_gemm_rowsk4w_n_<suffix> */
#define HCL_GEMM_ROWSK_WIDE_KERNEL(SUFFIX, ABT, CT)                                                                    \
    HCL_GEMM_ROWSK_KERNEL_OF(hcl_gemm_rowsk4w_n_##SUFFIX, 4, 0, ABT, CT, 1, HCL_GEMM_ROWSK_WIDE_KC)
HCL_GEMM_ROWSK_WIDE_KERNEL(f16, HCL_CL_F16, HCL_CL_F16)
HCL_GEMM_ROWSK_WIDE_KERNEL(f16_f32, HCL_CL_F16, HCL_CL_F32)
HCL_GEMM_ROWSK_WIDE_KERNEL(bf16, HCL_CL_BF16, HCL_CL_BF16)
HCL_GEMM_ROWSK_WIDE_KERNEL(bf16_f32, HCL_CL_BF16, HCL_CL_F32)
#endif
