/* gemm on AMD matrix cores (HIP, MFMA of CDNA: gfx908 f16, gfx90a and gfx94x f16 and bf16): C = alpha * op(A) *
 * op(B) + beta * C with A and B in f16 or bf16, C in their type or f32. Accumulation is float32 in the matrix cores.
 *
 * A block of 256 threads (4 wavefronts of 64, 2 x 2) computes a 128 x 128 tile of C; each wavefront a 64 x 64 part
 * of it, as 2 x 2 v_mfma_f32_32x32x8 tiles (f16; bf16_1k on gfx90a, the same instruction named _bf16 on gfx94x) of
 * 16 floats per lane. K goes in steps of BK = 32. The shared-memory tiles are K-contiguous whatever the layout in
 * global memory ([128][BK + 8]), so that each lane's MFMA operand (4 consecutive k of one row: lane l holds
 * A[l % 32][4 * (l / 32) .. + 3], B[4 * (l / 32) .. + 3][l % 32]) is one 8-byte LDS read; the global -> shared copy
 * is 16-byte vectors (8 elements along the contiguous dimension), stored as two 8-byte writes when K is contiguous
 * and as 8 16-bit writes down a column otherwise. Those column writes put the lanes of a wavefront on rows 8 apart,
 * which the padding alone maps to one LDS bank (8 rows of 80 bytes: 160 words), so each row's 4-element groups of k
 * are XOR-swizzled by its row / 8 (hcl_mfma_at), spreading them over 8 positions. The next step's vectors are
 * fetched into registers while the current step multiplies (two shared buffers, one barrier per step). Result lane l, register r of a 32 x 32 tile: row 8 * (r / 4) +
 * 4 * (l / 32) + r % 4, column l % 32 (AMD's matrix instruction calculator, CDNA1-3). Edges load zeros and stores are
 * bounds-checked, so any m, n, k >= 1 works; a vector load needs ld a multiple of 8 and a 16-byte aligned base, else
 * elements are loaded one by one. BLAS rules: beta == 0 does not read C. k == 0 and alpha == 0 never come here
 * (hcl_gemm_scale_*).
 * The kernels exist in every build of the text; their bodies only in a HIP device compile for a target with the
 * instructions (f16: __gfx908__, __gfx90a__, __gfx940__-__gfx942__; bf16: not gfx908, whose MFMA has no bf16_1k),
 * empty elsewhere (CUDA, other gfx), where the plan never launches them (kernels/gemm/plan_mfma.c, from the HIP
 * driver's matrix_types). HCL_MFMA_HOST_EMULATION (kernels/test_mfma_emulation.cpp) compiles the bodies as host C++
 * with an emulation of the instruction; no AMD GPU has run them. */

#include "hcl_gpu_types.h"

#define HCL_MFMA_THREADS 256
#define HCL_MFMA_TILE 128
#define HCL_MFMA_BK 32
#define HCL_MFMA_STRIDE (HCL_MFMA_BK + 8) /* elements a shared row: 80 bytes, 8 rows on 8 distinct pairs of banks */

#if defined(HCL_MFMA_HOST_EMULATION)
#define HCL_MFMA_F16 1
#define HCL_MFMA_BF16 1
#elif defined(HCL_GPU_HIP_KERNEL) /* the gfx macros: only in a device compile for that target */
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define HCL_MFMA_F16 1
#define HCL_MFMA_BF16 1
#elif defined(__gfx908__)
#define HCL_MFMA_F16 1
#endif
#endif

#if defined(HCL_MFMA_F16) || defined(HCL_MFMA_BF16)
#define HCL_MFMA_ENABLED 1
#endif

#ifdef HCL_MFMA_ENABLED
#ifndef HCL_MFMA_HOST_EMULATION
/* One lane's operand (4 x 16 bits) and result (16 floats) of a 32 x 32 x 8 MFMA. */
typedef short hcl_mfma_frag __attribute__((ext_vector_type(4)));
typedef float hcl_mfma_acc __attribute__((ext_vector_type(16)));
typedef _Float16 hcl_mfma_half4 __attribute__((ext_vector_type(4)));

