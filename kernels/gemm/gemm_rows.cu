/* gemm (CUDA and HIP) for a C of few rows (at most 16; or, on swapped operands, few columns): the inference decode
 * shapes, where A (m x k: the activations) is small and the whole cost is reading B (k x n: the weights) once. The
 * tiled kernels of gemm.cu and the matrix-unit ones (gemm_tc.cu, gemm_wg.cu, gemm_mfma.cu) spend most of their work on
 * the padding of their 64- or 128-row tiles there.
 *
 * hcl_gemm_rows_<A and B's type>_<MR>_<n|t> is the whole call in one launch (plan_rows.c): slice z = blockIdx.y takes
 * k in [z * kslice, min(k, (z + 1) * kslice)) and writes element (i, j) of its m x n partial product to the scratch P
 * at P[z * m * n + i * p_i + j * p_j]; the last block of a column range to finish (an atomic ticket on
 * counters[blockIdx.x] after a fence) adds that range's slices in slice order into C (hcl_gemm_rows_finish: alpha,
 * beta, C's type ctype 0 f32, 1 f16, 2 bf16, so one kernel serves both C types of a 16-bit A and B), puts the partials
 * it read and its counter back to 0 (the scratch comes zeroed and is left zeroed), and element offset o of the product
 * is C's (o / cn, o % cn) with cn = p_i * p_j (one of them is 1, the other C's columns). Element (i, p) of A is A[i *
 * a_i + p * a_p] (a transposed A is other strides), element (p, j) of B is B[p * ldb + j] (n: B's rows run along the
 * columns) or B[j * ldb + p] (t: along k, PyTorch's weight layout W[n][k]). MR (1, 2, 4, 8, 16) is the rows a block
 * computes at once: m <= MR, the rows from m to MR are zeros.
 *
 * A block of 256 threads takes one slice of k and a range of C's columns, in 8 groups of 32 threads (a warp, or half
 * an AMD wavefront), and walks the slice in chunks of HCL_GEMM_ROWS_STAGE / MR values of k, each first staged for MR
 * rows of A in shared memory as float. Products and sums are float (fmaf), 16-bit elements widened as they are loaded.
 *  - n: a group's thread holds CW consecutive columns (a 16-byte vector of B's row, 8 bytes for 16-bit types at MR 16,
 *    which keeps the accumulators at 64 a thread), the 8 groups take every 8th value of k, and at the end of the slice
 *    the groups add up in shared memory, group 7 first down to group 0. 32 x CW columns a block.
 *  - t: a group takes HCL_GEMM_ROWS_COLS_T columns, its lanes consecutive 16-byte vectors along k (a lane VEC values),
 *    and at the end of the slice the lanes add up by a butterfly of shuffles. 8 x HCL_GEMM_ROWS_COLS_T columns a block.
 * B is read in vectors when its pointer and its rows are aligned to the vector (checked here at run time; the plan
 * keeps slices at multiples of 64 values of k), in scalars otherwise and at the edges of n and k. Every element's sum has one
 * order whatever the timing: no atomics. Also the HIP kernel: a group is 32 lanes on a wavefront of 32 or 64. */

#include "hcl_gpu_types.h"

#define HCL_GEMM_ROWS_THREADS 256
#define HCL_GEMM_ROWS_GROUPS 8   /* groups of 32 threads a block */
#define HCL_GEMM_ROWS_STAGE 8192 /* floats of A in shared memory: MR rows x HCL_GEMM_ROWS_STAGE / MR values of k */
#define HCL_GEMM_ROWS_COLS_T 4   /* columns a group takes in the t kernels */
#define HCL_GEMM_ROWS_UNROLL(MR) ((MR) <= 4 ? 8 : 4) /* loads of B in flight a thread in the n kernels */
#define HCL_GEMM_ROWS_FOLD 32 /* partials in flight a thread in the last block's adding */

/* Stage rows 0..MR-1 of A's values of k [p0, p0 + len) into as as floats, value q of row r at q * MR + r (QR: the n
 * kernels, which read a value of k for every row) or r * KC + q (the t kernels, which read a run of k per row): zeros
 * for the rows from m and the values from len up to fill (<= KC). A row of A that runs along k is read along it. */
