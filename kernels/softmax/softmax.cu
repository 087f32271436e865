/* softmax (CUDA and HIP): row-wise softmax of a rows x cols row-major matrix, out[r][j] = exp(in[r][j] - max_r) / sum,
 * in f32, f16 or bf16 (hcl_gpu_types.h: float arithmetic, each output rounded once; staged rows are floats).
 *
 * Four shapes, picked by the host from cols (kernels/softmax/plan.c):
 *  - hcl_softmax_warp<V>_<type>, cols <= V * warpSize: one warp per row, the row held in registers (V values per lane),
 *    one read and one write of global memory; 16-bit rows of whole vectors held as they came (V = 64 too, 16-bit only).
 *  - hcl_softmax_split<CS>_<E>_<type>, cols <= CS * blockDim.x * E: a row over CS blocks (a thread block cluster when
 *    CS > 1, sm_90), each thread holding E values in registers; one read and one write (split1_64: 16-bit only).
 *  - hcl_softmax_block_staged_<type>, cols * 4 bytes fit the dynamic shared memory the host gives it: one block per
 *    row, the row staged in shared memory, one read and one write (longer rows where there are no clusters).
 *  - hcl_softmax_block_<type>, any cols: one block per row, an online max/sum pass (rescaling the running sum when
 *    the max grows) and a write pass that reads the row again (mostly from L2). Nothing is staged, so any row
 *    length works.
 * -inf entries give 0; a row of all -inf gives NaN (0/0) as in PyTorch; NaN entries make the row NaN. Each
 * element is read before it is written by the same thread, so out may be in (no __restrict__).
 * Also the HIP kernel (softmax.hip): a "warp" is warpSize lanes (32 on NVIDIA, 64 or 32 on AMD), so the warp
 * kernels hold V * warpSize columns and run blockDim.x / warpSize rows per block; the host picks V and the grid
 * from the device's width. Includes only hcl_gpu_compat.h, so NVRTC and hiprtc can build it alone. */

#include "hcl_gpu_types.h"

/* The warp kernels run 256 threads per block: 8 rows at 32 lanes, 4 rows on a 64-lane wavefront. */

__device__ __forceinline__ float hcl_softmax_neg_inf() { return -__int_as_float(0x7f800000); }

/* exp(x - m) with exp(-inf - anything) = 0, also when m is -inf (an all -inf row). A float output takes expf (a few
 * ulp); a 16-bit output takes the hardware's exp2 (__expf: relative error about 2^-21 here, far below the 2^-11 or
 * 2^-8 of the output's own rounding), which halves the work per element where half the bytes move. */
template <typename T> __device__ __forceinline__ float hcl_softmax_exp(float x, float m) {
    if (x == hcl_softmax_neg_inf()) return 0.0f;
    return sizeof(T) == sizeof(float) ? expf(x - m) : __expf(x - m);
}

/* Max and sum over aligned groups of `width` lanes (a power of two, warpSize for the whole warp); every lane takes part. */
__device__ __forceinline__ float hcl_softmax_warp_max(float v, int width) {
    for (int off = width / 2; off > 0; off /= 2) v = fmaxf(v, HCL_SHFL_XOR(v, off));
    return v;
}

__device__ __forceinline__ float hcl_softmax_warp_sum(float v, int width) {
    for (int off = width / 2; off > 0; off /= 2) v += HCL_SHFL_XOR(v, off);
    return v;
}

/* Merge running (max, sum) pairs: sums are rescaled to the larger max. A side whose max is -inf holds no mass, its sum
 * is 0 (and its expf(-inf - -inf) would be NaN), or NaN where it saw a NaN and only -inf besides (fmaxf skips the NaN):
 * that sum is kept as it is. A NaN sum stays NaN, so a row with a NaN comes out NaN. (The streamed kernel with a thread
 * of only one NaN lost it, forced on rows of 7 to 33 16-bit columns: HCL_SOFTMAX_VARIANT=streamed on the H200.) */
__device__ __forceinline__ void hcl_softmax_merge(float &m, float &s, float m2, float s2) {
    const float mm = fmaxf(m, m2);
    const float a = m == hcl_softmax_neg_inf() ? s : s * expf(m - mm);
    const float b = m2 == hcl_softmax_neg_inf() ? s2 : s2 * expf(m2 - mm);
    m = mm;
    s = a + b;
}

/* Fold one value into a running (max, sum). */
__device__ __forceinline__ void hcl_softmax_online(float &m, float &s, float x) {
    if (x > m) {
        s = s * expf(m - x) + 1.0f; /* m = -inf: s is 0 and expf(-inf) is 0 */
        m = x;
    } else if (x != hcl_softmax_neg_inf()) {
        s += expf(x - m); /* a NaN x falls here and makes s NaN */
    }
}

/* Merge running (max, sum) pairs across the warp: every lane ends with the warp's pair. */
__device__ __forceinline__ void hcl_softmax_warp_merge(float &m, float &s) {
    for (int off = warpSize / 2; off > 0; off /= 2) {
        const float m2 = HCL_SHFL_XOR(m, off);
        const float s2 = HCL_SHFL_XOR(s, off);
        hcl_softmax_merge(m, s, m2, s2);
    }
}

