/* gemm on NVIDIA tensor cores (CUDA, sm_80 and later): C = alpha * op(A) * op(B) + beta * C with A and B in f16 or
 * bf16 (C in their type or f32), or f32 rounded to TF32 (C f32). Accumulation is float32 in the tensor cores.
 *
 * A block of 256 threads (8 warps, 2 x 4) computes a 128 x 128 tile of C; each warp a 64 x 32 part of it, as 4 x 4
 * mma.sync tiles of 16 x 8 (m16n8k16 for f16/bf16, m16n8k8 for TF32). K goes in steps of BK (32 halves or 16
 * floats: 64 bytes of each row). Shared-memory tiles keep the layout the matrix has in global memory, so the
 * global -> shared copy is 16-byte vectors both ways: a tile whose K is contiguous is [128][BK + pad], one whose M (or
 * N) is contiguous is [BK][128 + pad]. The fragments come out with ldmatrix (its .trans form for the M/N-contiguous
 * tiles) for 16-bit types, with 32-bit loads converted by cvt.rna.tf32 for TF32; the paddings keep both
 * conflict-free. The next step's vectors are fetched into registers while the current step multiplies (two shared
 * buffers, one barrier per step). Edges load zeros and stores are bounds-checked, so any m, n, k >= 1 works; a vector
 * load needs ld a multiple of the vector and a 16-byte aligned base, else elements are loaded one by one.
 * BLAS rules: beta == 0 does not read C. k == 0 and alpha == 0 never come here (hcl_gemm_scale_*).
 * The kernels exist in every build of the text; their bodies only where __CUDA_ARCH__ >= 800 (mma.sync with bf16 and
 * TF32), empty elsewhere (older CUDA targets, HIP), where the plan never launches them. */

#include "hcl_gpu_types.h"

#define HCL_TC_THREADS 256
#define HCL_TC_TILE 128
#define HCL_TC_BUF_BYTES 10240 /* one tile of one matrix: 128 x 40 halves or 128 x 20 floats */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(HCL_GPU_HIP_KERNEL)
#define HCL_TC_ENABLED 1
#endif

/* Per input type: element bytes, the K step of a tile (BK) and of one mma (KMMA). */
template <typename T> struct hcl_tc_traits {
    enum { ESIZE = 2, BK = 32, KMMA = 16, VEC = 8 };
};
template <> struct hcl_tc_traits<float> {
    enum { ESIZE = 4, BK = 16, KMMA = 8, VEC = 4 };
};

/* 16 bytes as 8 halves or 4 words */
union hcl_tc_vec {
    uint4 v;
    unsigned short h[8];
    unsigned w[4];
};