template <int MR, int KC, bool QR, typename TAB>
__device__ __forceinline__ void hcl_gemm_rows_stage(float *as, const TAB *__restrict__ A, unsigned long long m,
                                                    unsigned long long a_i, unsigned long long a_p,
                                                    unsigned long long p0, int len, int fill) {
    typedef hcl_elem<TAB> E;
    for (int t = threadIdx.x; t < MR * fill; t += HCL_GEMM_ROWS_THREADS) {
        const int r = a_p == 1 ? t / fill : t % MR, q = a_p == 1 ? t % fill : t / MR;
        as[QR ? q * MR + r : r * KC + q] =
            (unsigned long long)r < m && q < len ? E::ld(A, r * a_i + (p0 + q) * a_p) : 0.0f;
    }
}

/* CW elements of T from p (aligned to CW elements: 16 or 8 bytes) as floats. */
template <int CW, typename T> __device__ __forceinline__ void hcl_gemm_rows_ld(const T *p, float *v) {
    typedef hcl_elem<T> E;
    if (CW == (int)E::VEC) {
        E::unpack(*(const uint4 *)(const void *)p, v);
    } else { /* half a vector: the low half of one */
        const uint2 h = *(const uint2 *)(const void *)p;
        float w[E::VEC];
        E::unpack(make_uint4(h.x, h.y, 0u, 0u), w);
#pragma unroll
        for (int e = 0; e < CW; e++) v[e] = w[e];
    }
}

/* acc[r][e] += a[r] * v[e], r < MR, e < CW: a, the MR values of A at one value of k (16-byte aligned in shared
 * memory), read in vectors of 4 where MR allows. */
template <int MR, int CW>
__device__ __forceinline__ void hcl_gemm_rows_fma(float (&acc)[MR][CW], const float *as, const float *v) {
    float a[MR];
    if (MR % 4 == 0) {
#pragma unroll
        for (int h = 0; h < MR / 4; h++) {
            const float4 t = ((const float4 *)(const void *)as)[h];
            a[4 * h] = t.x, a[4 * h + 1] = t.y, a[4 * h + 2] = t.z, a[4 * h + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int r = 0; r < MR; r++) a[r] = as[r];
    }
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int e = 0; e < CW; e++) acc[r][e] = fmaf(a[r], v[e], acc[r][e]);
}

/* C[at] = alpha * s + beta * C[at] in C's type T (C unread at beta 0). */
template <typename T>
__device__ __forceinline__ void hcl_gemm_rows_put(void *C, unsigned long long at, float alpha, float beta, float s) {
    typedef hcl_elem<T> EC;
    T *c = (T *)C;
    EC::st(c, at, beta != 0.0f ? fmaf(beta, EC::ld(c, at), alpha * s) : alpha * s);
}

/* Called by every thread of the block once its partials are written (slice blockIdx.y of the product's `rows` x [j0,
 * j0 + width) elements in P, element (r, j) at r * p_i + j * p_j of each slice of `total`): the block that finishes
 * last among the slices of its columns adds their partials into C, in slice order, and leaves them and its counter
 * zero. A thread takes elements threadIdx.x, threadIdx.x + 256, ..., each over every slice, and has up to
 * HCL_GEMM_ROWS_FOLD of its loads in flight at once (a chain of one load after another made this adding cost more than
 * a second launch); the partials are read as volatile, past this SM's L1, which may hold none of the other blocks'
 * writes. */
