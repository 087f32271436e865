/* gemm (CUDA and HIP), the plain (SIMT) kernels: row-major GEMM with BLAS meaning, C = alpha * op(A) * op(B) + beta * C,
 * A and B in f32, f16 or bf16 and C in their type or f32 (hcl_gpu_types.h): 16-bit elements are widened as they are
 * fetched, the arithmetic is float, C is rounded once. The matrix-unit kernels are in gemm_tc.cu.
 *
 * op(A) is m x k: A is m x k (lda >= k) or, transposed, k x m (lda >= m); op(B) is k x n likewise; C is m x n.
 * When beta is 0, C is not read (NaN in C does not propagate). k == 0 or alpha == 0 go to hcl_gemm_scale_<C's type>,
 * which never reads A or B.
 *
 * Tiled kernel: a block of 256 threads computes a BM x BN tile of C, walking k in steps of BK through two
 * shared-memory buffers (the next tile is fetched into registers while the current one is multiplied, so one
 * barrier per step suffices). Each thread owns a TM x TN register block, split into 4 x 4 pieces 64 rows /
 * columns apart so that its shared-memory reads are float4 and conflict-free. Shared tiles are stored k-major
 * (As[k][m], Bs[k][n]); global loads are float4 along whichever dimension is contiguous in memory when the
 * leading dimension and the base allow it, scalar and zero-padded at the edges, so any m, n, k work.
 *   256 x 128 x 8, 16 x 8 per thread (float32 only): large problems.   128 x 128 x 8, 8 x 8 per thread: middle ones.
 *   64 x 64 x 16, 4 x 4 per thread: small ones.
 * A thread fetches BM * BK / 1024 float4s of A's tile and BN * BK / 1024 of B's per step; a tile wholly inside the
 * matrices (float4-aligned, k a multiple of BK) skips the bounds checks. The grid is 2-D (x over column tiles, y over
 * row tiles) and strides over tiles, so any size fits; a grid of exactly one block per tile takes the tiles in groups
 * of HCL_GEMM_GROUP_M tile rows (L2 reuse).
 * Also the HIP kernel (gemm.hip): nothing here depends on the warp width (the layout is per thread of a 256-thread
 * block). Includes only hcl_gpu_compat.h, so NVRTC and hiprtc can build it alone. */

#include "hcl_gpu_types.h"

#define HCL_GEMM_THREADS 256
#define HCL_GEMM_GROUP_M 8 /* tile rows per group in a block's visiting order */

/* The shared tiles of hcl_gemm_impl: k-major, padded (PAD keeps the transposing stores conflict-free and float4 reads
 * aligned), two buffers */
template <int BM, int BN, int BK> struct hcl_gemm_smem {
    enum { PAD = 4 };
    __align__(16) float As[2][BK][BM + PAD];
    __align__(16) float Bs[2][BK][BN + PAD];
};

/* One BM x BN tile of C at (row0, col0): the whole k loop and the epilogue. UNCHECKED: the tile lies wholly inside A
 * and B, k is a multiple of BK and every row is float4-aligned (a_vec, b_vec), so the loads skip the bounds checks;
 * it is a template parameter so that each kind of tile is compiled on its own (neither pays for the other's registers
 * or branches). */
