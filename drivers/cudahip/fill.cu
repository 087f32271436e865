/* fill (CUDA and HIP, the drivers' own helper): repeat a pattern of 8..128 bytes over 8-byte-aligned memory.
 *
 * cuMemsetD8/D16/D32Async (hipMemsetD8/D16/D32Async) cover patterns of 1, 2 and 4 bytes; this kernel covers 8,
 * 16, 32, 64 and 128. The destination offset and size are multiples of the pattern size, so the pattern repeats
 * whole in 8-byte words and word i of the fill is word (i mod words) of the pattern. With blockDim.x a multiple
 * of 16 the grid stride is too, so each thread writes the same pattern word on every iteration: it picks it once,
 * with constant indices (a variable index into a parameter would copy the pattern to local memory).
 * The same source is the HIP kernel (built as fill.hip by drivers/hip/CMakeLists.txt): nothing here depends on the
 * warp width. Includes only hcl_gpu_compat.h, so NVRTC and hiprtc build it alone (helpers.c, sources.c). */

#include "hcl_gpu_compat.h"

struct hcl_fill_pattern_t {
    unsigned long long w[16];
};

extern "C" __global__ void hcl_fill_u64(unsigned long long *dst, unsigned long long count, hcl_fill_pattern_t pattern,
                                        unsigned int words) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int which = (unsigned int)first & (words - 1); /* words is a power of two <= 16 */
    unsigned long long v = 0;
#pragma unroll
    for (unsigned int q = 0; q < 16; q++)
        if (q == which) v = pattern.w[q];
    for (unsigned long long i = first; i < count; i += stride) dst[i] = v;
}
