/* The user kernel both robustness programs run (fault_flow.c, thread_stress.c): x[i] = 2 * x[i] for i < n, as
 * OpenCL C, CUDA C (also taken as HIP C), a host function table and GLSL (Vulkan, compiled at run time), one candidate per
 * backend in twice_sources. */
#ifndef HCL_ROBUST_TWICE_KERNEL_H
#define HCL_ROBUST_TWICE_KERNEL_H

#include <hcl/hcl.h>

static const char twice_ocl_src[] = "__kernel void twice(__global float *x, uint n) {\n"
                                    "    uint i = get_global_id(0);\n"
                                    "    if (i < n) x[i] = 2.0f * x[i];\n"
                                    "}\n";

static const char twice_cuda_src[] = "extern \"C\" __global__ void twice(float *x, unsigned n) {\n"
                                     "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "    if (i < n) x[i] = 2.0f * x[i];\n"
                                     "}\n";

static void twice_host(const hcl_host_launch *l, void *const *args) {
    float *x = *(float *const *)args[0];
    unsigned n = *(const unsigned *)args[1];
    for (unsigned t = 0; t < l->block.x; t++) {
        unsigned i = l->group_id.x * l->block.x + t;
        if (i < n) x[i] = 2.0f * x[i];
    }
}
static const hcl_host_function twice_host_table[] = {{"twice", twice_host}};

static const char twice_glsl_src[] = "#version 450\n"
                                     "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n"
                                     "layout(std430, binding = 0) buffer X { float x[]; };\n"
                                     "layout(push_constant) uniform P { uint n; } p;\n"
                                     "void main() {\n"
                                     "    uint i = gl_GlobalInvocationID.x;\n"
                                     "    if (i < p.n) x[i] = 2.0 * x[i];\n"
                                     "}\n";

/* hcl_module_create(dev, twice_sources, TWICE_SOURCES, ...) builds it on any backend but Level Zero */
#define TWICE_SOURCES 5
static const hcl_module_source twice_sources[TWICE_SOURCES] = {
    {HCL_SOURCE_OPENCL_C, twice_ocl_src, sizeof twice_ocl_src - 1, NULL},
    {HCL_SOURCE_CUDA_C, twice_cuda_src, sizeof twice_cuda_src - 1, NULL},
    {HCL_SOURCE_HIP_C, twice_cuda_src, sizeof twice_cuda_src - 1, NULL},
    {HCL_SOURCE_HOST_TABLE, twice_host_table, 1, NULL},
    {HCL_SOURCE_GLSL, twice_glsl_src, sizeof twice_glsl_src - 1, NULL}};

#endif /* HCL_ROBUST_TWICE_KERNEL_H */