template <int BM, int BN, int BK, int TM, int TN, bool TA, bool TB, bool UNCHECKED, typename TAB, typename TC>
__device__ __forceinline__ void hcl_gemm_tile(hcl_gemm_smem<BM, BN, BK> &sm, long long row0, long long col0,
                                              long long m, long long n, long long k, float alpha,
                                              const TAB *__restrict__ A, long long lda, const TAB *__restrict__ B,
                                              long long ldb, float beta, TC *__restrict__ C, long long ldc, bool a_vec,
                                              bool b_vec, bool c_vec) {
    typedef hcl_elem<TAB> EA;
    typedef hcl_elem<TC> EC;
    /* LA, LB float4s of A's and B's tile per thread and K step */
    constexpr int LA = BM * BK / (4 * HCL_GEMM_THREADS), LB = BN * BK / (4 * HCL_GEMM_THREADS);
    constexpr int GM = TM / 4;   /* row pieces per thread */
    constexpr int GN = TN / 4;   /* column pieces per thread */
    constexpr int SM_ = BM / GM; /* rows between a thread's pieces (64) */
    constexpr int SN_ = BN / GN; /* columns between a thread's pieces (64) */
    const int t = threadIdx.x;
    const int tx = t % (BN / TN);
    const int ty = t / (BN / TN);
    const long long steps = (k + BK - 1) / BK;

    /* Where the thread's float4 number l of each tile comes from (element coordinates inside the tile), for the l-th
     * run of HCL_GEMM_THREADS float4s. A: non-transposed rows of k (contiguous in k); transposed rows of m
     * (contiguous in m). B: non-transposed rows of n (contiguous in n); transposed rows of k (contiguous in k). */
    auto a_r = [&](int l) {
        const int e = t + l * HCL_GEMM_THREADS;
        return TA ? (e % (BM / 4)) * 4 : e / (BK / 4);
    };
    auto a_k = [&](int l) {
        const int e = t + l * HCL_GEMM_THREADS;
        return TA ? e / (BM / 4) : (e % (BK / 4)) * 4;
    };
    auto b_c = [&](int l) {
        const int e = t + l * HCL_GEMM_THREADS;
        return TB ? e / (BK / 4) : (e % (BN / 4)) * 4;
    };
    auto b_k = [&](int l) {
        const int e = t + l * HCL_GEMM_THREADS;
        return TB ? (e % (BK / 4)) * 4 : e / (BN / 4);
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    float ra[LA][4], rb[LB][4];
    /* Fetch the float4s of A and B for the k-step starting at k0 into ra / rb (zeros outside the matrices). */
    auto fetch = [&](long long k0) {
#pragma unroll
        for (int l = 0; l < LA; l++) {
            const long long r = row0 + a_r(l), kk = k0 + a_k(l);
            const TAB *p = TA ? A + kk * lda + r : A + r * lda + kk;
            /* in bounds along the contiguous dimension and across it */
            if (UNCHECKED || (a_vec && (TA ? kk < k && r + 3 < m : r < m && kk + 3 < k))) {
                const float4 v = *(const float4 *)(const void *)p;
                ra[l][0] = v.x, ra[l][1] = v.y, ra[l][2] = v.z, ra[l][3] = v.w;
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    ra[l][q] = (TA ? kk < k && r + q < m : r < m && kk + q < k) ? EA::ld(p, q) : 0.0f;
            }
        }
#pragma unroll
        for (int l = 0; l < LB; l++) {
            const long long c = col0 + b_c(l), kk = k0 + b_k(l);
            const TAB *p = TB ? B + c * ldb + kk : B + kk * ldb + c;
            if (UNCHECKED || (b_vec && (TB ? c < n && kk + 3 < k : kk < k && c + 3 < n))) {
                const float4 v = *(const float4 *)(const void *)p;
                rb[l][0] = v.x, rb[l][1] = v.y, rb[l][2] = v.z, rb[l][3] = v.w;
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    rb[l][q] = (TB ? c < n && kk + q < k : kk < k && c + q < n) ? EA::ld(p, q) : 0.0f;
            }
        }
    };
    /* Store ra / rb into shared buffer `buf`, k-major. */
    auto stash = [&](int buf) {
#pragma unroll
        for (int l = 0; l < LA; l++) {
            if (!TA) {
#pragma unroll
                for (int q = 0; q < 4; q++) sm.As[buf][a_k(l) + q][a_r(l)] = ra[l][q];
            } else {
                *(float4 *)&sm.As[buf][a_k(l)][a_r(l)] = make_float4(ra[l][0], ra[l][1], ra[l][2], ra[l][3]);
            }
        }
#pragma unroll
        for (int l = 0; l < LB; l++) {
            if (!TB) {
                *(float4 *)&sm.Bs[buf][b_k(l)][b_c(l)] = make_float4(rb[l][0], rb[l][1], rb[l][2], rb[l][3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++) sm.Bs[buf][b_k(l) + q][b_c(l)] = rb[l][q];
            }
        }
    };

    if (steps > 0) {
        fetch(0);
        stash(0);
    }
    __syncthreads();
    for (long long s = 0; s < steps; s++) {
        const int cur = (int)(s & 1);
        if (s + 1 < steps) fetch((s + 1) * BK);
        /* four floats of a shared tile (16-byte aligned) into registers */
        auto piece = [](const float *p, float *r) {
            const float4 v = *(const float4 *)p;
            r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
        };
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int g = 0; g < GM; g++) piece(&sm.As[cur][kk][g * SM_ + ty * 4], &a[g * 4]);
#pragma unroll
            for (int g = 0; g < GN; g++) piece(&sm.Bs[cur][kk][g * SN_ + tx * 4], &b[g * 4]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (s + 1 < steps) stash(cur ^ 1);
        __syncthreads();
    }

    /* Epilogue: C = alpha * acc + beta * C, C untouched by reads when beta == 0. */
#pragma unroll
    for (int gi = 0; gi < GM; gi++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const long long r = row0 + gi * SM_ + ty * 4 + i;
            if (r >= m) continue;
#pragma unroll
            for (int gj = 0; gj < GN; gj++) {
                const long long c = col0 + gj * SN_ + tx * 4;
                TC *p = C + r * ldc + c;
                const float *v = &acc[gi * 4 + i][gj * 4];
                if (c_vec && c + 3 < n) {
                    float4 o = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
                    if (beta != 0.0f) {
                        const float4 old = *(const float4 *)(const void *)p;
                        o.x = fmaf(beta, old.x, o.x);
                        o.y = fmaf(beta, old.y, o.y);
                        o.z = fmaf(beta, old.z, o.z);
                        o.w = fmaf(beta, old.w, o.w);
                    }
                    *(float4 *)(void *)p = o;
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        if (c + q < n)
                            EC::st(p, q, beta != 0.0f ? fmaf(beta, EC::ld(p, q), alpha * v[q]) : alpha * v[q]);
                    }
                }
            }
        }
    }
}

