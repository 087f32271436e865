/* vecadd (HIP): the CUDA kernel vecadd.cu compiled as HIP, the same algorithm, written for any warp width (an
 * AMD wavefront is 64 lanes on gfx9, 32 on gfx10+); kernels/hcl_gpu_compat.h maps the few names that differ.
 * Include path: the kernels folder (hipcc -I, or an in-memory header of that name for hiprtc). */
#include "vecadd/vecadd.cu"
