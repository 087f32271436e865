// reduce (Vulkan GLSL, kernels/hcl_vk_types.glsl): the sum, max or min (-DOP_SUM, -DOP_MAX, -DOP_MIN) of in[0..n)
// into one float, deterministic, in one launch of a shape fixed by n and the device only (hcl_reduce_<op>_<type>):
// work-group g folds its share of in into partial[g]: a grid-stride loop over in's 16-byte words (in seen a second
// time, as uvec4, at its binding 0), four words a trip into two sets of HCL_VN accumulators, then the last n % HCL_VN
// elements one a work-item. The last work-group to finish (a ticket taken after its partial is written) folds the
// partials in index order into out[0], then puts the ticket and the partials back to 0 (the scratch is left zeroed, as
// it came, for the next launch). The work-items' totals meet in subgroup operations and shared memory
// (HCL_GROUP_FOLD_FN). Padding is the identity (0, -inf, inf); max and min skip NaN as fmax and fmin do (so no
// accumulator of theirs is ever NaN).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define HCL_GROUP_FOLD
#include "hcl_vk_types.glsl"
layout(std430, set = 0, binding = 0) readonly buffer In { T x[]; };
layout(std430, set = 0, binding = 0) readonly buffer In4 { uvec4 x4[]; };
// the scratch: the ticket, then a partial a work-group; coherent, so that the last work-group reads what the others
// wrote (from the device's shared cache, not its own)
layout(std430, set = 0, binding = 1) coherent buffer Scratch { uint ticket; float partial[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float y[]; };
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

shared bool last; // this work-group took the last ticket

// acc[k] = COMBINE(acc[k], element k of word w) for each of its HCL_VN elements
void fold_word(inout float acc[HCL_VN], uvec4 w) {
    float f[HCL_VN];
    hcl_unpack(w, f);
    for (int k = 0; k < HCL_VN; k++) acc[k] = COMBINE(acc[k], f[k]);
}

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, groups = gl_NumWorkGroups.x;
    const uint stride = groups * wg, words = p.n / HCL_VN, gid = gl_WorkGroupID.x * wg + lid;
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
    float acc = float(IDENTITY);
    for (int k = 0; k < HCL_VN; k++) acc = COMBINE(acc, COMBINE(a0[k], a1[k]));
    acc = group_fold(acc);
    if (lid == 0) {
        partial[gl_WorkGroupID.x] = acc;
        memoryBarrierBuffer(); // the partial is visible before the ticket is taken
        last = atomicAdd(ticket, 1u) == groups - 1u;
    }
    barrier();
    if (!last) return; // the whole work-group leaves or stays
    memoryBarrierBuffer();
    acc = float(IDENTITY);
    // a work-item's partials g = lid, lid + wg, ... in that order, read four at a time before they are folded, so that
    // the reads of the scratch are in flight together (the identity past the last adds nothing)
    for (uint g0 = lid; g0 < groups; g0 += 4u * wg) {
        float t[4];
        [[unroll]] for (uint q = 0u; q < 4u; q++) t[q] = g0 + q * wg < groups ? partial[g0 + q * wg] : float(IDENTITY);
        [[unroll]] for (uint q = 0u; q < 4u; q++) acc = COMBINE(acc, t[q]);
    }
    acc = group_fold(acc); // its barriers order these reads before the writes below
    for (uint g = lid; g < groups; g += wg) partial[g] = 0.0;
    if (lid == 0) {
        y[0] = acc;
        ticket = 0u;
    }
}