/* hcl_gemm_tile as a call of its own, for kernels that hold both kinds of tile: inlined side by side, the two k loops
 * share one register allocation and schedule (H100, 4096^3 on 256 x 128 tiles: 34 TFLOP/s inlined, 47 alone). Inlined
 * on AMD, whose compiler gives a called function that reaches shared memory every kernel's shared variables (the four
 * 256 x 128 kernels' tiles, 98 KiB, over the 64 KiB limit). */
#ifdef HCL_GPU_HIP_KERNEL
#define HCL_GEMM_TILE_CALL __forceinline__
#else
#define HCL_GEMM_TILE_CALL __noinline__
#endif
template <int BM, int BN, int BK, int TM, int TN, bool TA, bool TB, bool UNCHECKED, typename TAB, typename TC>
__device__ HCL_GEMM_TILE_CALL void hcl_gemm_tile_call(hcl_gemm_smem<BM, BN, BK> &sm, long long row0, long long col0,
                                                      long long m, long long n, long long k, float alpha,
                                                      const TAB *__restrict__ A, long long lda,
                                                      const TAB *__restrict__ B, long long ldb, float beta,
                                                      TC *__restrict__ C, long long ldc, bool a_vec, bool b_vec,
                                                      bool c_vec) {
    hcl_gemm_tile<BM, BN, BK, TM, TN, TA, TB, UNCHECKED, TAB, TC>(sm, row0, col0, m, n, k, alpha, A, lda, B, ldb, beta,
                                                                  C, ldc, a_vec, b_vec, c_vec);
}

