// The suite's user kernels (test_api_kernels.c) as a Vulkan compute shader, compiled once per kernel
// (-DSCALE_REV or -DINDEX3D, the entry point named as the kernel) and joined into one SPIR-V module by spirv-link.
// HCL's Vulkan launch ABI (docs/backends.md): buffers bind in argument order to bindings 0, 1, ...; values fill the
// push-constant block in order; the launch's block is specialisation constants 0-2 and its dynamic shared memory (in
// bytes) specialisation constant 3, which sizes the shared array here.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint HCL_SHARED_BYTES = 4;
#if defined(SCALE_REV)
// scale_rev(float *out, const float *in, float alpha, uint n) with `tmp` in dynamic shared memory
layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform P { float alpha; uint n; } p;
shared float tmp[HCL_SHARED_BYTES / 4 + 1];
void main() {
    const uint l = gl_LocalInvocationID.x, bs = gl_WorkGroupSize.x, grp = gl_WorkGroupID.x, g = grp * bs + l;
    tmp[l] = g < p.n ? x[g] : 0.0;
    barrier();
    if (g < p.n) o[g] = p.alpha * tmp[bs - 1 - l] + float(grp);
}
#else
// index3d(uint *out)
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint o[]; };
void main() {
    const uvec3 id = gl_GlobalInvocationID, size = gl_NumWorkGroups * gl_WorkGroupSize;
    o[(id.z * size.y + id.y) * size.x + id.x] = id.x | (id.y << 10) | (id.z << 20);
}
#endif
