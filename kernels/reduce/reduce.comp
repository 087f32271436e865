// reduce (Vulkan GLSL, kernels/hcl_vk_types.glsl): the sum, max or min (-DOP_SUM, -DOP_MAX, -DOP_MIN) of in[0..n)
// into one float, deterministic: two launches of shapes fixed by n and the device only.
//   hcl_reduce_<op>_<type> (-DPARTIAL): work-group g folds the elements g*WG + lid + k*groups*WG into partial[g];
//   hcl_reduce_<op>_final (f32 partials, one work-group): folds partial[0..n) into out[0].
// The work-items' totals meet in a tree in shared memory (the work-group size is a power of two of at most 1024). Padding is the identity (0, -inf, inf); max and min skip NaN as fmax and fmin do.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hcl_vk_types.glsl"
#ifdef PARTIAL
layout(std430, set = 0, binding = 0) readonly buffer In { T x[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
#endif
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform P { uint n; } p;
#if defined(OP_SUM)
#define IDENTITY 0.0
#define COMBINE(a, b) ((a) + (b))
#elif defined(OP_MAX)
#define IDENTITY (-1.0 / 0.0)
#define COMBINE(a, b) hcl_fmax(a, b)
#else
#define IDENTITY (1.0 / 0.0)
#define COMBINE(a, b) hcl_fmin(a, b)
#endif
shared float s[1024];
void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint stride = gl_NumWorkGroups.x * wg;
    float acc = float(IDENTITY);
#ifdef PARTIAL
    for (uint i = gl_WorkGroupID.x * wg + lid; i < p.n; i += stride) acc = COMBINE(acc, LOAD(x[i]));
#else
    for (uint i = lid; i < p.n; i += wg) acc = COMBINE(acc, x[i]);
#endif
    s[lid] = acc;
    barrier();
    for (uint h = wg / 2; h > 0; h /= 2) {
        if (lid < h) s[lid] = COMBINE(s[lid], s[lid + h]);
        barrier();
    }
    if (lid == 0) y[gl_WorkGroupID.x] = s[0];
}