__device__ __forceinline__ void hcl_gemm_rows_finish(float *P, unsigned long long total, unsigned rows,
                                                     unsigned long long j0, unsigned width, unsigned long long p_i,
                                                     unsigned long long p_j, unsigned *counters, void *C,
                                                     unsigned long long ldc, unsigned long long ctype, float alpha,
                                                     float beta) {
    __shared__ unsigned last;
    __threadfence(); /* this thread's partials are visible device-wide before the ticket is taken */
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(&counters[blockIdx.x], 1u) == gridDim.y - 1;
        if (last) counters[blockIdx.x] = 0; /* every slice has arrived: the next launch starts from 0 */
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const unsigned E = rows * width, S = gridDim.y, cn = (unsigned)(p_i * p_j);
    const unsigned mine = threadIdx.x < E ? (E - 1 - threadIdx.x) / HCL_GEMM_ROWS_THREADS + 1 : 0;
    const unsigned L = mine * S; /* (element, slice) pairs, element by element, slices in order */
    volatile float *v = P;
    float s = 0.0f;
    for (unsigned base = 0; base < L; base += HCL_GEMM_ROWS_FOLD) {
        unsigned long long at[HCL_GEMM_ROWS_FOLD];
        float t[HCL_GEMM_ROWS_FOLD];
#pragma unroll
        for (int u = 0; u < HCL_GEMM_ROWS_FOLD; u++) {
            const unsigned q = base + u, e = threadIdx.x + q / S * HCL_GEMM_ROWS_THREADS;
            at[u] = (unsigned long long)(q % S) * total + (e / width) * p_i + (j0 + e % width) * p_j;
            t[u] = q < L ? v[at[u]] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < HCL_GEMM_ROWS_FOLD; u++)
            if (base + u < L) v[at[u]] = 0.0f; /* the scratch is left as zeros, as it came */
#pragma unroll
        for (int u = 0; u < HCL_GEMM_ROWS_FOLD; u++) {
            const unsigned q = base + u;
            s += t[u]; /* 0 past L */
            if (q < L && q % S == S - 1) { /* the element's last slice: into C */
                const unsigned e = threadIdx.x + q / S * HCL_GEMM_ROWS_THREADS;
                const unsigned long long o = (e / width) * p_i + (j0 + e % width) * p_j, c = (o / cn) * ldc + o % cn;
                if (ctype == 1)
                    hcl_gemm_rows_put<hcl_f16_t>(C, c, alpha, beta, s);
                else if (ctype == 2)
                    hcl_gemm_rows_put<hcl_bf16_t>(C, c, alpha, beta, s);
                else
                    hcl_gemm_rows_put<float>(C, c, alpha, beta, s);
                s = 0.0f;
            }
        }
    }
}

/* The finishing arguments every kernel takes after its own (see the top of the file). */
#define HCL_GEMM_ROWS_FINISH_PARAMS                                                                                    \
    unsigned *counters, void *C, unsigned long long ldc, unsigned long long ctype, float alpha, float beta
#define HCL_GEMM_ROWS_FINISH_ARGS counters, C, ldc, ctype, alpha, beta

