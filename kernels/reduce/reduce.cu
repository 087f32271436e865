/* reduce (CUDA and HIP): out[0] = sum, max or min of in[0..n), in f32, f16 or bf16 (hcl_gpu_types.h); the partials
 * and the result are float.
 *
 * One launch of a fixed-shape grid (the host picks gridDim.x <= HCL_REDUCE_MAX_BLOCKS from n alone and
 * blockDim.x = HCL_REDUCE_THREADS): each block folds a grid-stride slice (16-byte loads when aligned, a warp's
 * HCL_REDUCE_UNROLL loads one contiguous run) with warp shuffles and writes one partial; the last block to finish
 * (an atomic ticket after a fence) folds the partials in index order. Every fold happens in an order fixed by n, so
 * the same input gives the same bits on every run.
 * max/min ignore NaN as fmaxf/fminf do. The ticket counter must be 0 before the first launch; the last block
 * puts it and the partials back to 0, so launches on one stream can reuse the scratch.
 * Also the HIP kernel (reduce.hip): the folds run over warpSize lanes (32 on NVIDIA, 64 or 32 on AMD) and the
 * per-warp scratch holds 32 entries, enough for 1024 threads at either width. Includes only hcl_gpu_compat.h,
 * so NVRTC and hiprtc can build it alone. */

#include "hcl_gpu_types.h"

#define HCL_REDUCE_THREADS 256
#define HCL_REDUCE_MAX_BLOCKS 1024 /* at most 4 partials per thread for the last block's fold */
#define HCL_REDUCE_UNROLL 4        /* 16-byte loads in flight per thread */

template <int OP> struct hcl_reduce_op_t;
template <> struct hcl_reduce_op_t<0> {
    static __device__ __forceinline__ float identity() { return 0.0f; }
    static __device__ __forceinline__ float apply(float x, float y) { return x + y; }
};
template <> struct hcl_reduce_op_t<1> {
    static __device__ __forceinline__ float identity() { return -__int_as_float(0x7f800000); }
    static __device__ __forceinline__ float apply(float x, float y) { return fmaxf(x, y); }
};
template <> struct hcl_reduce_op_t<2> {
    static __device__ __forceinline__ float identity() { return __int_as_float(0x7f800000); }
    static __device__ __forceinline__ float apply(float x, float y) { return fminf(x, y); }
};

/* Fold v over the block; the result is valid in thread 0. `scratch` holds one float per warp. Every thread of
 * the block must call it (it synchronises). */
template <int OP> __device__ __forceinline__ float hcl_reduce_block(float v, float *scratch) {
    typedef hcl_reduce_op_t<OP> op;
    const unsigned lane = threadIdx.x % warpSize;
    const unsigned warp = threadIdx.x / warpSize;
    const unsigned warps = (blockDim.x + warpSize - 1) / warpSize;
    for (int off = warpSize / 2; off > 0; off /= 2) v = op::apply(v, HCL_SHFL_DOWN(v, off));
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? scratch[lane] : op::identity();
        for (int off = warpSize / 2; off > 0; off /= 2) v = op::apply(v, HCL_SHFL_DOWN(v, off));
    }
    __syncthreads(); /* scratch may be reused by the caller */
    return v;
}

/* 16 bytes read once: on NVIDIA through the read-only path without keeping them in L1 (H100, 2^25 bf16: about 1%) */
__device__ __forceinline__ uint4 hcl_reduce_ld16(const uint4 *p) {
#if defined(__CUDA_ARCH__) && !defined(HCL_GPU_HIP_KERNEL)
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
#else
    return *p;
#endif
}

