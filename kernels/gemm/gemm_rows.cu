/* gemm (CUDA and HIP) for a C of few rows (at most 16; or, on swapped operands, few columns): the inference decode
 * shapes, where A (m x k: the activations) is small and the whole cost is reading B (k x n: the weights) once. The
 * tiled kernels of gemm.cu and the matrix-unit ones (gemm_tc.cu, gemm_wg.cu, gemm_mfma.cu) spend most of their work on
 * the padding of their 64- or 128-row tiles there.
 *
 * hcl_gemm_rows_<A and B's type>_<MR>_<n|t> computes the partial products of one slice of k into the scratch, as the
 * split-K kernels do (plan_rows.c, plan_splitk.c): slice z = blockIdx.y takes k in [z * kslice, min(k, (z + 1) *
 * kslice)) and writes element (i, j) of its m x n partial product to P[z * m * n + i * p_i + j * p_j];
 * hcl_gemm_splitk_sum_<C's type> then adds the slices in slice order into C (alpha, beta). C's type enters only there,
 * so one kernel serves both C types of a 16-bit A and B. Element (i, p) of A is A[i * a_i + p * a_p] (a transposed A
 * is other strides), element (p, j) of B is B[p * ldb + j] (n: B's rows run along the columns) or B[j * ldb + p] (t:
 * along k, PyTorch's weight layout W[n][k]). MR (1, 2, 4, 8, 16) is the rows a block computes at once: m <= MR, the
 * rows from m to MR are zeros.
 *
 * A block of 256 threads takes one slice of k and a range of C's columns, in 8 groups of 32 threads (a warp, or half
 * an AMD wavefront), and walks the slice in chunks of HCL_GEMM_ROWS_STAGE / MR values of k, each first staged for MR
 * rows of A in shared memory as float. Products and sums are float (fmaf), 16-bit elements widened as they are loaded.
 *  - n: a group's thread holds CW consecutive columns (a 16-byte vector of B's row, 8 bytes for 16-bit types at MR 16,
 *    which keeps the accumulators at 64 a thread), the 8 groups take every 8th value of k in batches of
 *    HCL_GEMM_ROWS_UNROLL loads (a chunk's first issued before A is staged), and at the end of the slice the groups add
 *    up in shared memory in halves (groups 4-7 onto 0-3, 2-3 onto 0-1, 1 onto 0). 32 x CW columns a block.
 *  - t: a group takes HCL_GEMM_ROWS_COLS_T columns, its lanes consecutive 16-byte vectors along k (a lane VEC values),
 *    and at the end of the slice the lanes add up by a butterfly of shuffles. 8 x HCL_GEMM_ROWS_COLS_T columns a block.
 * B is read in vectors when its pointer and its rows are aligned to the vector (checked here at run time; the plan
 * keeps slices at multiples of 64 values of k), in scalars otherwise and at the edges of n and k. Every element's sum has one
 * order whatever the timing: no atomics. Once its loads are issued a block lets the sum kernel's launch begin on CUDA
 * (hcl_gpu_launch_next: the plan's early launch). Also the HIP kernel: a group is 32 lanes on a wavefront of 32 or 64. */

#include "hcl_gpu_types.h"

#define HCL_GEMM_ROWS_THREADS 256
#define HCL_GEMM_ROWS_GROUPS 8   /* groups of 32 threads a block */
#define HCL_GEMM_ROWS_STAGE 8192 /* floats of A in shared memory: MR rows x HCL_GEMM_ROWS_STAGE / MR values of k */
#define HCL_GEMM_ROWS_COLS_T 4   /* columns a group takes in the t kernels */
#define HCL_GEMM_ROWS_UNROLL(MR) ((MR) <= 4 ? 8 : 4) /* loads of B in flight a thread in the n kernels (a batch) */

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

/* CW elements of T at p (aligned to CW elements: 16 or 8 bytes) as they lie in memory (hcl_gemm_rows_raw<CW == VEC>::t,
 * a uint4 or a uint2), and widened to floats (hcl_gemm_rows_unpack) when they are used, so that a batch's loads are
 * all issued before its products. */
template <bool WHOLE> struct hcl_gemm_rows_raw { /* WHOLE: CW is a whole vector */
    typedef uint4 t;
    template <typename T> static __device__ __forceinline__ t ld(const T *p) { return *(const uint4 *)(const void *)p; }
};
template <> struct hcl_gemm_rows_raw<false> {
    typedef uint2 t;
    template <typename T> static __device__ __forceinline__ t ld(const T *p) { return *(const uint2 *)(const void *)p; }
};
template <int CW, typename T> __device__ __forceinline__ void hcl_gemm_rows_unpack(uint4 r, float *v) {
    hcl_elem<T>::unpack(r, v);
}
template <int CW, typename T> __device__ __forceinline__ void hcl_gemm_rows_unpack(uint2 h, float *v) {
    float w[hcl_elem<T>::VEC]; /* half a vector: the low half of one */
    hcl_elem<T>::unpack(make_uint4(h.x, h.y, 0u, 0u), w);
#pragma unroll
    for (int e = 0; e < CW; e++) v[e] = w[e];
}

/* A batch of U loads of B for a group of the n kernels: the CW values at b + (q + u * G) * ldb, u < U, as R (a
 * hcl_gemm_rows_raw) loads them. */