#ifdef HCL_TC_ENABLED
__device__ __forceinline__ unsigned hcl_tc_smem_addr(const void *p) {
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

__device__ __forceinline__ unsigned hcl_tc_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

template <typename T> __device__ __forceinline__ void hcl_tc_mma(float *c, const unsigned *a, const unsigned *b);
template <> __device__ __forceinline__ void hcl_tc_mma<hcl_f16_t>(float *c, const unsigned *a, const unsigned *b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> __device__ __forceinline__ void hcl_tc_mma<hcl_bf16_t>(float *c, const unsigned *a, const unsigned *b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> __device__ __forceinline__ void hcl_tc_mma<float>(float *c, const unsigned *a, const unsigned *b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The shared tile of one matrix: KC (K contiguous) is [128][BK + PADK]; otherwise [BK][128 + 8]. Strides in
 * elements; both 16-byte multiples. */
template <typename T, bool KC> struct hcl_tc_tile {
    typedef hcl_tc_traits<T> tr;
    enum { STRIDE = KC ? tr::BK + 16 / tr::ESIZE : HCL_TC_TILE + 8 };
    static __device__ __forceinline__ unsigned offset(int mn, int k) {
        return (unsigned)(KC ? mn * STRIDE + k : k * STRIDE + mn) * tr::ESIZE;
    }
};

/* Fetch this thread's two 16-byte vectors of the tile at (mn0, k0) of a matrix P (element (mn, k) at
 * P[mn * ld + k] when KC, else P[k * ld + mn]; mn < mn_total, k < k_total), zeros outside. */
template <typename T, bool KC>
__device__ __forceinline__ void hcl_tc_fetch(const T *P, long long ld, long long mn_total, long long k_total,
                                             long long mn0, long long k0, bool vec_ok, hcl_tc_vec *r) {
    typedef hcl_tc_traits<T> tr;
    constexpr int PER_ROW = KC ? tr::BK / tr::VEC : HCL_TC_TILE / tr::VEC; /* vectors per row of the tile */
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int v = threadIdx.x + i * HCL_TC_THREADS;
        const long long row = v / PER_ROW, col = (long long)(v % PER_ROW) * tr::VEC;
        const long long mn = KC ? mn0 + row : mn0 + col, k = KC ? k0 + col : k0 + row;
        const T *p = P + (KC ? mn * ld + k : k * ld + mn);
        const bool in_full = KC ? (mn < mn_total && k + tr::VEC <= k_total) : (k < k_total && mn + tr::VEC <= mn_total);
        if (vec_ok && in_full) {
            r[i].v = *(const uint4 *)(const void *)p;
        } else {
#pragma unroll
            for (int e = 0; e < tr::VEC; e++) {
                const bool in = KC ? (mn < mn_total && k + e < k_total) : (k < k_total && mn + e < mn_total);
                if (tr::ESIZE == 2)
                    r[i].h[e] = in ? ((const unsigned short *)(const void *)p)[e] : (unsigned short)0;
                else
                    r[i].w[e] = in ? ((const unsigned *)(const void *)p)[e] : 0u;
            }
        }
    }
}

/* Store the fetched vectors into the shared tile (the same layout as the fetch read). */
template <typename T, bool KC> __device__ __forceinline__ void hcl_tc_stash(unsigned char *tile, const hcl_tc_vec *r) {
    typedef hcl_tc_traits<T> tr;
    constexpr int PER_ROW = KC ? tr::BK / tr::VEC : HCL_TC_TILE / tr::VEC;
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int v = threadIdx.x + i * HCL_TC_THREADS;
        const int row = v / PER_ROW, col = (v % PER_ROW) * tr::VEC;
        const unsigned off = KC ? hcl_tc_tile<T, KC>::offset(row, col) : hcl_tc_tile<T, KC>::offset(col, row);
        *(uint4 *)(tile + off) = r[i].v;
    }
}

/* The A fragment (16 x KMMA at rows m0.., k k0..) and the B fragment (KMMA x 8 at columns n0..) of one mma. */
template <typename T, bool AKC>
__device__ __forceinline__ void hcl_tc_frag_a(const unsigned char *tile, int m0, int k0, unsigned *a) {
    typedef hcl_tc_tile<T, AKC> tl;
    const int lane = threadIdx.x % 32;
    if (hcl_tc_traits<T>::ESIZE == 2) {
        const int j = lane / 8, r = lane % 8; /* the row address this lane gives for matrix j */
        if (AKC) {
            const unsigned addr = hcl_tc_smem_addr(tile + tl::offset(m0 + (j & 1) * 8 + r, k0 + (j >> 1) * 8));
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                         : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                         : "r"(addr));
        } else {
            const unsigned addr = hcl_tc_smem_addr(tile + tl::offset(m0 + (j & 1) * 8, k0 + (j >> 1) * 8 + r));
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                         : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                         : "r"(addr));
        }
    } else {
        const int g = lane / 4, t = lane % 4;
        const float *f = (const float *)(const void *)tile;
        a[0] = hcl_tc_tf32(f[tl::offset(m0 + g, k0 + t) / 4]);
        a[1] = hcl_tc_tf32(f[tl::offset(m0 + g + 8, k0 + t) / 4]);
        a[2] = hcl_tc_tf32(f[tl::offset(m0 + g, k0 + t + 4) / 4]);
        a[3] = hcl_tc_tf32(f[tl::offset(m0 + g + 8, k0 + t + 4) / 4]);
    }
}

template <typename T, bool BKC>
__device__ __forceinline__ void hcl_tc_frag_b(const unsigned char *tile, int n0, int k0, unsigned *b) {
    typedef hcl_tc_tile<T, BKC> tl;
    const int lane = threadIdx.x % 32;
    if (hcl_tc_traits<T>::ESIZE == 2) {
        const int j = (lane / 8) & 1, r = lane % 8; /* lanes 16..31 repeat 0..15 (their addresses are not used) */
        if (BKC) {
            const unsigned addr = hcl_tc_smem_addr(tile + tl::offset(n0 + r, k0 + j * 8));
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                         : "=r"(b[0]), "=r"(b[1])
                         : "r"(addr));
        } else {
            const unsigned addr = hcl_tc_smem_addr(tile + tl::offset(n0, k0 + j * 8 + r));
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                         : "=r"(b[0]), "=r"(b[1])
                         : "r"(addr));
        }
    } else {
        const int g = lane / 4, t = lane % 4;
        const float *f = (const float *)(const void *)tile;
        b[0] = hcl_tc_tf32(f[tl::offset(n0 + g, k0 + t) / 4]);
        b[1] = hcl_tc_tf32(f[tl::offset(n0 + g, k0 + t + 4) / 4]);
    }
}

