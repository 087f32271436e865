// libhcl-bench-cub.so: CUB's DeviceReduce::Sum for bench's CUDA reduce baseline (see cub_reduce.h).
#include "cub_reduce.h"

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <cuda_runtime_api.h>

#define HCL_BENCH_CUB_API extern "C" __attribute__((visibility("default")))

HCL_BENCH_CUB_API int hcl_bench_cub_sum(void *temp, size_t *temp_bytes, const float *in, float *out, int n,
                                        void *stream) {
    return static_cast<int>(cub::DeviceReduce::Sum(temp, *temp_bytes, in, out, n, static_cast<cudaStream_t>(stream)));
}

HCL_BENCH_CUB_API const char *hcl_bench_cub_error_name(int status) {
    return cudaGetErrorName(static_cast<cudaError_t>(status));
}

HCL_BENCH_CUB_API int hcl_bench_cub_version(void) { return CUB_VERSION; }

HCL_BENCH_CUB_API int hcl_bench_cub_cudart_version(void) { return CUDART_VERSION; }