template <int BM, int BN, int BK, int TM, int TN, bool TA, bool TB, typename TAB, typename TC>
__device__ __forceinline__ void hcl_gemm_impl(long long m, long long n, long long k, float alpha,
                                              const TAB *__restrict__ A, long long lda, const TAB *__restrict__ B,
                                              long long ldb, float beta, TC *__restrict__ C, long long ldc) {
    /* float4 global loads and stores for float matrices; 16-bit ones go element by element */
    constexpr bool AB_F32 = sizeof(TAB) == sizeof(float), C_F32 = sizeof(TC) == sizeof(float);
    /* thread layout checks, at compile time */
    static_assert((BM / TM) * (BN / TN) == HCL_GEMM_THREADS, "one thread per TM x TN block");
    static_assert(BM * BK % (4 * HCL_GEMM_THREADS) == 0 && BN * BK % (4 * HCL_GEMM_THREADS) == 0,
                  "whole float4s per thread");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "4 x 4 pieces");
    /* only the largest tile has the registers for a second, unchecked copy of the k loop: the others would spill */
    constexpr bool FAST = AB_F32 && BM * BN >= 256 * 128;

    __shared__ hcl_gemm_smem<BM, BN, BK> sm;

    const bool a_vec = AB_F32 && (lda % 4 == 0) && hcl_aligned16(A);
    const bool b_vec = AB_F32 && (ldb % 4 == 0) && hcl_aligned16(B);
    const bool c_vec = C_F32 && (ldc % 4 == 0) && hcl_aligned16(C);

    const long long tiles_m = (m + BM - 1) / BM;
    const long long tiles_n = (n + BN - 1) / BN;

    /* a grid of one block per tile visits them in groups of HCL_GEMM_GROUP_M tile rows (hcl_tile_grouped) */
    const bool grouped = gridDim.x == tiles_n && gridDim.y == tiles_m;
    for (long long tm0 = blockIdx.y; tm0 < tiles_m; tm0 += gridDim.y) {
        for (long long tn0 = blockIdx.x; tn0 < tiles_n; tn0 += gridDim.x) {
            long long tm = tm0, tn = tn0;
            if (grouped) hcl_tile_grouped<long long>(tm0 * tiles_n + tn0, tiles_m, tiles_n, HCL_GEMM_GROUP_M, &tm, &tn);
            const long long row0 = tm * BM, col0 = tn * BN;
            if (!FAST)
                hcl_gemm_tile<BM, BN, BK, TM, TN, TA, TB, false, TAB, TC>(sm, row0, col0, m, n, k, alpha, A, lda, B,
                                                                          ldb, beta, C, ldc, a_vec, b_vec, c_vec);
            else if (a_vec && b_vec && row0 + BM <= m && col0 + BN <= n && k % BK == 0)
                hcl_gemm_tile_call<BM, BN, BK, TM, TN, TA, TB, true, TAB, TC>(sm, row0, col0, m, n, k, alpha, A, lda, B,
                                                                              ldb, beta, C, ldc, a_vec, b_vec, c_vec);
            else
                hcl_gemm_tile_call<BM, BN, BK, TM, TN, TA, TB, false, TAB, TC>(
                    sm, row0, col0, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, a_vec, b_vec, c_vec);
        }
    }
}

/* MINB: blocks per SM to keep resident (caps registers: 2 x 256 threads -> at most 128 per thread). A CUDA hint
 * only: HIP builds keep just the 256-thread bound (hcl_gpu_compat.h). */
#define HCL_GEMM_KERNEL(NAME, BM, BN, BK, TM, TN, TA, TB, MINB, TAB, TC)                                               \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_GEMM_THREADS, MINB) NAME(                              \
        unsigned long long m, unsigned long long n, unsigned long long k, float alpha, const TAB *A,                   \
        unsigned long long lda, const TAB *B, unsigned long long ldb, float beta, TC *C, unsigned long long ldc) {     \
        hcl_gemm_impl<BM, BN, BK, TM, TN, TA, TB, TAB, TC>((long long)m, (long long)n, (long long)k, alpha, A,         \
                                                           (long long)lda, B, (long long)ldb, beta, C,                 \
                                                           (long long)ldc);                                            \
    }