template <bool TA, bool TB, typename TAB, typename TC>
__device__ __forceinline__ void hcl_tc_gemm(long long m, long long n, long long k, float alpha, const TAB *A,
                                            long long lda, const TAB *B, long long ldb, float beta, TC *C,
                                            long long ldc) {
    typedef hcl_tc_traits<TAB> tr;
    typedef hcl_elem<TC> EC;
    constexpr bool AKC = !TA; /* A is m x k with k contiguous unless transposed */
    constexpr bool BKC = TB;  /* B is k x n with n contiguous unless transposed (then n x k) */
    __shared__ __align__(16) unsigned char smem[2][2][HCL_TC_BUF_BYTES];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp / 4, wn = warp % 4; /* the warp's 64 x 32 part of the tile */
    const int g = lane / 4, t = lane % 4;
    const bool a_vec = lda % tr::VEC == 0 && hcl_aligned16(A);
    const bool b_vec = ldb % tr::VEC == 0 && hcl_aligned16(B);
    const long long tiles_m = (m + HCL_TC_TILE - 1) / HCL_TC_TILE, tiles_n = (n + HCL_TC_TILE - 1) / HCL_TC_TILE;
    const long long steps = (k + tr::BK - 1) / tr::BK;

    for (long long tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
        for (long long tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
            const long long row0 = tm * HCL_TC_TILE, col0 = tn * HCL_TC_TILE;
            float acc[4][4][4];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
#pragma unroll
                    for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0f;

            hcl_tc_vec ra[2], rb[2];
            hcl_tc_fetch<TAB, AKC>(A, lda, m, k, row0, 0, a_vec, ra);
            hcl_tc_fetch<TAB, BKC>(B, ldb, n, k, col0, 0, b_vec, rb);
            hcl_tc_stash<TAB, AKC>(smem[0][0], ra);
            hcl_tc_stash<TAB, BKC>(smem[0][1], rb);
            __syncthreads();
            for (long long s = 0; s < steps; s++) {
                const int cur = (int)(s & 1);
                if (s + 1 < steps) {
                    hcl_tc_fetch<TAB, AKC>(A, lda, m, k, row0, (s + 1) * tr::BK, a_vec, ra);
                    hcl_tc_fetch<TAB, BKC>(B, ldb, n, k, col0, (s + 1) * tr::BK, b_vec, rb);
                }
#pragma unroll
                for (int kk = 0; kk < tr::BK; kk += tr::KMMA) {
                    unsigned af[4][4], bf[4][2];
#pragma unroll
                    for (int i = 0; i < 4; i++) hcl_tc_frag_a<TAB, AKC>(smem[cur][0], wm * 64 + i * 16, kk, af[i]);
#pragma unroll
                    for (int j = 0; j < 4; j++) hcl_tc_frag_b<TAB, BKC>(smem[cur][1], wn * 32 + j * 8, kk, bf[j]);
#pragma unroll
                    for (int i = 0; i < 4; i++)
#pragma unroll
                        for (int j = 0; j < 4; j++) hcl_tc_mma<TAB>(acc[i][j], af[i], bf[j]);
                }
                if (s + 1 < steps) {
                    hcl_tc_stash<TAB, AKC>(smem[cur ^ 1][0], ra);
                    hcl_tc_stash<TAB, BKC>(smem[cur ^ 1][1], rb);
                }
                __syncthreads();
            }

            /* Epilogue: acc[i][j] = {(g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)} of the 16 x 8 piece */
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const long long r = row0 + wm * 64 + i * 16 + g + h * 8;
                    if (r >= m) continue;
#pragma unroll
                    for (int j = 0; j < 4; j++)
#pragma unroll
                        for (int q = 0; q < 2; q++) {
                            const long long c = col0 + wn * 32 + j * 8 + 2 * t + q;
                            if (c >= n) continue;
                            const unsigned long long at = (unsigned long long)(r * ldc + c);
                            float v = alpha * acc[i][j][h * 2 + q];
                            if (beta != 0.0f) v = fmaf(beta, EC::ld(C, at), v);
                            EC::st(C, at, v);
                        }
                }
        }
    }
}
#endif /* HCL_TC_ENABLED */

#ifdef HCL_TC_ENABLED
#define HCL_TC_BODY(TA, TB, TAB, TC)                                                                                   \
    hcl_tc_gemm<TA, TB, TAB, TC>((long long)m, (long long)n, (long long)k, alpha, A, (long long)lda, B,                \
                                 (long long)ldb, beta, C, (long long)ldc);