template <int U, int G, typename R, typename T>
__device__ __forceinline__ void hcl_gemm_rows_batch(typename R::t (&x)[U], const T *b, int q, unsigned long long ldb) {
#pragma unroll
    for (int u = 0; u < U; u++) x[u] = R::ld(b + (unsigned long long)(q + u * G) * ldb);
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

/* The n kernels' body (B's element (p, j) at p * ldb + j; see the top of the file). */
template <int MR, typename TAB>
__device__ __forceinline__ void hcl_gemm_rows_n(unsigned long long m, unsigned long long n, unsigned long long k,
                                                unsigned long long kslice, const TAB *__restrict__ A,
                                                unsigned long long a_i, unsigned long long a_p,
                                                const TAB *__restrict__ B, unsigned long long ldb,
                                                float *__restrict__ P, unsigned long long p_i, unsigned long long p_j) {
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
    typedef hcl_gemm_rows_raw<CW == VEC> R;
    for (unsigned long long kc = k0; kc < k1; kc += KC) {
        const int len = k1 - kc < (unsigned long long)KC ? (int)(k1 - kc) : KC;
        const TAB *b = B + kc * ldb + j;
        int q = w;
        /* a batch: U loads of B, the group's values of k q, q + G, ..., q + (U - 1) * G; the chunk's first is issued
         * before A is staged (it does not need A) */
        typename R::t x[U];
        bool full = vec && q + (U - 1) * G < len;
        if (full) hcl_gemm_rows_batch<U, G, R>(x, b, q, ldb);
        __syncthreads(); /* the previous chunk's readers are done */
        hcl_gemm_rows_stage<MR, KC, true>(as, A, m, a_i, a_p, kc, len, len);
        __syncthreads();
        while (full) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                float v[CW];
                hcl_gemm_rows_unpack<CW, TAB>(x[u], v);
                hcl_gemm_rows_fma<MR, CW>(acc, as + (q + u * G) * MR, v);
            }
            q += U * G;
            full = q + (U - 1) * G < len;
            if (full) hcl_gemm_rows_batch<U, G, R>(x, b, q, ldb);
        }
        for (; q < len; q += G) { /* the chunk's last values of k, fewer than a batch, and B not in vectors */
            float v[CW];
            if (vec) {
                hcl_gemm_rows_unpack<CW, TAB>(R::ld(b + (unsigned long long)q * ldb), v);
            } else {
#pragma unroll
                for (int e = 0; e < CW; e++)
                    v[e] = j + e < n ? hcl_elem<TAB>::ld(b, (unsigned long long)q * ldb + e) : 0.0f;
            }
            hcl_gemm_rows_fma<MR, CW>(acc, as + q * MR, v);
        }
    }
    hcl_gpu_launch_next(); /* B is read: the sum of the slices may begin its launch (it waits for this kernel's end) */
    /* the groups' sums, in halves: groups h to 2h - 1 write theirs, groups 0 to h - 1 add them (h = 4, 2, 1); the
     * halves' values red[((w - h) * MR * CW + r * CW + e) * 32 + c] fill at most the staging's 8192 floats */
    float *red = as;
#pragma unroll
    for (int h = G / 2; h > 0; h /= 2) {
        __syncthreads();
        if (w >= h && w < 2 * h)
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int e = 0; e < CW; e++) red[((w - h) * MR * CW + r * CW + e) * 32 + c] = acc[r][e];
        __syncthreads();
        if (w < h)
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int e = 0; e < CW; e++) acc[r][e] += red[(w * MR * CW + r * CW + e) * 32 + c];
    }
    if (w != 0) return;
    float *out = P + (unsigned long long)blockIdx.y * m * n;
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int e = 0; e < CW; e++)
            if ((unsigned long long)r < m && j + e < n) out[r * p_i + (j + e) * p_j] = acc[r][e];
}

/* The t kernels' body (B's element (p, j) at j * ldb + p; see the top of the file). */
template <int MR, typename TAB>
__device__ __forceinline__ void hcl_gemm_rows_t(unsigned long long m, unsigned long long n, unsigned long long k,
                                                unsigned long long kslice, const TAB *__restrict__ A,
                                                unsigned long long a_i, unsigned long long a_p,
                                                const TAB *__restrict__ B, unsigned long long ldb,
                                                float *__restrict__ P, unsigned long long p_i, unsigned long long p_j) {
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
                        hcl_gemm_rows_unpack<VEC, TAB>(hcl_gemm_rows_raw<true>::ld(B + (j0 + c) * ldb + kc + q), v[c]);
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
    hcl_gpu_launch_next(); /* B is read: the sum of the slices may begin its launch (it waits for this kernel's end) */
    /* the lanes' sums: a butterfly over the group's 32 lanes (every lane ends with the same sum) */
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int c = 0; c < CT; c++)
#pragma unroll
            for (int d = 16; d > 0; d /= 2) acc[r][c] += HCL_SHFL_XOR(acc[r][c], d);
    if (l != 0) return;
    float *out = P + (unsigned long long)blockIdx.y * m * n;
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int c = 0; c < CT; c++)
            if ((unsigned long long)r < m && j0 + c < n) out[r * p_i + (j0 + c) * p_j] = acc[r][c];
}

/* hcl_gemm_rows_<type>_<MR>_<n|t>: the arguments m, n, k, kslice, A, a_i, a_p, B, ldb, P, p_i, p_j (see the top) */
#define HCL_GEMM_ROWS_KERNEL(SUFFIX, T, MR, L)                                                                         \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_GEMM_ROWS_THREADS, 2)                                  \
        hcl_gemm_rows_##SUFFIX##_##MR##_##L(unsigned long long m, unsigned long long n, unsigned long long k,          \
                                            unsigned long long kslice, const T *A, unsigned long long a_i,             \
                                            unsigned long long a_p, const T *B, unsigned long long ldb, float *P,      \
                                            unsigned long long p_i, unsigned long long p_j) {                          \
        hcl_gemm_rows_##L<MR, T>(m, n, k, kslice, A, a_i, a_p, B, ldb, P, p_i, p_j);                                   \
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