/* hcl_gemm_<types>_<128|64>_<nn|nt|tn|tt>: <types> is f32, or <A's and B's type>_<C's type> for 16-bit inputs */
#define HCL_GEMM_KERNELS(TYPES, TAB, TC)                                                                               \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_128_nn, 128, 128, 8, 8, 8, false, false, 2, TAB, TC)                            \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_128_nt, 128, 128, 8, 8, 8, false, true, 2, TAB, TC)                             \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_128_tn, 128, 128, 8, 8, 8, true, false, 2, TAB, TC)                             \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_128_tt, 128, 128, 8, 8, 8, true, true, 2, TAB, TC)                              \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_64_nn, 64, 64, 16, 4, 4, false, false, 3, TAB, TC)                              \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_64_nt, 64, 64, 16, 4, 4, false, true, 3, TAB, TC)                               \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_64_tn, 64, 64, 16, 4, 4, true, false, 3, TAB, TC)                               \
    HCL_GEMM_KERNEL(hcl_gemm_##TYPES##_64_tt, 64, 64, 16, 4, 4, true, true, 3, TAB, TC)

HCL_GEMM_KERNELS(f32, float, float)
/* float32 on large problems: 256 x 128 tiles, 16 x 8 per thread, one block per SM (about 230 registers a thread) */
HCL_GEMM_KERNEL(hcl_gemm_f32_256_nn, 256, 128, 8, 16, 8, false, false, 1, float, float)
HCL_GEMM_KERNEL(hcl_gemm_f32_256_nt, 256, 128, 8, 16, 8, false, true, 1, float, float)
HCL_GEMM_KERNEL(hcl_gemm_f32_256_tn, 256, 128, 8, 16, 8, true, false, 1, float, float)
HCL_GEMM_KERNEL(hcl_gemm_f32_256_tt, 256, 128, 8, 16, 8, true, true, 1, float, float)
/* float32 C of few rows (64 x 14336 x 4096: 64 x 64 tiles ran at 0.71 of cuBLAS on an H200): 64 x 128 tiles, 4 x 8 per
 * thread, two blocks per SM */
HCL_GEMM_KERNEL(hcl_gemm_f32_64x128_nn, 64, 128, 16, 4, 8, false, false, 2, float, float)
HCL_GEMM_KERNEL(hcl_gemm_f32_64x128_nt, 64, 128, 16, 4, 8, false, true, 2, float, float)
HCL_GEMM_KERNEL(hcl_gemm_f32_64x128_tn, 64, 128, 16, 4, 8, true, false, 2, float, float)
HCL_GEMM_KERNEL(hcl_gemm_f32_64x128_tt, 64, 128, 16, 4, 8, true, true, 2, float, float)
HCL_GEMM_KERNELS(f16_f16, hcl_f16_t, hcl_f16_t)
HCL_GEMM_KERNELS(f16_f32, hcl_f16_t, float)
HCL_GEMM_KERNELS(bf16_bf16, hcl_bf16_t, hcl_bf16_t)
HCL_GEMM_KERNELS(bf16_f32, hcl_bf16_t, float)

/* Split-K for float32 (plan_splitk.c), when the tiles of C are too few to fill the GPU and k is long: slice blockIdx.z
 * takes k in [z * kslice, min(k, (z + 1) * kslice)) (kslice a multiple of 64, so the slices' A and B stay 16-byte
 * aligned) and writes its partial product, alpha 1 and beta 0, to P + z * m * n (pitch n); hcl_gemm_splitk_sum_f32
 * then adds the slices in order into C. Tiles of 64 x 64 (hcl_gemm_splitk_f32_<tt>), 128 x 128
 * (hcl_gemm_splitk_f32_128_<tt>) or 64 x 128 (hcl_gemm_splitk_f32_64x128_<tt>), as the tiled kernels. */
#define HCL_GEMM_SPLITK_KERNEL(NAME, BM, BN, BK, TM, TN, MINB, TA, TB)                                                 \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_GEMM_THREADS, MINB)                                    \
        NAME(unsigned long long m, unsigned long long n, unsigned long long k, unsigned long long kslice,              \
             const float *A, unsigned long long lda, const float *B, unsigned long long ldb, float *P) {               \
        const long long k0 = (long long)blockIdx.z * (long long)kslice;                                                \
        const long long kk = (long long)k - k0 < (long long)kslice ? (long long)k - k0 : (long long)kslice;            \
        const float *a = TA ? A + k0 * (long long)lda : A + k0;                                                        \
        const float *b = TB ? B + k0 : B + k0 * (long long)ldb;                                                        \
        hcl_gemm_impl<BM, BN, BK, TM, TN, TA, TB, float, float>(                                                       \
            (long long)m, (long long)n, kk, 1.0f, a, (long long)lda, b, (long long)ldb, 0.0f,                          \
            P + (long long)blockIdx.z * (long long)(m * n), (long long)n);                                             \
    }
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_nn, 64, 64, 16, 4, 4, 3, false, false)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_nt, 64, 64, 16, 4, 4, 3, false, true)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_tn, 64, 64, 16, 4, 4, 3, true, false)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_tt, 64, 64, 16, 4, 4, 3, true, true)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_128_nn, 128, 128, 8, 8, 8, 2, false, false)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_128_nt, 128, 128, 8, 8, 8, 2, false, true)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_128_tn, 128, 128, 8, 8, 8, 2, true, false)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_128_tt, 128, 128, 8, 8, 8, 2, true, true)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_64x128_nn, 64, 128, 16, 4, 8, 2, false, false)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_64x128_nt, 64, 128, 16, 4, 8, 2, false, true)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_64x128_tn, 64, 128, 16, 4, 8, 2, true, false)
HCL_GEMM_SPLITK_KERNEL(hcl_gemm_splitk_f32_64x128_tt, 64, 128, 16, 4, 8, 2, true, true)