#else
#define HCL_TC_BODY(TA, TB, TAB, TC)                                                                                   \
    (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
#endif

/* hcl_gemm_tc_<ab>_<c>_<nn|nt|tn|tt>: the arguments of the SIMT kernels (gemm.cu). MINB: blocks per SM to keep
 * resident. 2 caps the 16-bit kernels at 128 registers (H100, 4096^3 bf16: 213 TFLOP/s against 164 at 167 registers
 * and one block); the TF32 kernel spills under that cap and was slower (73 against 80), so it keeps one. */
#define HCL_TC_KERNEL(NAME, TA, TB, TAB, TC, MINB)                                                                     \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_TC_THREADS, MINB) NAME(                                \
        unsigned long long m, unsigned long long n, unsigned long long k, float alpha, const TAB *A,                   \
        unsigned long long lda, const TAB *B, unsigned long long ldb, float beta, TC *C, unsigned long long ldc) {     \
        HCL_TC_BODY(TA, TB, TAB, TC)                                                                                   \
    }
#define HCL_TC_KERNELS(TYPES, TAB, TC, MINB)                                                                           \
    HCL_TC_KERNEL(hcl_gemm_tc_##TYPES##_nn, false, false, TAB, TC, MINB)                                               \
    HCL_TC_KERNEL(hcl_gemm_tc_##TYPES##_nt, false, true, TAB, TC, MINB)                                                \
    HCL_TC_KERNEL(hcl_gemm_tc_##TYPES##_tn, true, false, TAB, TC, MINB)                                                \
    HCL_TC_KERNEL(hcl_gemm_tc_##TYPES##_tt, true, true, TAB, TC, MINB)

/* Split-K (hcl__plan_gemm_splitk in plan_splitk.c, as gemm.cu's hcl_gemm_splitk_f32_*): slice blockIdx.z takes k in
 * [z * kslice, min(k, (z + 1) * kslice)) (kslice a multiple of 64, so the slices keep the operands' alignment) and
 * writes its partial product, alpha 1 and beta 0, as floats to P + z * m * n (pitch n); hcl_gemm_splitk_sum_<c> then
 * adds the slices in order into C. */
#ifdef HCL_TC_ENABLED
#define HCL_TC_SPLITK_BODY(TA, TB, TAB)                                                                                \
    const long long k0 = (long long)blockIdx.z * (long long)kslice;                                                    \
    const long long kk = (long long)k - k0 < (long long)kslice ? (long long)k - k0 : (long long)kslice;                \
    hcl_tc_gemm<TA, TB, TAB, float>((long long)m, (long long)n, kk, 1.0f, TA ? A + k0 * (long long)lda : A + k0,       \
                                    (long long)lda, TB ? B + k0 : B + k0 * (long long)ldb, (long long)ldb, 0.0f,       \
                                    P + (long long)blockIdx.z * (long long)(m * n), (long long)n);
#else
#define HCL_TC_SPLITK_BODY(TA, TB, TAB)                                                                                \
    (void)m, (void)n, (void)k, (void)kslice, (void)A, (void)lda, (void)B, (void)ldb, (void)P;
#endif
#define HCL_TC_SPLITK_KERNEL(NAME, TA, TB, TAB, MINB)                                                                  \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_TC_THREADS, MINB)                                      \
        NAME(unsigned long long m, unsigned long long n, unsigned long long k, unsigned long long kslice,              \
             const TAB *A, unsigned long long lda, const TAB *B, unsigned long long ldb, float *P) {                   \
        HCL_TC_SPLITK_BODY(TA, TB, TAB)                                                                                \
    }
#define HCL_TC_SPLITK_KERNELS(TYPE, TAB, MINB)                                                                         \
    HCL_TC_SPLITK_KERNEL(hcl_gemm_tc_splitk_##TYPE##_nn, false, false, TAB, MINB)                                      \
    HCL_TC_SPLITK_KERNEL(hcl_gemm_tc_splitk_##TYPE##_nt, false, true, TAB, MINB)                                       \
    HCL_TC_SPLITK_KERNEL(hcl_gemm_tc_splitk_##TYPE##_tn, true, false, TAB, MINB)                                       \
    HCL_TC_SPLITK_KERNEL(hcl_gemm_tc_splitk_##TYPE##_tt, true, true, TAB, MINB)
HCL_TC_SPLITK_KERNELS(f16, hcl_f16_t, 2)
HCL_TC_SPLITK_KERNELS(bf16, hcl_bf16_t, 2)
HCL_TC_SPLITK_KERNELS(tf32, float, 1)

HCL_TC_KERNELS(f16_f16, hcl_f16_t, hcl_f16_t, 2)
HCL_TC_KERNELS(f16_f32, hcl_f16_t, float, 2)
HCL_TC_KERNELS(bf16_bf16, hcl_bf16_t, hcl_bf16_t, 2)
HCL_TC_KERNELS(bf16_f32, hcl_bf16_t, float, 2)
HCL_TC_KERNELS(tf32_f32, float, float, 1)
