/* The built-in kernels as one program for the run-time compiler: the embedded program (drivers/cuda/builtins.cu
 * or drivers/hip/builtins.hip) and, as in-memory headers under the names it #includes them by, the kernel
 * sources (kernels/<name>/<name>.cu, and on HIP the <name>.hip that include them), the driver's fill kernel and
 * the CUDA/HIP name map. The texts are embedded by the driver's CMakeLists.txt (hcl_embed). No runtime call here,
 * so the CI tests link this file alone. */
#include "gpu.h"

extern const unsigned char hcl_gpu_src_builtins[];
extern const size_t hcl_gpu_src_builtins_size;
extern const unsigned char hcl_gpu_src_compat[], hcl_gpu_src_fill[], hcl_gpu_src_vecadd[], hcl_gpu_src_gemm[],
    hcl_gpu_src_softmax[], hcl_gpu_src_reduce[];
#if HCL_GPU_HIP
extern const unsigned char hcl_gpu_src_vecadd_hip[], hcl_gpu_src_gemm_hip[], hcl_gpu_src_softmax_hip[],
    hcl_gpu_src_reduce_hip[];
#endif

static const char *const g_headers[] = {
    (const char *)hcl_gpu_src_compat,  (const char *)hcl_gpu_src_vecadd, (const char *)hcl_gpu_src_gemm,
    (const char *)hcl_gpu_src_softmax, (const char *)hcl_gpu_src_reduce, (const char *)hcl_gpu_src_fill,
#if HCL_GPU_HIP
    (const char *)hcl_gpu_src_vecadd_hip,  (const char *)hcl_gpu_src_gemm_hip,
    (const char *)hcl_gpu_src_softmax_hip, (const char *)hcl_gpu_src_reduce_hip,
#endif
};
static const char *const g_include_names[] = {
    "hcl_gpu_compat.h",   "vecadd/vecadd.cu", "gemm/gemm.cu", "softmax/softmax.cu", "reduce/reduce.cu", "fill.cu",
#if HCL_GPU_HIP
    "vecadd/vecadd.hip", "gemm/gemm.hip",    "softmax/softmax.hip", "reduce/reduce.hip",
#endif
};
_Static_assert(sizeof g_headers == sizeof g_include_names, "one include name per header");

void hcl__gpu_builtins_job(hcl__gpu_rtc_job *job) {
    *job = (hcl__gpu_rtc_job){
        .source = (const char *)hcl_gpu_src_builtins,
        .source_size = hcl_gpu_src_builtins_size,
        .name = HCL_GPU_CUDA ? "hcl_builtins.cu" : "hcl_builtins.hip",
        .num_headers = (int)(sizeof g_headers / sizeof g_headers[0]),
        .headers = g_headers,
        .include_names = g_include_names,
    };
}