/* 16-bit rows held as they came (the cluster kernels) take the cheapest form of each step, since there the exps and
 * conversions, not the memory, set the pace (H100, 512 x 262144 bf16: 68% of the SM's issue slots, 48% of the
 * DRAM bandwidth, 0.69 of the copy rate; 0.87 so): the max of two pairs of values at once, exp(x - m) as
 * 2^((x - m) log2(e)) with the hardware's exp2, and the output's division by the sum S folded into the exponent,
 * 2^((x - m) log2(e) - log2(S)) (the output's own rounding, 2^-9 or 2^-12, is far coarser than the 2^-22 of exp2).
 * x - m comes first: m log2(e) rounded alone errs by |m| 2^-24 in the exponent, 2^-8 for f16's largest m. */
#define HCL_SOFTMAX_LOG2E 1.4426950408889634f

/* The element-wise max of two words of two 16-bit values of format S; a NaN loses to a number, as in fmaxf. */
template <typename S> __device__ __forceinline__ unsigned hcl_softmax_max2(unsigned a, unsigned b) {
    typedef hcl_conv16<S> cv; /* the max of two values of S is one of them: exact */
    return cv::from2(fmaxf(cv::to((unsigned short)a), cv::to((unsigned short)b)),
                     fmaxf(cv::to((unsigned short)(a >> 16)), cv::to((unsigned short)(b >> 16))));
}
#if !defined(HCL_GPU_HIP_KERNEL) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <> __device__ __forceinline__ unsigned hcl_softmax_max2<hcl_f16_t>(unsigned a, unsigned b) {
    unsigned d;
    asm("max.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
template <> __device__ __forceinline__ unsigned hcl_softmax_max2<hcl_bf16_t>(unsigned a, unsigned b) {
    unsigned d;
    asm("max.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
#endif

/* The max of a thread's NV vectors of T held as they came (-inf for none). */
template <typename T, int NV> __device__ __forceinline__ float hcl_softmax_raw_max(const uint4 *r) {
    float m = hcl_softmax_neg_inf();
#pragma unroll
    for (int i = 0; i < NV; i++) {
        float t[hcl_elem<T>::VEC];
        hcl_elem<T>::unpack(r[i], t);
#pragma unroll
        for (int q = 0; q < hcl_elem<T>::VEC; q++) m = fmaxf(m, t[q]);
    }
    return m;
}
/* 16-bit: pairs at once, in two chains */
template <typename S, int NV> __device__ __forceinline__ float hcl_softmax_raw_max16(const uint4 *r) {
    unsigned a = hcl_softmax_max2<S>(r[0].x, r[0].y), b = hcl_softmax_max2<S>(r[0].z, r[0].w);
#pragma unroll
    for (int i = 1; i < NV; i++) {
        a = hcl_softmax_max2<S>(a, hcl_softmax_max2<S>(r[i].x, r[i].y));
        b = hcl_softmax_max2<S>(b, hcl_softmax_max2<S>(r[i].z, r[i].w));
    }
    a = hcl_softmax_max2<S>(a, b);
    return fmaxf(hcl_conv16<S>::to((unsigned short)a), hcl_conv16<S>::to((unsigned short)(a >> 16)));
}
#define HCL_SOFTMAX_RAW_MAX16(S, NV)                                                                                   \
    template <> __device__ __forceinline__ float hcl_softmax_raw_max<S, NV>(const uint4 *r) {                          \
        return hcl_softmax_raw_max16<S, NV>(r);                                                                        \
    }
#define HCL_SOFTMAX_RAW_MAX16S(S)                                                                                      \
    HCL_SOFTMAX_RAW_MAX16(S, 1) HCL_SOFTMAX_RAW_MAX16(S, 2) HCL_SOFTMAX_RAW_MAX16(S, 4) HCL_SOFTMAX_RAW_MAX16(S, 8)
HCL_SOFTMAX_RAW_MAX16S(hcl_f16_t)
HCL_SOFTMAX_RAW_MAX16S(hcl_bf16_t)
#undef HCL_SOFTMAX_RAW_MAX16S
#undef HCL_SOFTMAX_RAW_MAX16

/* 2^z, approximately (relative error about 2^-22; results below FLT_MIN are 0). */
__device__ __forceinline__ float hcl_softmax_exp2(float z) {
#if !defined(HCL_GPU_HIP_KERNEL)
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(z));
    return r;
#else
    return exp2f(z);
#endif
}

/* Block-wide max (or sum when SUM): result broadcast to every thread. scratch: one float per warp + 1. */
template <bool SUM> __device__ __forceinline__ float hcl_softmax_block_fold(float v, float *scratch) {
    const unsigned lane = threadIdx.x % warpSize;
    const unsigned warp = threadIdx.x / warpSize;
    const unsigned warps = (blockDim.x + warpSize - 1) / warpSize;
    v = SUM ? hcl_softmax_warp_sum(v, warpSize) : hcl_softmax_warp_max(v, warpSize);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < warps ? scratch[lane] : (SUM ? 0.0f : hcl_softmax_neg_inf());
        w = SUM ? hcl_softmax_warp_sum(w, warpSize) : hcl_softmax_warp_max(w, warpSize);
        if (lane == 0) scratch[32] = w;
    }
    __syncthreads();
    const float r = scratch[32];
    __syncthreads(); /* scratch may be reused right away */
    return r;
}

/* ---- 16-bit rows of whole vectors, a group of lanes per row, held as they came ---- */
/* The rows of whole 16-byte vectors at 16-byte aligned bases of a 16-bit warp kernel of V values a lane (NV = V / 8
 * vectors): each row over the fewest lanes G (a power of two) whose NV vectors hold it, warpSize / G rows a warp at
 * once, the vectors held as they came (4 registers each, where floats take 8), so a lane holds twice the values of a
 * float row in the same registers: 128 bytes a lane at V = 64 (rows of up to 64 * warpSize columns), where 16-bit
 * values held as floats took 64 at V = 32. The steps are those of the split kernels' held rows: the max of pairs at
 * once, exp(x - m) as exp2 and the division by the sum folded into the exponent. A warp loops over its turns (its
 * rows, then the rows a grid further on). */
template <int NV, typename S>
__device__ __forceinline__ void hcl_softmax_warp_held(const S *in, S *out, unsigned long long rows, unsigned cols,
                                                      unsigned group) {
    typedef hcl_elem<S> E;
    constexpr int VEC = E::VEC;
    const unsigned lane = threadIdx.x % warpSize, per_warp = warpSize / group, sub = lane / group, gl = lane % group;
    const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / warpSize * per_warp;
    const unsigned long long step = ((unsigned long long)gridDim.x * blockDim.x) / warpSize * per_warp;
    const unsigned nvec = cols / VEC, ninf = hcl_conv16<S>::from(hcl_softmax_neg_inf()) * 0x10001u;
    /* the lane's vectors of the row at base + sub, -inf past the row (a lane past the last row takes base's row, and
     * writes nothing) */
    auto load = [&](unsigned long long base, uint4 *r) {
        const unsigned long long row = base + sub < rows ? base + sub : base;
        const uint4 *x = (const uint4 *)(const void *)(in + row * cols);
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const unsigned j = gl + (unsigned)i * group;
            r[i] = j < nvec ? x[j] : make_uint4(ninf, ninf, ninf, ninf);
        }
    };
    /* rows of at most 2 vectors a lane: two turns at once (whether a turn is in the rows is the same for the whole warp),
     * both turns' loads issued before the first is folded, since the host gives a warp several turns (at most 64 blocks
     * a compute unit: plan.c) */
    constexpr int TURNS = NV <= 2 ? 2 : 1;
    for (unsigned long long base = first; base < rows; base += TURNS * step) {
        uint4 r[TURNS][NV];
#pragma unroll
        for (int t = 0; t < TURNS; t++)
            if (base + t * step < rows) load(base + t * step, r[t]);
#pragma unroll
        for (int t = 0; t < TURNS; t++) {
            const unsigned long long b = base + t * step;
            if (b >= rows) break;
            const float m = hcl_softmax_warp_max(hcl_softmax_raw_max<S, NV>(r[t]), (int)group);
            const float m0 = m == hcl_softmax_neg_inf() ? 0.0f : m; /* a row of only -inf: exps 0, then 0 / 0 */
            float s = 0.0f;
#pragma unroll
            for (int i = 0; i < NV; i++) {
                float x[VEC];
                E::unpack(r[t][i], x);
#pragma unroll
                for (int q = 0; q < VEC; q++) s += hcl_softmax_exp2((x[q] - m0) * HCL_SOFTMAX_LOG2E);
            }
            const float lsum = log2f(hcl_softmax_warp_sum(s, (int)group));
            if (b + sub < rows) {
                uint4 *y = (uint4 *)(void *)(out + (b + sub) * cols);
#pragma unroll
                for (int i = 0; i < NV; i++) {
                    const unsigned j = gl + (unsigned)i * group;
                    float x[VEC];
                    E::unpack(r[t][i], x);
#pragma unroll
                    for (int q = 0; q < VEC; q++) x[q] = hcl_softmax_exp2(fmaf(x[q] - m, HCL_SOFTMAX_LOG2E, -lsum));
                    if (j < nvec) y[j] = E::pack(x);
                }
            }
        }
    }
}
/* floats take the warp kernel's own path (this is never called) */
template <int NV>
__device__ __forceinline__ void hcl_softmax_warp_held(const float *, float *, unsigned long long, unsigned, unsigned) {}