/* C = alpha * (sum over the slices of P) + beta * C, C of type T (each element rounded once); beta == 0 does not read
 * C. `groups` (1 to 32, a power of two dividing blockDim.x; the plan picks it from the shape alone) threads share an
 * element when C has few elements and the slices are many (a decode row: 1 x 1024 over 64 slices took 5.5 us on an
 * H200 with a thread per element, each reading its 64 slices one after the other): thread group g adds the slices
 * g, g + groups, ... in order, then group 0 adds the groups' sums in group order. The order is fixed by the
 * arguments, so the same call gives the same bits on every run; groups 1 is slice order. */
template <typename T>
__device__ __forceinline__ void hcl_gemm_splitk_sum_impl(unsigned long long m, unsigned long long n,
                                                         unsigned long long slices, const float *P, float alpha,
                                                         float beta, T *C, unsigned long long ldc,
                                                         unsigned long long groups) {
    typedef hcl_elem<T> EC;
    hcl_gpu_wait_previous(); /* the plan may launch it before the partial products are done */
    const unsigned long long total = m * n;
    if (groups == 1) { /* a thread an element, in a grid-stride loop */
        const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
        for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
            float s = 0.0f;
            for (unsigned long long z = 0; z < slices; z++) s += P[z * total + i];
            const unsigned long long at = (i / n) * ldc + i % n;
            EC::st(C, at, beta != 0.0f ? fmaf(beta, EC::ld(C, at), alpha * s) : alpha * s);
        }
        return;
    }
    __shared__ float part[256];
    const unsigned long long per = blockDim.x / groups; /* elements a block takes at a time */
    const unsigned long long g = threadIdx.x / per, o = threadIdx.x % per;
    /* base is the same for the whole block, so every thread reaches the barriers */
    for (unsigned long long base = (unsigned long long)blockIdx.x * per; base < total; base += gridDim.x * per) {
        const unsigned long long i = base + o;
        float s = 0.0f;
        if (i < total)
            for (unsigned long long z = g; z < slices; z += groups) s += P[z * total + i];
        part[threadIdx.x] = s;
        __syncthreads();
        if (g == 0)
            for (unsigned long long h = 1; h < groups; h++) s += part[h * per + o];
        __syncthreads();
        if (g == 0 && i < total) {
            const unsigned long long at = (i / n) * ldc + i % n;
            EC::st(C, at, beta != 0.0f ? fmaf(beta, EC::ld(C, at), alpha * s) : alpha * s);
        }
    }
}
#define HCL_GEMM_SPLITK_SUM_KERNEL(SUFFIX, T)                                                                          \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS(256) hcl_gemm_splitk_sum_##SUFFIX(                                    \
        unsigned long long m, unsigned long long n, unsigned long long slices, const float *P, float alpha,            \
        float beta, T *C, unsigned long long ldc, unsigned long long groups) {                                         \
        hcl_gemm_splitk_sum_impl<T>(m, n, slices, P, alpha, beta, C, ldc, groups);                                     \
    }
