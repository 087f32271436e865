/* bench's user kernels in their Vulkan form (bench_lib.h: bench_vulkan_source): vulkan_kernels.comp compiled by
 * glslangValidator and joined by spirv-link at build time (bench/CMakeLists.txt), where those were found. */
#include "bench_lib.h"

#ifdef BENCH_HAVE_VULKAN_SPIRV
extern const unsigned char bench_vulkan_spirv[];
extern const size_t bench_vulkan_spirv_size;
#endif

int bench_vulkan_source(hcl_module_source *out) {
#ifdef BENCH_HAVE_VULKAN_SPIRV
    *out = (hcl_module_source){HCL_SOURCE_SPIRV_VULKAN, bench_vulkan_spirv, bench_vulkan_spirv_size, NULL};
    return 1;
#else
    (void)out;
    return 0;
#endif
}