/* The VEC elements of one 16-byte vector, folded pairwise. */
template <int OP, typename T> __device__ __forceinline__ float hcl_reduce_vec(uint4 v) {
    typedef hcl_reduce_op_t<OP> op;
    float x[hcl_elem<T>::VEC];
    hcl_elem<T>::unpack(v, x);
#pragma unroll
    for (int w = 1; w < hcl_elem<T>::VEC; w *= 2)
#pragma unroll
        for (int q = 0; q < hcl_elem<T>::VEC; q += 2 * w) x[q] = op::apply(x[q], x[q + w]);
    return x[0];
}

template <int OP, typename T>
__device__ __forceinline__ void hcl_reduce_impl(const T *in, unsigned long long n, float *partials,
                                                unsigned int *ticket, float *out) {
    typedef hcl_reduce_op_t<OP> op;
    typedef hcl_elem<T> E;
    __shared__ float scratch[32];
    __shared__ bool is_last;

    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    float acc = op::identity();
    unsigned long long done = 0;
    if (hcl_aligned16(in)) {
        /* warp w of the grid takes vectors w * W * U + lane + W * u (W lanes, u < U) of each round of
         * (warps of the grid) * W * U: U loads in flight, each warp's U loads one contiguous run */
        enum { U = HCL_REDUCE_UNROLL };
        const unsigned long long nv = n / E::VEC, W = warpSize, lane = threadIdx.x % warpSize, warp = tid / warpSize,
                                 round = stride * U;
        const uint4 *p = (const uint4 *)(const void *)in;
        unsigned long long i = warp * W * U + lane;
        for (; i + W * (U - 1) < nv; i += round) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; u++) v[u] = hcl_reduce_ld16(p + i + W * u);
#pragma unroll
            for (int u = 0; u < U; u++) acc = op::apply(acc, hcl_reduce_vec<OP, T>(v[u]));
        }
        /* the last round: what is left of this warp's run */
        for (int u = 0; u < U && i + W * u < nv; u++) acc = op::apply(acc, hcl_reduce_vec<OP, T>(p[i + W * u]));
        done = nv * E::VEC;
    }
    for (unsigned long long i = done + tid; i < n; i += stride) acc = op::apply(acc, E::ld(in, i));

    acc = hcl_reduce_block<OP>(acc, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence(); /* the partial is visible to every block before the ticket is taken */
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    /* volatile: read from L2, never from a stale L1 line; a thread's loads all in flight at once */
    const volatile float *vp = partials;
    enum { PER = HCL_REDUCE_MAX_BLOCKS / HCL_REDUCE_THREADS };
    float t[PER];
#pragma unroll
    for (int q = 0; q < PER; q++) {
        const unsigned i = threadIdx.x + q * blockDim.x;
        t[q] = i < gridDim.x ? vp[i] : op::identity();
    }
#pragma unroll
    for (int q = 0; q < PER; q++) {
        const unsigned i = threadIdx.x + q * blockDim.x;
        if (i < gridDim.x) partials[i] = 0.0f; /* the scratch is left as zeros, as it came */
    }
    float v = t[0];
#pragma unroll
    for (int q = 1; q < PER; q++) v = op::apply(v, t[q]);
    v = hcl_reduce_block<OP>(v, scratch);
    if (threadIdx.x == 0) {
        out[0] = v;
        *ticket = 0;
    }
}

#define HCL_REDUCE_KERNEL(NAME, OP, SUFFIX, T)                                                                         \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS(HCL_REDUCE_THREADS) hcl_reduce_##NAME##_##SUFFIX(                     \
        const T *in, unsigned long long n, float *partials, unsigned int *ticket, float *out) {                        \
        hcl_reduce_impl<OP, T>(in, n, partials, ticket, out);                                                          \
    }
#define HCL_REDUCE_KERNELS(SUFFIX, T)                                                                                  \
    HCL_REDUCE_KERNEL(sum, 0, SUFFIX, T) HCL_REDUCE_KERNEL(max, 1, SUFFIX, T) HCL_REDUCE_KERNEL(min, 2, SUFFIX, T)
HCL_GPU_TYPES(HCL_REDUCE_KERNELS)
