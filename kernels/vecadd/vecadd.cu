/* vecadd (CUDA and HIP): c[i] = a[i] + b[i] for i < n.
 *
 * Grid-stride over float4 when all three pointers are 16-byte aligned (always so for whole buffers), then a
 * scalar tail; a scalar loop otherwise. c may be a or b: every element is read and written by the same thread,
 * so the pointers are deliberately not __restrict__. Also the HIP kernel (vecadd.hip): nothing here depends on the
 * warp width. Includes only hcl_gpu_compat.h, so NVRTC and hiprtc can build it alone. */

#include "hcl_gpu_compat.h"

extern "C" __global__ void hcl_vecadd_f32(const float *a, const float *b, float *c, unsigned long long n) {
    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long mis = ((unsigned long long)a | (unsigned long long)b | (unsigned long long)c) & 15ull;
    unsigned long long done = 0;
    if (mis == 0) {
        const unsigned long long n4 = n / 4;
        const float4 *a4 = (const float4 *)a;
        const float4 *b4 = (const float4 *)b;
        float4 *c4 = (float4 *)c;
        for (unsigned long long i = tid; i < n4; i += stride) {
            const float4 x = a4[i];
            const float4 y = b4[i];
            c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        }
        done = n4 * 4;
    }
    for (unsigned long long i = done + tid; i < n; i += stride) c[i] = a[i] + b[i];
}