/* The n kernels' body (B's element (p, j) at p * ldb + j; see the top of the file). */
template <int MR, typename TAB>
__device__ __forceinline__ void hcl_gemm_rows_n(unsigned long long m, unsigned long long n, unsigned long long k,
                                                unsigned long long kslice, const TAB *__restrict__ A,
                                                unsigned long long a_i, unsigned long long a_p,
                                                const TAB *__restrict__ B, unsigned long long ldb,
                                                float *__restrict__ P, unsigned long long p_i, unsigned long long p_j,
                                                HCL_GEMM_ROWS_FINISH_PARAMS) {
    constexpr int VEC = hcl_elem<TAB>::VEC, CW = MR * VEC > 64 ? VEC / 2 : VEC, KC = HCL_GEMM_ROWS_STAGE / MR,
                  G = HCL_GEMM_ROWS_GROUPS, U = HCL_GEMM_ROWS_UNROLL(MR);
    __shared__ __align__(16) float as[MR * KC];
    const int c = threadIdx.x % 32, w = threadIdx.x / 32;
    const unsigned long long j = (unsigned long long)blockIdx.x * (32 * CW) + (unsigned long long)c * CW;
    const unsigned long long k0 = (unsigned long long)blockIdx.y * kslice, k1 = k - k0 < kslice ? k : k0 + kslice;
    const bool vec = ((unsigned long long)B % (CW * sizeof(TAB))) == 0 && (ldb % CW) == 0 && j + CW <= n;
    float acc[MR][CW];
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int e = 0; e < CW; e++) acc[r][e] = 0.0f;
    for (unsigned long long kc = k0; kc < k1; kc += KC) {
        const int len = k1 - kc < (unsigned long long)KC ? (int)(k1 - kc) : KC;
        __syncthreads(); /* the previous chunk's readers are done */
        hcl_gemm_rows_stage<MR, KC, true>(as, A, m, a_i, a_p, kc, len, len);
        __syncthreads();
        const TAB *b = B + kc * ldb + j;
        int q = w;
        if (vec) {
            for (; q + (U - 1) * G < len; q += U * G) {
                float v[U][VEC];
#pragma unroll
                for (int u = 0; u < U; u++) hcl_gemm_rows_ld<CW>(b + (unsigned long long)(q + u * G) * ldb, v[u]);
#pragma unroll
                for (int u = 0; u < U; u++) hcl_gemm_rows_fma<MR, CW>(acc, as + (q + u * G) * MR, v[u]);
            }
            for (; q < len; q += G) {
                float v[VEC];
                hcl_gemm_rows_ld<CW>(b + (unsigned long long)q * ldb, v);
                hcl_gemm_rows_fma<MR, CW>(acc, as + q * MR, v);
            }
        } else {
            for (; q < len; q += G) {
                float v[CW];
#pragma unroll
                for (int e = 0; e < CW; e++)
                    v[e] = j + e < n ? hcl_elem<TAB>::ld(b, (unsigned long long)q * ldb + e) : 0.0f;
                hcl_gemm_rows_fma<MR, CW>(acc, as + q * MR, v);
            }
        }
    }
    /* the groups' sums, group 7 first: red[(r * CW + e) * 32 + c] */
    float *red = as;
    __syncthreads();
    for (int g = G - 1; g > 0; g--) {
        if (w == g)
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int e = 0; e < CW; e++) {
                    float *s = &red[(r * CW + e) * 32 + c];
                    *s = g == G - 1 ? acc[r][e] : *s + acc[r][e];
                }
        __syncthreads();
    }
    if (w == 0) {
        float *out = P + (unsigned long long)blockIdx.y * m * n;
#pragma unroll
        for (int r = 0; r < MR; r++)
#pragma unroll
            for (int e = 0; e < CW; e++)
                if ((unsigned long long)r < m && j + e < n)
                    out[r * p_i + (j + e) * p_j] = red[(r * CW + e) * 32 + c] + acc[r][e];
    }
    const unsigned long long j0 = (unsigned long long)blockIdx.x * (32 * CW);
    hcl_gemm_rows_finish(P, m * n, (unsigned)m, j0, (unsigned)(n - j0 < 32 * CW ? n - j0 : 32 * CW), p_i, p_j,
                         HCL_GEMM_ROWS_FINISH_ARGS);
}