/* Rows a warp kernel of more than 32 values a lane (warp64, 16-bit) cannot hold as they came (not whole vectors, or
 * bases not 16-byte aligned; the host never gives it such rows): a warp a row, an online max and sum, then a pass
 * that reads the row again. */
template <typename T>
__device__ __forceinline__ void hcl_softmax_warp_streamed(const T *in, T *out, unsigned long long rows, unsigned cols) {
    typedef hcl_elem<T> E;
    const unsigned lane = threadIdx.x % warpSize;
    const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) / warpSize;
    for (unsigned long long row = first; row < rows; row += warps) {
        const T *x = in + row * cols;
        T *y = out + row * cols;
        float m = hcl_softmax_neg_inf(), s = 0.0f;
        for (unsigned c = lane; c < cols; c += warpSize) hcl_softmax_online(m, s, E::ld(x, c));
        hcl_softmax_warp_merge(m, s);
        const float inv = 1.0f / s;
        for (unsigned c = lane; c < cols; c += warpSize) E::st(y, c, hcl_softmax_exp<T>(E::ld(x, c), m) * inv);
    }
}

/* ---- one warp per row, row in registers ---- */
template <int V, typename T>
__device__ __forceinline__ void hcl_softmax_warp_impl(const T *in, T *out, unsigned long long rows, unsigned int cols) {
    typedef hcl_elem<T> E;
    const unsigned lanes = warpSize;
    const unsigned lane = threadIdx.x % lanes;
    const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / lanes;
    const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) / lanes;
    /* the loop is uniform per warp, so whole warps stay in or leave it together (the shuffles need that) */
    /* rows of whole 16-byte vectors go by vectors when a lane holds at least one (lane l holds vectors l + i * lanes);
     * else 16-bit rows of even length go by pairs of columns (one 32-bit access per lane) */
    constexpr int VEC = E::VEC;
    const bool vecs = V >= VEC && cols % VEC == 0 && hcl_aligned16(in) && hcl_aligned16(out);
    const bool pairs = !vecs && sizeof(T) == 2 && V >= 2 && cols % 2 == 0 && ((unsigned long long)in & 3ull) == 0 &&
                       ((unsigned long long)out & 3ull) == 0;
    /* By vectors a row takes the fewest lanes G (a power of two) whose V values hold it, and a warp lanes / G rows at
     * once: 256 16-bit columns in a kernel of V = 16 are two rows per warp, two vectors a lane. */
    unsigned group = lanes;
    while (vecs && group > 1 && group / 2 * V >= cols) group /= 2;
    if (sizeof(T) == 2 && vecs) { /* 16-bit rows of whole vectors: held as they came, V / 8 vectors a lane */
        hcl_softmax_warp_held<(V >= VEC ? V / VEC : 1)>(in, out, rows, cols, group);
        return;
    }
    if (V > 32) { /* never 64 floats a lane: the compiler drops the code below from warp64 */
        hcl_softmax_warp_streamed(in, out, rows, cols);
        return;
    }
    const unsigned per_warp = lanes / group, sub = lane / group, gl = lane % group;
    for (unsigned long long base = first * per_warp; base < rows; base += warps * per_warp) {
        const unsigned long long row = base + sub < rows ? base + sub : base; /* a lane past the end redoes base */
        const bool live = base + sub < rows;
        const T *x = in + row * cols;
        T *y = out + row * cols;
        float v[V >= VEC ? V : VEC]; /* VEC at least: the vector branch, dead when V < VEC, still compiles */
        float m = hcl_softmax_neg_inf();
        if (vecs) {
#pragma unroll
            for (int i = 0; i < (V >= VEC ? V / VEC : 1); i++) {
                const unsigned j = gl + (unsigned)i * group; /* columns VEC * j ... */
                if (VEC * j < cols) {
                    E::ld_vec(x, j, &v[VEC * i]);
                } else {
#pragma unroll
                    for (int q = 0; q < VEC; q++) v[VEC * i + q] = hcl_softmax_neg_inf();
                }
            }
#pragma unroll
            for (int i = 0; i < V; i++) m = fmaxf(m, v[i]);
        } else if (pairs) {
#pragma unroll
            for (int i = 0; i < V / 2; i++) {
                const unsigned p = lane + (unsigned)i * lanes; /* columns 2p, 2p + 1 */
                if (2 * p < cols)
                    E::ld2(x, p, &v[2 * i]);
                else
                    v[2 * i] = v[2 * i + 1] = hcl_softmax_neg_inf();
            }
#pragma unroll
            for (int i = 0; i < V; i++) m = fmaxf(m, v[i]);
        } else {
#pragma unroll
            for (int i = 0; i < V; i++) {
                const unsigned c = lane + (unsigned)i * lanes;
                v[i] = c < cols ? E::ld(x, c) : hcl_softmax_neg_inf();
                m = fmaxf(m, v[i]);
            }
        }
        m = hcl_softmax_warp_max(m, (int)group);
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < V; i++) {
            v[i] = hcl_softmax_exp<T>(v[i], m);
            s += v[i];
        }
        const float inv = 1.0f / hcl_softmax_warp_sum(s, (int)group);
        if (vecs) {
#pragma unroll
            for (int i = 0; i < (V >= VEC ? V / VEC : 1); i++) {
                const unsigned j = gl + (unsigned)i * group;
                float t[VEC];
#pragma unroll
                for (int q = 0; q < VEC; q++) t[q] = v[VEC * i + q] * inv;
                if (live && VEC * j < cols) E::st_vec(y, j, t);
            }
        } else if (pairs) {
#pragma unroll
            for (int i = 0; i < V / 2; i++) {
                const unsigned p = lane + (unsigned)i * lanes;
                if (2 * p < cols) E::st2(y, p, v[2 * i] * inv, v[2 * i + 1] * inv);
            }
        } else {
#pragma unroll
            for (int i = 0; i < V; i++) {
                const unsigned c = lane + (unsigned)i * lanes;
                if (c < cols) E::st(y, c, v[i] * inv);
            }
        }
    }
}