HCL_GPU_TYPES(HCL_GEMM_SPLITK_SUM_KERNEL)

/* C = alpha * A B + beta * C for a short k (at most HCL_GEMM_SMALLK; k = 1 is an outer product): writing C is the
 * whole cost, so a block takes HCL_GEMM_SMALLK_ROWS rows of C by 256 consecutive columns (coalesced stores, C read
 * only at beta != 0): it stages its rows' k values of A in shared memory, and each thread holds its column's k values
 * of B in registers. ta, tb: A, B transposed (element (i, p) of A at p * lda + i, (p, j) of B at j * ldb + p). The
 * products are summed in float32 in p order (16-bit inputs widened exactly, TF32 calls too: at most 8 products, no
 * matrix unit); each element of C is rounded once more by alpha and beta, as in the tiled kernels.
 * hcl_gemm_smallk_<f32 | ab_c>. */
#define HCL_GEMM_SMALLK 8
#define HCL_GEMM_SMALLK_ROWS 32
template <typename TAB, typename TC>
__device__ __forceinline__ void hcl_gemm_smallk_impl(unsigned long long m, unsigned long long n, unsigned long long k,
                                                     const TAB *A, unsigned long long lda, const TAB *B,
                                                     unsigned long long ldb, float alpha, float beta, TC *C,
                                                     unsigned long long ldc, unsigned ta, unsigned tb) {
    typedef hcl_elem<TAB> EA;
    typedef hcl_elem<TC> EC;
    __shared__ float a_s[HCL_GEMM_SMALLK_ROWS][HCL_GEMM_SMALLK];
    const unsigned long long i0 = (unsigned long long)blockIdx.y * HCL_GEMM_SMALLK_ROWS;
    const unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned kk = (unsigned)k;
    for (unsigned t = threadIdx.x; t < HCL_GEMM_SMALLK_ROWS * kk; t += blockDim.x) {
        const unsigned r = t / kk, p = t % kk;
        const unsigned long long i = i0 + r;
        a_s[r][p] = i < m ? EA::ld(A, ta ? p * lda + i : i * lda + p) : 0.0f;
    }
    __syncthreads();
    if (j >= n) return;
    float b[HCL_GEMM_SMALLK];
#pragma unroll
    for (unsigned p = 0; p < HCL_GEMM_SMALLK; p++) b[p] = p < kk ? EA::ld(B, tb ? j * ldb + p : p * ldb + j) : 0.0f;
    const unsigned rows = m - i0 < HCL_GEMM_SMALLK_ROWS ? (unsigned)(m - i0) : HCL_GEMM_SMALLK_ROWS;
    for (unsigned r = 0; r < rows; r++) {
        float c = 0.0f;
#pragma unroll
        for (unsigned p = 0; p < HCL_GEMM_SMALLK; p++)
            if (p < kk) c = fmaf(a_s[r][p], b[p], c);
        const unsigned long long at = (i0 + r) * ldc + j;
        EC::st(C, at, beta != 0.0f ? fmaf(beta, EC::ld(C, at), alpha * c) : alpha * c);
    }
}
#define HCL_GEMM_SMALLK_KERNEL(NAME, TAB, TC)                                                                          \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS(256)                                                                  \
        NAME(unsigned long long m, unsigned long long n, unsigned long long k, const TAB *A, unsigned long long lda,   \
             const TAB *B, unsigned long long ldb, float alpha, float beta, TC *C, unsigned long long ldc,             \
             unsigned ta, unsigned tb) {                                                                               \
        hcl_gemm_smallk_impl<TAB, TC>(m, n, k, A, lda, B, ldb, alpha, beta, C, ldc, ta, tb);                           \
    }