/* The t kernels' body (B's element (p, j) at j * ldb + p; see the top of the file). */
template <int MR, typename TAB>
__device__ __forceinline__ void hcl_gemm_rows_t(unsigned long long m, unsigned long long n, unsigned long long k,
                                                unsigned long long kslice, const TAB *__restrict__ A,
                                                unsigned long long a_i, unsigned long long a_p,
                                                const TAB *__restrict__ B, unsigned long long ldb,
                                                float *__restrict__ P, unsigned long long p_i, unsigned long long p_j,
                                                HCL_GEMM_ROWS_FINISH_PARAMS) {
    constexpr int VEC = hcl_elem<TAB>::VEC, KC = HCL_GEMM_ROWS_STAGE / MR, CT = HCL_GEMM_ROWS_COLS_T,
                  STEP = 32 * VEC; /* values of k a group reads at a time */
    static_assert(KC % STEP == 0, "a chunk of k is whole steps");
    __shared__ __align__(16) float as[MR * KC];
    const int l = threadIdx.x % 32, w = threadIdx.x / 32;
    const unsigned long long j0 = (unsigned long long)blockIdx.x * (HCL_GEMM_ROWS_GROUPS * CT) + (unsigned)w * CT;
    const unsigned long long k0 = (unsigned long long)blockIdx.y * kslice, k1 = k - k0 < kslice ? k : k0 + kslice;
    /* k0 and the chunks' starts are multiples of VEC (the plan's kslice, KC), so a vector at q % VEC == 0 is aligned */
    const bool vec = hcl_aligned16(B) && (ldb % VEC) == 0 && (k0 % VEC) == 0;
    float acc[MR][CT];
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int c = 0; c < CT; c++) acc[r][c] = 0.0f;
    for (unsigned long long kc = k0; kc < k1; kc += KC) {
        const int len = k1 - kc < (unsigned long long)KC ? (int)(k1 - kc) : KC;
        __syncthreads(); /* the previous chunk's readers are done */
        hcl_gemm_rows_stage<MR, KC, false>(as, A, m, a_i, a_p, kc, len, (len + STEP - 1) / STEP * STEP);
        __syncthreads();
        for (int q = l * VEC; q < len; q += STEP) {
            float v[CT][VEC];
            if (vec && q + VEC <= len) {
#pragma unroll
                for (int c = 0; c < CT; c++) {
                    if (j0 + c < n)
                        hcl_gemm_rows_ld<VEC>(B + (j0 + c) * ldb + kc + q, v[c]);
                    else
#pragma unroll
                        for (int e = 0; e < VEC; e++) v[c][e] = 0.0f;
                }
            } else {
#pragma unroll
                for (int c = 0; c < CT; c++)
#pragma unroll
                    for (int e = 0; e < VEC; e++)
                        v[c][e] = j0 + c < n && q + e < len ? hcl_elem<TAB>::ld(B, (j0 + c) * ldb + kc + q + e) : 0.0f;
            }
#pragma unroll
            for (int r = 0; r < MR; r++) {
                float a[VEC];
#pragma unroll
                for (int h = 0; h < VEC / 4; h++) {
                    const float4 t = *(const float4 *)&as[r * KC + q + 4 * h];
                    a[4 * h] = t.x, a[4 * h + 1] = t.y, a[4 * h + 2] = t.z, a[4 * h + 3] = t.w;
                }
#pragma unroll
                for (int c = 0; c < CT; c++)
#pragma unroll
                    for (int e = 0; e < VEC; e++) acc[r][c] = fmaf(a[e], v[c][e], acc[r][c]);
            }
        }
    }
    /* the lanes' sums: a butterfly over the group's 32 lanes (every lane ends with the same sum) */
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int c = 0; c < CT; c++)
#pragma unroll
            for (int d = 16; d > 0; d /= 2) acc[r][c] += HCL_SHFL_XOR(acc[r][c], d);
    if (l == 0) {
        float *out = P + (unsigned long long)blockIdx.y * m * n;
#pragma unroll
        for (int r = 0; r < MR; r++)
#pragma unroll
            for (int c = 0; c < CT; c++)
                if ((unsigned long long)r < m && j0 + c < n) out[r * p_i + (j0 + c) * p_j] = acc[r][c];
    }
    const unsigned long long b0 = (unsigned long long)blockIdx.x * (HCL_GEMM_ROWS_GROUPS * CT);
    hcl_gemm_rows_finish(P, m * n, (unsigned)m, b0,
                         (unsigned)(n - b0 < HCL_GEMM_ROWS_GROUPS * CT ? n - b0 : HCL_GEMM_ROWS_GROUPS * CT), p_i, p_j,
                         HCL_GEMM_ROWS_FINISH_ARGS);
}

/* hcl_gemm_rows_<type>_<MR>_<n|t>: the arguments m, n, k, kslice, A, a_i, a_p, B, ldb, P, p_i, p_j, counters, C,
 * ldc, ctype, alpha, beta (see the top) */
#define HCL_GEMM_ROWS_KERNEL(SUFFIX, T, MR, L)                                                                         \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_GEMM_ROWS_THREADS, 2)                                  \
        hcl_gemm_rows_##SUFFIX##_##MR##_##L(                                                                           \
            unsigned long long m, unsigned long long n, unsigned long long k, unsigned long long kslice, const T *A,   \
            unsigned long long a_i, unsigned long long a_p, const T *B, unsigned long long ldb, float *P,              \
            unsigned long long p_i, unsigned long long p_j, HCL_GEMM_ROWS_FINISH_PARAMS) {                             \
        hcl_gemm_rows_##L<MR, T>(m, n, k, kslice, A, a_i, a_p, B, ldb, P, p_i, p_j, HCL_GEMM_ROWS_FINISH_ARGS);        \
    }
#define HCL_GEMM_ROWS_KERNELS(SUFFIX, T)                                                                               \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 1, n)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 2, n)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 4, n)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 8, n)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 16, n)                                                                             \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 1, t)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 2, t)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 4, t)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 8, t)                                                                              \
    HCL_GEMM_ROWS_KERNEL(SUFFIX, T, 16, t)
HCL_GPU_TYPES(HCL_GEMM_ROWS_KERNELS)