/* At least 4 blocks (32 warps) per SM: 64 registers at most. The f32 kernels fit as they are (62 at V = 32); the
 * 16-bit ones took 94-98 at V = 32, which left 2 blocks and a quarter of the warps to hide the memory latency (H100,
 * 131072 x 1024 f16: 53% of DRAM bandwidth at 22% occupancy). */
#define HCL_SOFTMAX_WARP_KERNEL(V, SUFFIX, T)                                                                          \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(256, 4)                                                    \
        hcl_softmax_warp##V##_##SUFFIX(const T *in, T *out, unsigned long long rows, unsigned int cols) {              \
        hcl_softmax_warp_impl<V, T>(in, out, rows, cols);                                                              \
    }
#define HCL_SOFTMAX_WARP_KERNELS(SUFFIX, T)                                                                            \
    HCL_SOFTMAX_WARP_KERNEL(1, SUFFIX, T)                                                                              \
    HCL_SOFTMAX_WARP_KERNEL(2, SUFFIX, T)                                                                              \
    HCL_SOFTMAX_WARP_KERNEL(4, SUFFIX, T)                                                                              \
    HCL_SOFTMAX_WARP_KERNEL(8, SUFFIX, T)                                                                              \
    HCL_SOFTMAX_WARP_KERNEL(16, SUFFIX, T)                                                                             \
    HCL_SOFTMAX_WARP_KERNEL(32, SUFFIX, T)