HCL_GEMM_SMALLK_KERNEL(hcl_gemm_smallk_f32, float, float)
HCL_GEMM_SMALLK_KERNEL(hcl_gemm_smallk_f16_f16, hcl_f16_t, hcl_f16_t)
HCL_GEMM_SMALLK_KERNEL(hcl_gemm_smallk_f16_f32, hcl_f16_t, float)
HCL_GEMM_SMALLK_KERNEL(hcl_gemm_smallk_bf16_bf16, hcl_bf16_t, hcl_bf16_t)
HCL_GEMM_SMALLK_KERNEL(hcl_gemm_smallk_bf16_f32, hcl_bf16_t, float)

/* C = beta * C over an m x n window (k == 0 or alpha == 0); beta == 0 writes zeros without reading C. */
template <typename T>
__device__ __forceinline__ void hcl_gemm_scale_impl(unsigned long long m, unsigned long long n, float beta, T *C,
                                                    unsigned long long ldc) {
    typedef hcl_elem<T> E;
    const unsigned long long total = m * n;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        const unsigned long long r = i / n, c = i % n;
        E::st(C, r * ldc + c, beta != 0.0f ? beta * E::ld(C, r * ldc + c) : 0.0f);
    }
}

#define HCL_GEMM_SCALE_KERNEL(SUFFIX, T)                                                                               \
    extern "C" __global__ void hcl_gemm_scale_##SUFFIX(unsigned long long m, unsigned long long n, float beta, T *C,   \
                                                       unsigned long long ldc) {                                       \
        hcl_gemm_scale_impl<T>(m, n, beta, C, ldc);                                                                    \
    }
HCL_GPU_TYPES(HCL_GEMM_SCALE_KERNEL)

/* out = in^T for float32: in is rows x cols (row pitch ld_in), out cols x rows (pitch ld_out), through 32 x 32 tiles
 * in shared memory (reads and writes both coalesced). Block 32 x 8, grid (ceil(cols / 32), ceil(rows / 32)). The TF32
 * plan of Hopper (plan_tc.c) uses it for an operand that is not K-contiguous. */
extern "C" __global__ void HCL_LAUNCH_BOUNDS(256)
    hcl_transpose_f32(unsigned long long rows, unsigned long long cols, const float *in, unsigned long long ld_in,
                      float *out, unsigned long long ld_out) {
    __shared__ float tile[32][33];
    const unsigned long long r0 = (unsigned long long)blockIdx.y * 32, c0 = (unsigned long long)blockIdx.x * 32;
    for (unsigned i = threadIdx.y; i < 32; i += 8) {
        const unsigned long long r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[i][threadIdx.x] = in[r * ld_in + c];
    }
    __syncthreads();
    for (unsigned i = threadIdx.y; i < 32; i += 8) {
        const unsigned long long c = c0 + i, r = r0 + threadIdx.x;
        if (c < cols && r < rows) out[c * ld_out + r] = tile[threadIdx.x][i];
    }
}