template <typename T>
__device__ __forceinline__ void hcl_mfma_32x32x8(hcl_mfma_acc &c, hcl_mfma_frag a, hcl_mfma_frag b);
#ifdef HCL_MFMA_F16
template <>
__device__ __forceinline__ void hcl_mfma_32x32x8<hcl_f16_t>(hcl_mfma_acc &c, hcl_mfma_frag a, hcl_mfma_frag b) {
    c = __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(hcl_mfma_half4, a),
                                             __builtin_bit_cast(hcl_mfma_half4, b), c, 0, 0, 0);
}
#endif
#ifdef HCL_MFMA_BF16
template <>
__device__ __forceinline__ void hcl_mfma_32x32x8<hcl_bf16_t>(hcl_mfma_acc &c, hcl_mfma_frag a, hcl_mfma_frag b) {
    c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
}
#endif
#endif /* !HCL_MFMA_HOST_EMULATION: the emulation defines the types and hcl_mfma_32x32x8 */

/* 16 bytes as 8 halves or two 8-byte halves */
union hcl_mfma_vec {
    uint4 v;
    unsigned long long d[2];
    unsigned short h[8];
};

/* Where element (mn, k) of a tile is in shared memory: row mn, its 4-element group of k swizzled by mn / 8. */
__device__ __forceinline__ int hcl_mfma_at(int mn, int k) {
    return mn * HCL_MFMA_STRIDE + (((k >> 2) ^ ((mn >> 3) & 7)) << 2) + (k & 3);
}

/* Fetch this thread's two 16-byte vectors of the 128 x BK tile at (mn0, k0) of a matrix P (element (mn, k) at
 * P[mn * ld + k] when KC, else P[k * ld + mn]; mn < mn_total, k < k_total), zeros outside. */
template <bool KC>
__device__ __forceinline__ void hcl_mfma_fetch(const unsigned short *P, long long ld, long long mn_total,
                                               long long k_total, long long mn0, long long k0, bool vec_ok,
                                               hcl_mfma_vec *r) {
    constexpr int PER_ROW = KC ? HCL_MFMA_BK / 8 : HCL_MFMA_TILE / 8; /* vectors per row of the tile */
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int v = (int)threadIdx.x + i * HCL_MFMA_THREADS;
        const long long row = v / PER_ROW, col = (long long)(v % PER_ROW) * 8;
        const long long mn = KC ? mn0 + row : mn0 + col, k = KC ? k0 + col : k0 + row;
        const unsigned short *p = P + (KC ? mn * ld + k : k * ld + mn);
        const bool in_full = KC ? (mn < mn_total && k + 8 <= k_total) : (k < k_total && mn + 8 <= mn_total);
        if (vec_ok && in_full) {
            r[i].v = *(const uint4 *)(const void *)p;
        } else {
#pragma unroll
            for (int e = 0; e < 8; e++) {
                const bool in = KC ? (mn < mn_total && k + e < k_total) : (k < k_total && mn + e < mn_total);
                r[i].h[e] = in ? p[e] : (unsigned short)0;
            }
        }
    }
}

/* Store the fetched vectors into the K-contiguous shared tile [128][STRIDE]: two 8-byte halves when the matrix is K
 * contiguous (each 4 elements of k, swizzled apart), else its 8 elements down a column. */
template <bool KC> __device__ __forceinline__ void hcl_mfma_stash(unsigned short *tile, const hcl_mfma_vec *r) {
    constexpr int PER_ROW = KC ? HCL_MFMA_BK / 8 : HCL_MFMA_TILE / 8;
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int v = (int)threadIdx.x + i * HCL_MFMA_THREADS;
        const int row = v / PER_ROW, col = (v % PER_ROW) * 8;
        if (KC) {
            *(unsigned long long *)(void *)(tile + hcl_mfma_at(row, col)) = r[i].d[0];
            *(unsigned long long *)(void *)(tile + hcl_mfma_at(row, col + 4)) = r[i].d[1];
        } else {
#pragma unroll
            for (int e = 0; e < 8; e++) tile[hcl_mfma_at(col + e, row)] = r[i].h[e];
        }
    }
}

