// vecadd (Vulkan GLSL, kernels/hcl_vk_types.glsl): c[i] = a[i] + b[i] for i < n, a grid-stride loop over the
// launch's work-items .
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hcl_vk_types.glsl"
layout(std430, set = 0, binding = 0) readonly buffer A { T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { T b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { T c[]; };
layout(push_constant) uniform P { uint n; } p;
void main() {
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) c[i] = STORE(LOAD(a[i]) + LOAD(b[i]));
}