HCL_GPU_TYPES(HCL_SOFTMAX_WARP_KERNELS)
/* 16-bit only: 64 values a lane, 8 vectors held as they came (128 bytes; rows of up to 64 * warpSize columns). The
 * host takes it for rows of whole vectors; other rows (or bases not 16-byte aligned) are streamed, a warp a row (H200,
 * 131072 x 1024 bf16: 0.59 of the copy rate where the kernel also held the float path's 64 floats a lane, 0.92
 * without). */
HCL_SOFTMAX_WARP_KERNEL(64, f16, hcl_f16_t)
HCL_SOFTMAX_WARP_KERNEL(64, bf16, hcl_bf16_t)

/* ---- one block per row, row staged in dynamic shared memory (cols floats) ---- */
template <typename T>
__device__ __forceinline__ void hcl_softmax_block_staged_impl(const T *in, T *out, unsigned long long rows,
                                                              unsigned int cols) {
    typedef hcl_elem<T> E;
    constexpr int VEC = E::VEC, Q = VEC / 4;                 /* a vector of the type covers Q float4s of the stage */
    extern __shared__ __align__(16) float hcl_softmax_row[]; /* read and written as float4 */
    __shared__ float scratch[33];
    float4 *r4 = (float4 *)hcl_softmax_row;
    for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T *x = in + row * cols;
        T *y = out + row * cols;
        const bool vec = (cols % VEC == 0) && hcl_aligned16(x) && hcl_aligned16(y);
        float m = hcl_softmax_neg_inf();
        if (vec) {
            for (unsigned j = threadIdx.x; j < cols / VEC; j += blockDim.x) {
                float t[VEC];
                E::ld_vec(x, j, t);
#pragma unroll
                for (int q = 0; q < Q; q++)
                    r4[j * Q + q] = make_float4(t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
#pragma unroll
                for (int q = 0; q < VEC; q++) m = fmaxf(m, t[q]);
            }
        } else {
            for (unsigned j = threadIdx.x; j < cols; j += blockDim.x) {
                const float t = E::ld(x, j);
                hcl_softmax_row[j] = t;
                m = fmaxf(m, t);
            }
        }
        m = hcl_softmax_block_fold<false>(m, scratch);
        float s = 0.0f;
        /* each thread revisits only the elements it staged itself: no barrier needed before this loop */
        if (vec) {
            for (unsigned j = threadIdx.x; j < cols / VEC; j += blockDim.x) {
#pragma unroll
                for (int q = 0; q < Q; q++) {
                    float4 t = r4[j * Q + q];
                    t.x = hcl_softmax_exp<T>(t.x, m);
                    t.y = hcl_softmax_exp<T>(t.y, m);
                    t.z = hcl_softmax_exp<T>(t.z, m);
                    t.w = hcl_softmax_exp<T>(t.w, m);
                    r4[j * Q + q] = t;
                    s += (t.x + t.y) + (t.z + t.w);
                }
            }
        } else {
            for (unsigned j = threadIdx.x; j < cols; j += blockDim.x) {
                const float e = hcl_softmax_exp<T>(hcl_softmax_row[j], m);
                hcl_softmax_row[j] = e;
                s += e;
            }
        }
        const float inv = 1.0f / hcl_softmax_block_fold<true>(s, scratch);
        if (vec) {
            for (unsigned j = threadIdx.x; j < cols / VEC; j += blockDim.x) {
                float t[VEC];
#pragma unroll
                for (int q = 0; q < Q; q++) {
                    const float4 u = r4[j * Q + q];
                    t[4 * q] = u.x * inv, t[4 * q + 1] = u.y * inv, t[4 * q + 2] = u.z * inv, t[4 * q + 3] = u.w * inv;
                }
                E::st_vec(y, j, t);
            }
        } else {
            for (unsigned j = threadIdx.x; j < cols; j += blockDim.x) E::st(y, j, hcl_softmax_row[j] * inv);
        }
        __syncthreads(); /* the next row overwrites the stage */
    }
}

#define HCL_SOFTMAX_STAGED_KERNEL(SUFFIX, T)                                                                           \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS(1024)                                                                 \
        hcl_softmax_block_staged_##SUFFIX(const T *in, T *out, unsigned long long rows, unsigned int cols) {           \
        hcl_softmax_block_staged_impl<T>(in, out, rows, cols);                                                         \
    }
HCL_GPU_TYPES(HCL_SOFTMAX_STAGED_KERNEL)

/* ---- a row split over CS blocks (a thread block cluster on sm_90), each thread holding E of its values in registers:
 * one read and one write of global memory, nothing staged in shared memory, so many blocks share an SM ---- */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(HCL_GPU_HIP_KERNEL)
#define HCL_SOFTMAX_CLUSTERS 1
#define HCL_SOFTMAX_CLUSTER_DIMS(CS) __cluster_dims__(CS, 1, 1)
/* Wait until every block of the cluster has arrived; the shared-memory writes before it are then visible to all. */
__device__ __forceinline__ void hcl_softmax_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned hcl_softmax_cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
/* The pair at `p` in the shared memory of the cluster's block `rank`. */
__device__ __forceinline__ float2 hcl_softmax_cluster_load(const float2 *p, unsigned rank) {
    unsigned local = (unsigned)__cvta_generic_to_shared(p), remote;
    float2 v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(remote) : "memory");
    return v;
}
#else
#define HCL_SOFTMAX_CLUSTER_DIMS(CS)
#endif

