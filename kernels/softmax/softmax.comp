// softmax (Vulkan GLSL, kernels/hcl_vk_types.glsl): row-wise, numerically stable, out[r][j] = exp(in[r][j] - max_r)
// / sum_j exp(in[r][j] - max_r), computed in float32.
// hcl_softmax_<type>: one work-group a row, rows gl_WorkGroupID.x + k * groups (any row count); the row is read three
// times (max, sum, write), the work-items' partials meet in a tree in shared memory (the work-group size is a power of two of at
// most 1024). -inf entries give 0; a row of all -inf, or with a
// NaN, is NaN, as in PyTorch (the max skips NaN as fmax does, the sum takes it). In place works: each element is
// read and written by one work-item, the writes after the barriers that end the sum.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hcl_vk_types.glsl"
layout(std430, set = 0, binding = 0) readonly buffer In { T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { T y[]; };
layout(push_constant) uniform P { uint rows; uint cols; } p;
shared float s[1024];

float fold(float v, bool is_max) {
    const uint lid = gl_LocalInvocationID.x;
    s[lid] = v;
    barrier();
    for (uint h = gl_WorkGroupSize.x / 2; h > 0; h /= 2) {
        if (lid < h) s[lid] = is_max ? hcl_fmax(s[lid], s[lid + h]) : s[lid] + s[lid + h];
        barrier();
    }
    const float r = s[0];
    barrier(); // s is reused by the next fold
    return r;
}

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, cols = p.cols;
    for (uint r = gl_WorkGroupID.x; r < p.rows; r += gl_NumWorkGroups.x) {
        const uint base = r * cols;
        float m = -1.0 / 0.0;
        for (uint j = lid; j < cols; j += wg) m = hcl_fmax(m, LOAD(x[base + j]));
        m = fold(m, true);
        float sum = 0.0;
        for (uint j = lid; j < cols; j += wg) sum += exp(LOAD(x[base + j]) - m);
        sum = fold(sum, false);
        const float inv = 1.0 / sum;
        for (uint j = lid; j < cols; j += wg) y[base + j] = STORE(exp(LOAD(x[base + j]) - m) * inv);
    }
}
