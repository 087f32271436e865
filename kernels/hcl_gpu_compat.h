/* The CUDA/HIP kernel name map: what the built-in .cu kernels need that CUDA and HIP spell differently.
 *
 * The HIP kernels are the CUDA kernels (kernels/<name>/<name>.cu) compiled as HIP, the way llama.cpp builds
 * ggml-cuda for ROCm: one source, and this header for the few names that differ. Everything else a kernel uses
 * (blockIdx, __syncthreads, float4, make_float4, atomicAdd, __threadfence, expf, fmaf, ...) is spelled the
 * same in both. Included by every kernel source; works under nvcc, NVRTC, hipcc and hiprtc, and needs no other
 * header (kernels/CMakeLists.txt puts it first in the one text the compilers get).
 *
 * What really differs between the two is not hidden here but written out in the kernels and the host code:
 *  - the warp is 32 lanes on NVIDIA; an AMD wavefront is 64 lanes on gfx9 (GCN, CDNA) and 32 on gfx10+ (RDNA,
 *    wave32 is clang's default there). Kernels use warpSize, never 32; the host takes the width from the device.
 *  - shared scratch sized "one float per warp" uses 32 entries: enough for 1024 threads at 32 lanes, and so for
 *    any block on either vendor. */
#ifndef HCL_GPU_COMPAT_H
#define HCL_GPU_COMPAT_H

#if defined(__HIP__) || defined(__HIPCC__) || defined(__HIPCC_RTC__)
#define HCL_GPU_HIP_KERNEL 1
#endif

#if defined(HCL_GPU_HIP_KERNEL) && !defined(__HIPCC_RTC__)
/* hipcc does not put the HIP device API in scope by itself (hiprtc does) */
#include <hip/hip_runtime.h>
#endif

/* Cross-lane exchange within one warp / wavefront, every lane taking part. CUDA asks for the lanes as a
 * 32-bit mask; HIP 5 has only the unmasked form (its later _sync forms take a 64-bit mask). */
#if defined(HCL_GPU_HIP_KERNEL)
#define HCL_SHFL_XOR(v, lane_mask) __shfl_xor((v), (lane_mask))
#define HCL_SHFL_DOWN(v, delta) __shfl_down((v), (delta))
#else
#define HCL_SHFL_XOR(v, lane_mask) __shfl_xor_sync(0xffffffffu, (v), (lane_mask))
#define HCL_SHFL_DOWN(v, delta) __shfl_down_sync(0xffffffffu, (v), (delta))
#endif

/* Launch bounds: the most threads per block, and CUDA's occupancy hint "at least this many blocks per SM".
 * HIP's second __launch_bounds__ argument means something else (minimum waves per execution unit), so on HIP
 * the hint is left out and only the block size bound is kept (it sets the register budget on AMD). */
#define HCL_LAUNCH_BOUNDS(max_threads) __launch_bounds__(max_threads)
#if defined(HCL_GPU_HIP_KERNEL)
#define HCL_LAUNCH_BOUNDS_MIN_BLOCKS(max_threads, min_blocks_per_sm) __launch_bounds__(max_threads)
#else
#define HCL_LAUNCH_BOUNDS_MIN_BLOCKS(max_threads, min_blocks_per_sm) __launch_bounds__(max_threads, min_blocks_per_sm)
#endif

/* A kernel parameter the kernel may take the address of without a local copy (CUDA 11.7+; the TMA reads tensor
 * maps from it). HIP has no such qualifier and no kernel that needs it. */
#if !defined(HCL_GPU_HIP_KERNEL) &&                                                                                    \
    (__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 7))
#define HCL_GRID_CONSTANT __grid_constant__
#else
#define HCL_GRID_CONSTANT
#endif

/* The body of a kernel compiled for a target that lacks what it needs (the host never launches it there): a launch
 * traps on CUDA, so that a planning bug fails loudly instead of leaving the output unwritten; nothing on HIP. */
#if defined(__CUDA_ARCH__) && !defined(HCL_GPU_HIP_KERNEL)
#define HCL_GPU_UNREACHABLE __trap();
#else
#define HCL_GPU_UNREACHABLE
#endif

#endif /* HCL_GPU_COMPAT_H */
