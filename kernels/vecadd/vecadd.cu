/* vecadd (CUDA and HIP): c[i] = a[i] + b[i] for i < n, in f32, f16 or bf16 (hcl_gpu_types.h; float arithmetic,
 * one rounding per element).
 *
 * Grid-stride over 16-byte vectors (4 floats or 8 halves) when all three pointers are 16-byte aligned (always so for
 * whole buffers), then a scalar tail; a scalar loop otherwise. c may be a or b: every element is read and written by
 * the same thread, so the pointers are deliberately not __restrict__. Nothing here depends on the warp width. */

#include "hcl_gpu_types.h"

template <typename T>
__device__ __forceinline__ void hcl_vecadd_impl(const T *a, const T *b, T *c, unsigned long long n) {
    typedef hcl_elem<T> E;
    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long done = 0;
    if (hcl_aligned16(a) && hcl_aligned16(b) && hcl_aligned16(c)) {
        const unsigned long long nv = n / E::VEC;
        for (unsigned long long i = tid; i < nv; i += stride) {
            float x[E::VEC], y[E::VEC];
            E::ld_vec(a, i, x);
            E::ld_vec(b, i, y);
#pragma unroll
            for (int q = 0; q < E::VEC; q++) x[q] += y[q];
            E::st_vec(c, i, x);
        }
        done = nv * E::VEC;
    }
    for (unsigned long long i = done + tid; i < n; i += stride) E::st(c, i, E::ld(a, i) + E::ld(b, i));
}

#define HCL_VECADD_KERNEL(SUFFIX, T)                                                                                   \
    extern "C" __global__ void hcl_vecadd_##SUFFIX(const T *a, const T *b, T *c, unsigned long long n) {               \
        hcl_vecadd_impl<T>(a, b, c, n);                                                                                \
    }
HCL_GPU_TYPES(HCL_VECADD_KERNEL)
