/* The interface of libhcl-bench-cub.so: CUB's DeviceReduce::Sum behind three C functions, built by nvcc at build
 * time (cub_reduce.cu, with the CUDA runtime linked statically) and opened by bench with dlopen, so bench itself
 * links no CUDA library. cub_reduce.cu includes this header, so the definitions must match these declarations. */
#ifndef HCL_BENCH_CUB_REDUCE_H
#define HCL_BENCH_CUB_REDUCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceReduce::Sum(temp, *temp_bytes, in, out, n, stream). With temp NULL it only sets *temp_bytes. in and
 * out are device pointers of the current context; stream is a CUstream (cudaStream_t). Returns a cudaError_t. */
int hcl_bench_cub_sum(void *temp, size_t *temp_bytes, const float *in, float *out, int n, void *stream);
/* cudaGetErrorName of a status from hcl_bench_cub_sum. */
const char *hcl_bench_cub_error_name(int status);
/* CUB_VERSION (major * 100000 + minor * 100 + subminor) and CUDART_VERSION the library was built with. */
int hcl_bench_cub_version(void);
int hcl_bench_cub_cudart_version(void);

#ifdef __cplusplus
}
#endif
#endif