/* This lane's operand of a 32 x 8 piece at row mn0, k k0 of a shared tile: 4 consecutive k of row mn0 + lane % 32. */
__device__ __forceinline__ hcl_mfma_frag hcl_mfma_operand(const unsigned short *tile, int mn0, int k0, int lane) {
    return *(const hcl_mfma_frag *)(const void *)(tile + hcl_mfma_at(mn0 + lane % 32, k0 + 4 * (lane / 32)));
}

template <bool TA, bool TB, typename TAB, typename TC>
__device__ __forceinline__ void hcl_mfma_gemm(long long m, long long n, long long k, float alpha, const TAB *A,
                                              long long lda, const TAB *B, long long ldb, float beta, TC *C,
                                              long long ldc) {
    typedef hcl_elem<TC> EC;
    constexpr bool AKC = !TA; /* A is m x k with k contiguous unless transposed */
    constexpr bool BKC = TB;  /* B is k x n with n contiguous unless transposed (then n x k) */
    __shared__ __attribute__((aligned(16))) unsigned short smem[2][2][HCL_MFMA_TILE * HCL_MFMA_STRIDE];

    const int wave = (int)threadIdx.x / 64, lane = (int)threadIdx.x % 64; /* wave64 on every MFMA target */
    const int wm = wave / 2, wn = wave % 2;                               /* the wavefront's 64 x 64 part */
    const unsigned short *Ah = (const unsigned short *)(const void *)A, *Bh = (const unsigned short *)(const void *)B;
    const bool a_vec = lda % 8 == 0 && hcl_aligned16(A);
    const bool b_vec = ldb % 8 == 0 && hcl_aligned16(B);
    const long long tiles_m = (m + HCL_MFMA_TILE - 1) / HCL_MFMA_TILE,
                    tiles_n = (n + HCL_MFMA_TILE - 1) / HCL_MFMA_TILE;
    const long long steps = (k + HCL_MFMA_BK - 1) / HCL_MFMA_BK;

    for (long long tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
        for (long long tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
            const long long row0 = tm * HCL_MFMA_TILE, col0 = tn * HCL_MFMA_TILE;
            hcl_mfma_acc acc[2][2];
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
#pragma unroll
                    for (int q = 0; q < 16; q++) acc[i][j][q] = 0.0f;

            hcl_mfma_vec ra[2], rb[2];
            hcl_mfma_fetch<AKC>(Ah, lda, m, k, row0, 0, a_vec, ra);
            hcl_mfma_fetch<BKC>(Bh, ldb, n, k, col0, 0, b_vec, rb);
            hcl_mfma_stash<AKC>(smem[0][0], ra);
            hcl_mfma_stash<BKC>(smem[0][1], rb);
            __syncthreads();
            for (long long s = 0; s < steps; s++) {
                const int cur = (int)(s & 1);
                if (s + 1 < steps) {
                    hcl_mfma_fetch<AKC>(Ah, lda, m, k, row0, (s + 1) * HCL_MFMA_BK, a_vec, ra);
                    hcl_mfma_fetch<BKC>(Bh, ldb, n, k, col0, (s + 1) * HCL_MFMA_BK, b_vec, rb);
                }
#pragma unroll
                for (int kk = 0; kk < HCL_MFMA_BK; kk += 8) {
                    hcl_mfma_frag af[2], bf[2];
#pragma unroll
                    for (int i = 0; i < 2; i++) af[i] = hcl_mfma_operand(smem[cur][0], wm * 64 + i * 32, kk, lane);
#pragma unroll
                    for (int j = 0; j < 2; j++) bf[j] = hcl_mfma_operand(smem[cur][1], wn * 64 + j * 32, kk, lane);
#pragma unroll
                    for (int i = 0; i < 2; i++)
#pragma unroll
                        for (int j = 0; j < 2; j++) hcl_mfma_32x32x8<TAB>(acc[i][j], af[i], bf[j]);
                }
                if (s + 1 < steps) {
                    hcl_mfma_stash<AKC>(smem[cur ^ 1][0], ra);
                    hcl_mfma_stash<BKC>(smem[cur ^ 1][1], rb);
                }
                __syncthreads();
            }

            /* Epilogue: register q of acc[i][j] is (8 * (q / 4) + 4 * (lane / 32) + q % 4, lane % 32) of its 32 x 32
             * piece; a register's 32 lanes write 32 consecutive columns of one row */
            const long long c = col0 + wn * 64 + lane % 32;
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int q = 0; q < 16; q++) {
                    const long long r = row0 + wm * 64 + i * 32 + 8 * (q / 4) + 4 * (lane / 32) + q % 4;
                    if (r >= m) continue;
#pragma unroll
                    for (int j = 0; j < 2; j++) {
                        if (c + j * 32 >= n) continue;
                        const unsigned long long at = (unsigned long long)(r * ldc + c + j * 32);
                        float v = alpha * acc[i][j][q];
                        if (beta != 0.0f) v = fmaf(beta, EC::ld(C, at), v);
                        EC::st(C, at, v);
                    }
                }
        }
    }
}
#endif /* HCL_MFMA_ENABLED */

