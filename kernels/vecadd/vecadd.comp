// vecadd (Vulkan GLSL, kernels/hcl_vk_types.glsl): c[i] = a[i] + b[i] for i < n. Each buffer is seen two ways at its
// one binding (0-2): as T and as 16-byte words (hcl_unpack/hcl_pack). A grid-stride loop over the whole words
// (4 float32 or 8 16-bit elements a work-item a trip: one 16-byte load a buffer), then the last n % HCL_VN elements
// one a work-item.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hcl_vk_types.glsl"
layout(std430, set = 0, binding = 0) readonly buffer A { T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { T b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { T c[]; };
layout(std430, set = 0, binding = 0) readonly buffer A4 { uvec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4 { uvec4 b4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C4 { uvec4 c4[]; };
layout(push_constant) uniform P { uint n; } p;
void main() {
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x, words = p.n / HCL_VN;
    for (uint i = gl_GlobalInvocationID.x; i < words; i += stride) {
        float fa[HCL_VN], fb[HCL_VN];
        hcl_unpack(a4[i], fa);
        hcl_unpack(b4[i], fb);
        for (int k = 0; k < HCL_VN; k++) fa[k] += fb[k];
        c4[i] = hcl_pack(fa);
    }
    if (gl_GlobalInvocationID.x < p.n - words * HCL_VN) {
        const uint i = words * HCL_VN + gl_GlobalInvocationID.x;
        c[i] = STORE(LOAD(a[i]) + LOAD(b[i]));
    }
}
