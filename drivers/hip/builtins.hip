/* Every built-in kernel of the HIP driver in one translation unit, so hipcc --genco makes one code-object bundle of
 * them (one code object per gfx target) and hiprtc one program. The .hip kernels are the CUDA kernels compiled as
 * HIP (kernels/hcl_gpu_compat.h); fill.cu is the drivers' shared helper (drivers/cudahip). The include names are
 * the ones hiprtc is given as headers (drivers/cudahip/sources.c); hipcc finds them with -I on the kernels folder
 * and drivers/cudahip. */
#include "vecadd/vecadd.hip"
#include "gemm/gemm.hip"
#include "softmax/softmax.hip"
#include "reduce/reduce.hip"
#include "fill.cu"
