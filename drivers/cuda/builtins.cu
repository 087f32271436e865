/* Every built-in kernel of the CUDA driver in one translation unit, so nvcc makes one fatbin of them (nvcc --fatbin
 * takes one source) and NVRTC one program. The include names are the ones NVRTC is given as headers
 * (drivers/cudahip/sources.c); nvcc finds them with -I on the kernels folder and drivers/cudahip. */
#include "vecadd/vecadd.cu"
#include "gemm/gemm.cu"
#include "softmax/softmax.cu"
#include "reduce/reduce.cu"
#include "fill.cu"