/* The thread's vector at column c of a row slice of `len` columns, when it is not a whole 16-byte vector there:
 * element by element, -inf past the slice. */
template <typename T> __device__ __forceinline__ uint4 hcl_softmax_split_part(const T *x, unsigned c, unsigned len) {
    typedef hcl_elem<T> El;
    float t[El::VEC];
#pragma unroll
    for (int q = 0; q < El::VEC; q++) t[q] = c + q < len ? El::ld(x, c + q) : hcl_softmax_neg_inf();
    return El::pack(t); /* exact: the values came from T */
}

/* The E values of one row slice a thread holds, as NV 16-byte vectors of the row's own type: the thread's vectors are
 * threadIdx.x + i * blockDim.x of the slice (coalesced); past the slice's `len` columns they are -inf. */
template <int E, typename T>
__device__ __forceinline__ void hcl_softmax_split_load(uint4 *r, const T *x, unsigned len, bool vec) {
    constexpr int VEC = hcl_elem<T>::VEC, NV = E / VEC;
#pragma unroll
    for (int i = 0; i < NV; i++) {
        const unsigned c = (threadIdx.x + (unsigned)i * blockDim.x) * VEC; /* the vector's first column */
        r[i] = vec && c < len ? ((const uint4 *)x)[c / VEC] : hcl_softmax_split_part(x, c, len);
    }
}

#ifdef HCL_SOFTMAX_CLUSTERS
/* Start copying the thread's whole vectors of a row slice into its own slots of `stage` (vector i at
 * stage[i * blockDim.x + threadIdx.x]) without waiting: cp.async, so the copy runs on while the block folds and
 * synchronises. Only the thread itself reads its slots (hcl_softmax_split_take), so no barrier is needed. */
