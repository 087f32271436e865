// bench's user kernels as Vulkan compute shaders, compiled once per kernel (-DEMPTY, -DAXPY or -DPEAK_F32, the entry point named
// as the kernel) and joined into one SPIR-V module by spirv-link (bench/CMakeLists.txt). HCL's Vulkan launch ABI
// (docs/backends.md): buffers bind in argument order to bindings 0, 1, ...; values fill the push-constant block in
// order; the launch's block is specialisation constants 0-2.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
#if defined(EMPTY)
// hcl_bench_empty(void): the launch cost
void main() {}
#elif defined(PEAK_F32)
// hcl_bench_peak_f32(float *out, float a, float b, int iters): as the OpenCL C one in sections.c, 8 vec4 chains of fma
layout(std430, set = 0, binding = 0) writeonly buffer Out { vec4 o[]; };
layout(push_constant) uniform P { float a; float b; int iters; } p;
void main() {
    const uint g = gl_GlobalInvocationID.x;
    const vec4 va = vec4(p.a), vb = vec4(p.b);
    vec4 x[8];
    for (int j = 0; j < 8; j++) x[j] = vec4(1.0 + float(g & 7u) * 0.125 + float(j) * 0.0078125);
    for (int i = 0; i < p.iters; i++)
        for (int j = 0; j < 8; j++) x[j] = fma(x[j], va, vb);
    for (int j = 0; j < 8; j++) o[g * 8u + uint(j)] = x[j];
}
#else
// hcl_bench_axpy(float *y, const float *x, float a, uint n): y = a * x + y
layout(std430, set = 0, binding = 0) buffer Y { float y[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(push_constant) uniform P { float a; uint n; } p;
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < p.n) y[i] = p.a * x[i] + y[i];
}
#endif