#define HCL_MFMA_ARGS_UNUSED                                                                                           \
    (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
#define HCL_MFMA_CALL(TA, TB, TAB, TC)                                                                                 \
    hcl_mfma_gemm<TA, TB, TAB, TC>((long long)m, (long long)n, (long long)k, alpha, A, (long long)lda, B,              \
                                   (long long)ldb, beta, C, (long long)ldc);
#ifdef HCL_MFMA_F16
#define HCL_MFMA_BODY_f16 HCL_MFMA_CALL
#else
#define HCL_MFMA_BODY_f16(TA, TB, TAB, TC) HCL_MFMA_ARGS_UNUSED
#endif
#ifdef HCL_MFMA_BF16
#define HCL_MFMA_BODY_bf16 HCL_MFMA_CALL
#else
#define HCL_MFMA_BODY_bf16(TA, TB, TAB, TC) HCL_MFMA_ARGS_UNUSED
#endif

/* hcl_gemm_mfma_<ab>_<c>_<nn|nt|tn|tt>: the arguments of the SIMT kernels (gemm.cu). */
#define HCL_MFMA_KERNEL(NAME, TA, TB, AB, TAB, TC)                                                                     \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS(HCL_MFMA_THREADS) NAME(                                               \
        unsigned long long m, unsigned long long n, unsigned long long k, float alpha, const TAB *A,                   \
        unsigned long long lda, const TAB *B, unsigned long long ldb, float beta, TC *C, unsigned long long ldc) {     \
        HCL_MFMA_BODY_##AB(TA, TB, TAB, TC)                                                                            \
    }
#define HCL_MFMA_KERNELS(TYPES, AB, TAB, TC)                                                                           \
    HCL_MFMA_KERNEL(hcl_gemm_mfma_##TYPES##_nn, false, false, AB, TAB, TC)                                             \
    HCL_MFMA_KERNEL(hcl_gemm_mfma_##TYPES##_nt, false, true, AB, TAB, TC)                                              \
    HCL_MFMA_KERNEL(hcl_gemm_mfma_##TYPES##_tn, true, false, AB, TAB, TC)                                              \
    HCL_MFMA_KERNEL(hcl_gemm_mfma_##TYPES##_tt, true, true, AB, TAB, TC)

HCL_MFMA_KERNELS(f16_f16, f16, hcl_f16_t, hcl_f16_t)
HCL_MFMA_KERNELS(f16_f32, f16, hcl_f16_t, float)
HCL_MFMA_KERNELS(bf16_bf16, bf16, hcl_bf16_t, hcl_bf16_t)
HCL_MFMA_KERNELS(bf16_f32, bf16, hcl_bf16_t, float)
