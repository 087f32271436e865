// reduce (Vulkan GLSL, kernels/hcl_vk_types.glsl): the sum, max or min (-DOP_SUM, -DOP_MAX, -DOP_MIN) of in[0..n)
// into one float, deterministic: two launches of shapes fixed by n and the device only.
//   hcl_reduce_<op>_<type> (-DPARTIAL): work-group g folds its share of in into partial[g]: a grid-stride loop over
//     in's 16-byte words (in seen a second time, as uvec4, at its binding 0), four words a trip into two sets of HCL_VN
//     accumulators, then the last n % HCL_VN elements one a work-item;
//   hcl_reduce_<op>_final (f32 partials, one work-group): folds partial[0..n) into out[0].
// The work-items' totals meet in subgroup operations and shared memory (HCL_GROUP_FOLD_FN). Padding is the identity
// (0, -inf, inf); max and min skip NaN as fmax and fmin do (so no accumulator of theirs is ever NaN).
#version 450
#extension GL_GOOGLE_include_directive : require
#define HCL_GROUP_FOLD
#include "hcl_vk_types.glsl"
#ifdef PARTIAL
layout(std430, set = 0, binding = 0) readonly buffer In { T x[]; };
layout(std430, set = 0, binding = 0) readonly buffer In4 { uvec4 x4[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
#endif
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform P { uint n; } p;
#if defined(OP_SUM)
#define IDENTITY 0.0
#define COMBINE hcl_add
#define SG_COMBINE subgroupAdd
#elif defined(OP_MAX)
#define IDENTITY (-1.0 / 0.0)
#define COMBINE hcl_fmax
#define SG_COMBINE subgroupMax
#else
#define IDENTITY (1.0 / 0.0)
#define COMBINE hcl_fmin
#define SG_COMBINE subgroupMin
#endif
HCL_GROUP_FOLD_FN(group_fold, SG_COMBINE, COMBINE, float(IDENTITY))

#ifdef PARTIAL
// acc[k] = COMBINE(acc[k], element k of word w) for each of its HCL_VN elements
void fold_word(inout float acc[HCL_VN], uvec4 w) {
    float f[HCL_VN];
    hcl_unpack(w, f);
    for (int k = 0; k < HCL_VN; k++) acc[k] = COMBINE(acc[k], f[k]);
}
#endif

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    float acc = float(IDENTITY);
#ifdef PARTIAL
    const uint stride = gl_NumWorkGroups.x * wg, words = p.n / HCL_VN, gid = gl_WorkGroupID.x * wg + lid;
    float a0[HCL_VN], a1[HCL_VN];
    for (int k = 0; k < HCL_VN; k++) a0[k] = a1[k] = float(IDENTITY);
    uint i = gid;
    for (; i + 3 * stride < words; i += 4 * stride) { // four independent 16-byte loads in flight a trip
        const uvec4 w0 = x4[i], w1 = x4[i + stride], w2 = x4[i + 2 * stride], w3 = x4[i + 3 * stride];
        fold_word(a0, w0);
        fold_word(a1, w1);
        fold_word(a0, w2);
        fold_word(a1, w3);
    }
    for (; i < words; i += stride) fold_word(a0, x4[i]);
    if (gid < p.n - words * HCL_VN) a1[0] = COMBINE(a1[0], LOAD(x[words * HCL_VN + gid]));
    for (int k = 0; k < HCL_VN; k++) acc = COMBINE(acc, COMBINE(a0[k], a1[k]));
#else
    for (uint i = lid; i < p.n; i += wg) acc = COMBINE(acc, x[i]);
#endif
    acc = group_fold(acc);
    if (lid == 0) y[gl_WorkGroupID.x] = acc;
}
