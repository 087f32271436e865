/* The driver's helper kernels as one program for the run-time compiler: fill.cu and, as an in-memory header under
 * the name it #includes it by, the CUDA/HIP name map (kernels/hcl_gpu_compat.h). The texts are embedded by the
 * driver's CMakeLists.txt (hcl_embed). No runtime call here, so the CI tests link this file alone. */
#include "gpu.h"

extern const unsigned char hcl_gpu_src_fill[], hcl_gpu_src_compat[];
extern const size_t hcl_gpu_src_fill_size;

static const char *const g_headers[] = {(const char *)hcl_gpu_src_compat};
static const char *const g_include_names[] = {"hcl_gpu_compat.h"};
_Static_assert(sizeof g_headers == sizeof g_include_names, "one include name per header");

void hcl__gpu_helpers_job(hcl__gpu_rtc_job *job) {
    *job = (hcl__gpu_rtc_job){
        .source = (const char *)hcl_gpu_src_fill,
        .source_size = hcl_gpu_src_fill_size,
        .name = HCL_GPU_CUDA ? "hcl_fill.cu" : "hcl_fill.hip",
        .num_headers = (int)(sizeof g_headers / sizeof g_headers[0]),
        .headers = g_headers,
        .include_names = g_include_names,
    };
}
