// softmax (Vulkan GLSL, kernels/hcl_vk_types.glsl): row-wise, numerically stable, out[r][j] = exp(in[r][j] - max_r)
// / sum_j exp(in[r][j] - max_r), computed in float32. A row is handled by a team of invocations:
//   hcl_softmax_<type>: a work-group a row, rows gl_WorkGroupID.x + k * groups; the team folds through subgroup
//     operations and shared memory (HCL_GROUP_FOLD_FN);
//   hcl_softmax_rows_<type> (-DSOFTMAX_ROWS): a run of p.lanes invocations of a subgroup a row (a power of two, at
//     most the subgroup size), so a work-group takes several rows at once; the team folds through subgroup shuffles.
// The row is read in 16-byte words (HCL_VN elements; in and out are seen a second time, as uvec4, at
// their bindings) where its length
// is a multiple of HCL_VN (so every row starts on a word), else element by element, a word's worth an invocation.
// With p.keep, each invocation keeps its first WORDS words in registers as they came (words member + k * team; 32
// float32 or 64 16-bit values in the same 32 registers), read once; the words past those (all of them without p.keep)
// are streamed: a pass that folds the running max and the sum rescaled to it (online softmax), then one that reads
// them again, last words first (the most recently read, still in cache), to write them. -inf entries give 0; a row of
// all -inf, or with a NaN, is NaN, as in PyTorch: the sum takes the NaN, so the row is NaN whatever the max makes of
// it (the held values' max is a plain max, and a NaN that reaches the folds of the max changes nothing that shows). In
// place works: each element is read and written by one invocation, the writes after the folds that end the sum.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifndef SOFTMAX_ROWS
#define HCL_GROUP_FOLD
#endif
#include "hcl_vk_types.glsl"
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(std430, set = 0, binding = 0) readonly buffer In { T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { T y[]; };
layout(std430, set = 0, binding = 0) readonly buffer In4 { uvec4 x4[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out4 { uvec4 y4[]; };
layout(push_constant) uniform P { uint rows; uint cols; uint lanes; uint keep; } p;

#define WORDS 8 // 16-byte words an invocation keeps in registers, as they came
#define NEG_INF (-1.0 / 0.0)

uint team, member; // the invocations of a row and this one's index among them

#ifdef SOFTMAX_ROWS
// the max (NaN-free values) and the sum of v over the team, to each of its invocations: a butterfly of shuffles
float team_max(float v) {
    for (uint o = team >> 1; o > 0; o >>= 1) v = hcl_fmax(v, subgroupShuffleXor(v, o));
    return v;
}
float team_sum(float v) {
    for (uint o = team >> 1; o > 0; o >>= 1) v += subgroupShuffleXor(v, o);
    return v;
}
#else
HCL_GROUP_FOLD_FN(team_max, subgroupMax, hcl_fmax, float(NEG_INF))
HCL_GROUP_FOLD_FN(team_sum, subgroupAdd, hcl_add, 0.0)
#endif

// word c of the row starting at element `base` as floats; elements past the row's end are -inf
void load_word(uint base, uint c, bool wide, out float f[HCL_VN]) {
    if (wide) {
        hcl_unpack(x4[base / HCL_VN + c], f);
        return;
    }
    for (uint e = 0; e < HCL_VN; e++) {
        const uint j = c * HCL_VN + e;
        f[e] = j < p.cols ? LOAD(x[base + j]) : float(NEG_INF);
    }
}

// word c of the row starting at element `base` as it is stored (a word of HCL_VN values of T; -inf past the row's end)
uvec4 load_raw(uint base, uint c, bool wide) {
    if (wide) return x4[base / HCL_VN + c];
    float f[HCL_VN];
    load_word(base, c, false, f);
    return hcl_pack(f); // exact: each value came from a T (-inf is one)
}

// word c of the row starting at element `base` from floats (the elements inside the row)
void store_word(uint base, uint c, bool wide, float f[HCL_VN]) {
    if (wide) {
        y4[base / HCL_VN + c] = hcl_pack(f);
        return;
    }
    for (uint e = 0; e < HCL_VN; e++) {
        const uint j = c * HCL_VN + e;
        if (j < p.cols) y[base + j] = STORE(f[e]);
    }
}

// exp(x - m), and an output exp(x - m) / S from k, which is 1 / S for a float32 output and log2(S) for a 16-bit one:
// there the division is folded into the exponent, 2^((x - m) log2(e) - log2(S)), one fma and an exp2 (the output's own
// rounding, 2^-9 or 2^-12, is far coarser than the 2^-22 of exp2)
#define LOG2E 1.4426950408889634
float ex(float x, float m) {
#if defined(HCL_F32)
    return exp(x - m);
#else
    return exp2((x - m) * LOG2E);
#endif
}
float scale_of(float total) {
#if defined(HCL_F32)
    return 1.0 / total;
#else
    return log2(total);
#endif
}
float out_of(float x, float m, float k) {
#if defined(HCL_F32)
    return exp(x - m) * k;
#else
    return exp2(fma(x - m, LOG2E, -k));
#endif
}

// the online fold: (m, s) = the running max and the sum of exp(x - m) over the values seen, after x (-inf adds 0 and
// is left out, so that no exp(-inf - -inf) is taken; a NaN makes s NaN; +inf makes s NaN as exp(inf - inf) does)
void online(inout float m, inout float s, float x) {
    if (x > m) {
        s = s * exp(m - x) + exp(x - x);
        m = x;
    } else if (x > float(NEG_INF) || isnan(x))
        s += exp(x - m);
}

// softmax of row r by the team (every invocation of the team calls it; `valid`: the row exists, else it only joins the
// folds)
void row(uint r, bool valid) {
    const uint cols = p.cols, words = (cols + HCL_VN - 1) / HCL_VN, base = r * cols;
    const bool wide = cols % HCL_VN == 0;
    const uint kept = p.keep != 0 ? WORDS : 0;
    const uint cached = min(words, kept * team); // the row's words kept in registers, team-wide
    float pad[HCL_VN], mc = float(NEG_INF), m = float(NEG_INF), s = 0.0;
    for (uint e = 0; e < HCL_VN; e++) pad[e] = float(NEG_INF);
    uvec4 v[WORDS];
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        if (k >= kept || k * team >= words) break;
        const uint c = member + k * team;
        v[k] = valid && c < words ? load_raw(base, c, wide) : hcl_pack(pad);
    }
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        if (k >= kept || k * team >= words) break;
        float f[HCL_VN];
        hcl_unpack(v[k], f);
        // a plain max: a NaN in the row makes its sum, and so every output, NaN whatever the max does with it
        for (uint e = 0; e < HCL_VN; e++) mc = max(mc, f[e]);
    }
    for (uint c = cached + member; valid && c < words; c += team) {
        float f[HCL_VN];
        load_word(base, c, wide, f);
        for (uint e = 0; e < HCL_VN; e++) online(m, s, f[e]);
    }
    const float mx = team_max(hcl_fmax(mc, m));
    float sum = m == mx ? s : s * exp(m - mx);
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        if (k >= kept || k * team >= words) break;
        float f[HCL_VN];
        hcl_unpack(v[k], f);
        for (uint e = 0; e < HCL_VN; e++) sum += ex(f[e], mx);
    }
    const float scale = scale_of(team_sum(sum));
    if (!valid) return;
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        if (k >= kept || k * team >= words) break;
        const uint c = member + k * team;
        if (c >= words) break;
        float f[HCL_VN];
        hcl_unpack(v[k], f);
        for (uint e = 0; e < HCL_VN; e++) f[e] = out_of(f[e], mx, scale);
        store_word(base, c, wide, f);
    }
    // the streamed words again, last first
    const uint left = words - cached, count = member < left ? (left - member + team - 1) / team : 0;
    for (uint t = count; t > 0; t--) {
        const uint c = cached + member + (t - 1) * team;
        float f[HCL_VN];
        load_word(base, c, wide, f);
        for (uint e = 0; e < HCL_VN; e++) f[e] = out_of(f[e], mx, scale);
        store_word(base, c, wide, f);
    }
}

void main() {
#ifdef SOFTMAX_ROWS
    team = min(p.lanes, gl_SubgroupSize);
    member = gl_SubgroupInvocationID % team;
    const uint slots = gl_NumSubgroups * (gl_SubgroupSize / team); // rows a work-group takes at once
    const uint slot = gl_SubgroupID * (gl_SubgroupSize / team) + gl_SubgroupInvocationID / team;
    for (uint r0 = gl_WorkGroupID.x * slots; r0 < p.rows; r0 += gl_NumWorkGroups.x * slots)
        row(r0 + slot, r0 + slot < p.rows);
#else
    team = gl_WorkGroupSize.x;
    member = gl_LocalInvocationID.x;
    for (uint r = gl_WorkGroupID.x; r < p.rows; r += gl_NumWorkGroups.x) row(r, true);
#endif
}