template <int E, typename T>
__device__ __forceinline__ void hcl_softmax_split_issue(uint4 *stage, const T *x, unsigned len, bool vec) {
    constexpr int VEC = hcl_elem<T>::VEC, NV = E / VEC;
#pragma unroll
    for (int i = 0; i < NV; i++) {
        const unsigned c = (threadIdx.x + (unsigned)i * blockDim.x) * VEC;
        if (vec && c < len) {
            const unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[i * blockDim.x + threadIdx.x]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"((const uint4 *)x + c / VEC)
                         : "memory");
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* The vectors hcl_softmax_split_issue started copying (the same slice), once they have arrived; the partial ones
 * it left are read from global memory here. */
template <int E, typename T>
__device__ __forceinline__ void hcl_softmax_split_take(uint4 *r, const uint4 *stage, const T *x, unsigned len,
                                                       bool vec) {
    constexpr int VEC = hcl_elem<T>::VEC, NV = E / VEC;
    asm volatile("cp.async.wait_all;" ::: "memory");
#pragma unroll
    for (int i = 0; i < NV; i++) {
        const unsigned c = (threadIdx.x + (unsigned)i * blockDim.x) * VEC;
        r[i] = vec && c < len ? stage[i * blockDim.x + threadIdx.x] : hcl_softmax_split_part(x, c, len);
    }
}
#endif

/* Block (or cluster) size CS: the row's columns are cut into CS slices of `chunk` (a multiple of the vector), one per
 * block of the cluster; a slice is at most blockDim.x * E columns. Each block folds its slice's max m and sum s of
 * exp(x - m); with CS > 1 the blocks swap their (m, s) through distributed shared memory (a slot per row parity, so
 * one cluster barrier per row suffices: a block writes a slot again only after the next row's barrier, which every
 * block passes after reading it) and scale their values by exp(m - M) / S of the merged pair. With ST (the clusters,
 * sm_90) the block's next row is copied into the thread's slots of the dynamic shared memory while this one is folded
 * (cp.async, NV * 16 bytes a thread, which the host gives), so the memory stays busy through the barriers. One block
 * a row (CS 1) has no next row: many blocks share an SM and overlap instead. (H200, 2^27 elements: a block per row of
 * 128 bytes a thread, 128 to 512 threads, ran at 0.97 of the copy rate for f32 rows of 4096 to 16384 columns,
 * where 1024 threads of 64 bytes a thread, each loading its next row while folding one, ran at 0.89-0.92.) */
template <int CS, int E, bool ST, typename T>
__device__ __forceinline__ void hcl_softmax_split_impl(const T *in, T *out, unsigned long long rows,
                                                       unsigned int cols) {
    typedef hcl_elem<T> El;
    constexpr int VEC = El::VEC, NV = E / VEC;
    __shared__ float scratch[33];
#ifdef HCL_SOFTMAX_CLUSTERS
    __shared__ float2 slot[2];
    const unsigned rank = CS > 1 ? hcl_softmax_cluster_rank() : 0;
    extern __shared__ __align__(16) float hcl_softmax_row[];
    uint4 *const stage = (uint4 *)hcl_softmax_row; /* ST: the block's next row, NV * blockDim.x vectors */
#else
    const unsigned rank = 0;
#endif
    const unsigned chunk = (cols + CS * VEC - 1) / (CS * VEC) * VEC;
    const unsigned start = rank * chunk < cols ? rank * chunk : cols;
    const unsigned len = (cols - start < chunk ? cols - start : chunk);
    const unsigned long long clusters = gridDim.x / CS;
    /* every slice starts on a vector: rows of whole vectors at 16-byte aligned bases go by vectors */
    const bool vec = cols % VEC == 0 && hcl_aligned16(in) && hcl_aligned16(out);
    unsigned long long row = blockIdx.x / CS;
#ifdef HCL_SOFTMAX_CLUSTERS
    if (ST && row < rows) hcl_softmax_split_issue<E>(stage, in + row * cols + start, len, vec);
#endif
    for (int parity = 0; row < rows; row += clusters, parity ^= 1) {
        T *y = out + row * cols + start;
        /* Floats are held as they are (their exps once known); 16-bit values are held as they came, 16 bytes a vector
         * (half the registers, so twice the values a thread) and widened again in each pass (H100, 2^27 elements:
         * 0.67-0.85 of the copy rate from 32768 to 262144 columns, against 0.56-0.81 widened once, and 0.86-0.92 with
         * the cheaper steps below; f32 held as it came lost 0.04-0.06 to the exps computed twice). */
        constexpr bool FLOATS = sizeof(T) == sizeof(float);
        float v[FLOATS ? E : 1];
        uint4 r[NV];
#ifdef HCL_SOFTMAX_CLUSTERS
        if (ST)
            hcl_softmax_split_take<E>(r, stage, in + row * cols + start, len, vec);
        else
#endif
            hcl_softmax_split_load<E>(r, in + row * cols + start, len, vec);
        if (FLOATS) {
#pragma unroll
            for (int i = 0; i < NV; i++) El::unpack(r[i], &v[i * VEC]);
        }
        /* the thread's vector i as floats */
        auto values = [&](int i, float *t) {
            if (FLOATS)
                for (int q = 0; q < VEC; q++) t[q] = v[i * VEC + q];
            else
                El::unpack(r[i], t);
        };
        float m = hcl_softmax_neg_inf();
        if (FLOATS) {
#pragma unroll
            for (int i = 0; i < NV; i++) {
                float t[VEC];
                values(i, t);
#pragma unroll
                for (int q = 0; q < VEC; q++) m = fmaxf(m, t[q]);
            }
        } else {
            m = hcl_softmax_raw_max<T, (FLOATS ? 1 : NV)>(r);
        }
#ifdef HCL_SOFTMAX_CLUSTERS
        if (ST && row + clusters < rows) {
            /* the staged vectors are in registers (m depends on each of them) before their slots are written again */
            asm volatile("" ::"f"(m) : "memory");
            hcl_softmax_split_issue<E>(stage, in + (row + clusters) * cols + start, len, vec);
        }
#endif
        m = hcl_softmax_block_fold<false>(m, scratch);
        /* held as they came: exp(x - m) = 2^((x - m) log2(e)), m taken as 0 for a slice of only -inf (exps 0) */
        const float m0 = m == hcl_softmax_neg_inf() ? 0.0f : m;
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < NV; i++) {
            float t[VEC];
            values(i, t);
#pragma unroll
            for (int q = 0; q < VEC; q++) {
                const float e =
                    FLOATS ? hcl_softmax_exp<T>(t[q], m) : hcl_softmax_exp2((t[q] - m0) * HCL_SOFTMAX_LOG2E);
                if (FLOATS) v[i * VEC + q] = e;
                s += e;
            }
        }
        s = hcl_softmax_block_fold<true>(s, scratch);
        float scale = 1.0f / s;
        /* held as they came, the output is 2^((x - M) log2(e) - log2(S)) for the row's max M and sum S: NaN when S is
         * NaN, or M is -inf (then every x is -inf: a row of only -inf gives 0 / 0) */
        float mrow = m, lsum = log2f(s);
#ifdef HCL_SOFTMAX_CLUSTERS
        if (CS > 1) {
            if (threadIdx.x == 0) slot[parity] = make_float2(m, s);
            hcl_softmax_cluster_sync();
            /* lane l reads block (l % CS)'s pair; each group of CS lanes merges all CS of them */
            const float2 p = hcl_softmax_cluster_load(&slot[parity], threadIdx.x % CS);
            float mm = p.x, ss = p.y;
            for (int off = CS / 2; off > 0; off /= 2) {
                const float m2 = HCL_SHFL_XOR(mm, off);
                const float s2 = HCL_SHFL_XOR(ss, off);
                hcl_softmax_merge(mm, ss, m2, s2);
            }
            /* exp(-inf - -inf) is NaN: an all -inf row comes out NaN, as in one block (0 / 0) */
            scale = expf(m - mm) / ss;
            mrow = mm, lsum = log2f(ss);
        }
#endif
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const unsigned c = (threadIdx.x + (unsigned)i * blockDim.x) * VEC;
            float t[VEC];
            values(i, t);
#pragma unroll
            for (int q = 0; q < VEC; q++)
                t[q] = FLOATS ? t[q] * scale : hcl_softmax_exp2(fmaf(t[q] - mrow, HCL_SOFTMAX_LOG2E, -lsum));
            if (vec && c < len) {
                El::st_vec(y, c / VEC, t);
            } else {
#pragma unroll
                for (int q = 0; q < VEC; q++)
                    if (c + q < len) El::st(y, c + q, t[q]);
            }
        }
    }
#ifdef HCL_SOFTMAX_CLUSTERS
    if (CS > 1) hcl_softmax_cluster_sync(); /* no block leaves while another may still read its slots */
#endif
}

