/* reduce (CUDA and HIP): out[0] = sum, max or min of in[0..n), in f32, f16 or bf16 (hcl_gpu_types.h); the partials
 * and the result are float.
 *
 * One launch of a fixed-shape grid (the host picks gridDim.x <= HCL_REDUCE_MAX_BLOCKS from n alone and
 * blockDim.x = HCL_REDUCE_THREADS): each block folds a grid-stride slice (16-byte loads when aligned) with warp
 * shuffles and writes one partial; the last block to finish (an atomic ticket after a fence) folds the partials
 * in index order. Every fold happens in an order fixed by n, so the same input gives the same bits on every run.
 * max/min ignore NaN as fmaxf/fminf do. The ticket counter must be 0 before the first launch; the last block
 * puts it and the partials back to 0, so launches on one stream can reuse the scratch.
 * Also the HIP kernel (reduce.hip): the folds run over warpSize lanes (32 on NVIDIA, 64 or 32 on AMD) and the
 * per-warp scratch holds 32 entries, enough for 1024 threads at either width. Includes only hcl_gpu_compat.h,
 * so NVRTC and hiprtc can build it alone. */

#include "hcl_gpu_types.h"

#define HCL_REDUCE_THREADS 256
#define HCL_REDUCE_MAX_BLOCKS 1024

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
        const unsigned long long nv = n / E::VEC;
        for (unsigned long long i = tid; i < nv; i += stride) {
            float x[E::VEC];
            E::ld_vec(in, i, x);
            /* pairwise within the vector, then into the thread's total */
#pragma unroll
            for (int w = 1; w < E::VEC; w *= 2)
#pragma unroll
                for (int q = 0; q < E::VEC; q += 2 * w) x[q] = op::apply(x[q], x[q + w]);
            acc = op::apply(acc, x[0]);
        }
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
    /* volatile: read from L2, never from a stale L1 line */
    const volatile float *vp = partials;
    float v = op::identity();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) {
        v = op::apply(v, vp[i]);
        partials[i] = 0.0f; /* the scratch is left as zeros, as it came */
    }
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