/* hcl_softmax_split<CS>_<E>: CS > 1 needs clusters (sm_90); elsewhere its body traps, and the host never launches it. */
#define HCL_SOFTMAX_SPLIT_KERNEL(CS, E, SUFFIX, T)                                                                     \
    extern "C" __global__ void HCL_SOFTMAX_CLUSTER_DIMS(CS) HCL_LAUNCH_BOUNDS(1024)                                    \
        hcl_softmax_split##CS##_##E##_##SUFFIX(const T *in, T *out, unsigned long long rows, unsigned int cols) {      \
        HCL_SOFTMAX_SPLIT_BODY(CS, E, T)                                                                               \
    }
#ifdef HCL_SOFTMAX_CLUSTERS
#define HCL_SOFTMAX_SPLIT_BODY(CS, E, T) hcl_softmax_split_impl<CS, E, (CS > 1), T>(in, out, rows, cols);
#else
#define HCL_SOFTMAX_SPLIT_BODY(CS, E, T)                                                                               \
    if (CS > 1) {                                                                                                      \
        HCL_GPU_UNREACHABLE                                                                                            \
    } else {                                                                                                           \
        hcl_softmax_split_impl<1, E, false, T>(in, out, rows, cols);                                                   \
    }
#endif
/* the cluster kernels hold 128 bytes a thread: 32 floats, 64 16-bit values; a block a row holds 32 values a thread
 * (split1_32), or, 16-bit only, 64 (split1_64) */
#define HCL_SOFTMAX_SPLIT_KERNELS(SUFFIX, T, E)                                                                        \
    HCL_SOFTMAX_SPLIT_KERNEL(1, 32, SUFFIX, T)                                                                         \
    HCL_SOFTMAX_SPLIT_KERNEL(2, E, SUFFIX, T)                                                                          \
    HCL_SOFTMAX_SPLIT_KERNEL(4, E, SUFFIX, T)                                                                          \
    HCL_SOFTMAX_SPLIT_KERNEL(8, E, SUFFIX, T)
HCL_SOFTMAX_SPLIT_KERNELS(f32, float, 32)
HCL_SOFTMAX_SPLIT_KERNELS(f16, hcl_f16_t, 64)
HCL_SOFTMAX_SPLIT_KERNELS(bf16, hcl_bf16_t, 64)
HCL_SOFTMAX_SPLIT_KERNEL(1, 64, f16, hcl_f16_t)
HCL_SOFTMAX_SPLIT_KERNEL(1, 64, bf16, hcl_bf16_t)

/* ---- one block per row, online max/sum then a second read; no staging, any cols ---- */
template <typename T>
__device__ __forceinline__ void hcl_softmax_block_impl(const T *in, T *out, unsigned long long rows,
                                                       unsigned int cols) {
    typedef hcl_elem<T> E;
    constexpr int VEC = E::VEC;
    __shared__ float scratch_m[32];
    __shared__ float scratch_s[32];
    __shared__ float result[2];
    const unsigned lane = threadIdx.x % warpSize;
    const unsigned warp = threadIdx.x / warpSize;
    const unsigned warps = (blockDim.x + warpSize - 1) / warpSize;
    for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T *x = in + row * cols;
        T *y = out + row * cols;
        const bool vec = (cols % VEC == 0) && hcl_aligned16(x) && hcl_aligned16(y);
        float m = hcl_softmax_neg_inf();
        float s = 0.0f;
        if (vec) {
            for (unsigned j = threadIdx.x; j < cols / VEC; j += blockDim.x) {
                float t[VEC];
                E::ld_vec(x, j, t);
#pragma unroll
                for (int q = 0; q < VEC; q++) hcl_softmax_online(m, s, t[q]);
            }
        } else {
            for (unsigned j = threadIdx.x; j < cols; j += blockDim.x) hcl_softmax_online(m, s, E::ld(x, j));
        }
        hcl_softmax_warp_merge(m, s); /* across the warp, then across warps */
        if (lane == 0) {
            scratch_m[warp] = m;
            scratch_s[warp] = s;
        }
        __syncthreads();
        if (warp == 0) {
            m = lane < warps ? scratch_m[lane] : hcl_softmax_neg_inf();
            s = lane < warps ? scratch_s[lane] : 0.0f;
            hcl_softmax_warp_merge(m, s);
            if (lane == 0) {
                result[0] = m;
                result[1] = s;
            }
        }
        __syncthreads();
        m = result[0];
        const float inv = 1.0f / result[1];
        if (vec) {
            for (unsigned j = threadIdx.x; j < cols / VEC; j += blockDim.x) {
                float t[VEC];
                E::ld_vec(x, j, t);
#pragma unroll
                for (int q = 0; q < VEC; q++) t[q] = hcl_softmax_exp<T>(t[q], m) * inv;
                E::st_vec(y, j, t);
            }
        } else {
            for (unsigned j = threadIdx.x; j < cols; j += blockDim.x)
                E::st(y, j, hcl_softmax_exp<T>(E::ld(x, j), m) * inv);
        }
        __syncthreads(); /* result[] is rewritten for the next row */
    }
}

#define HCL_SOFTMAX_BLOCK_KERNEL(SUFFIX, T)                                                                            \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS(1024)                                                                 \
        hcl_softmax_block_##SUFFIX(const T *in, T *out, unsigned long long rows, unsigned int cols) {                  \
        hcl_softmax_block_impl<T>(in, out, rows, cols);                                                                \
    }
HCL_GPU_TYPES(HCL_SOFTMAX_BLOCK_KERNEL)
