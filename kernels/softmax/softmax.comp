// softmax (Vulkan GLSL, kernels/hcl_vk_types.glsl): row-wise, numerically stable, out[r][j] = exp(in[r][j] - max_r)
// / sum_j exp(in[r][j] - max_r), computed in float32. A row is handled by a team of invocations:
//   hcl_softmax_<type>: a work-group a row, rows gl_WorkGroupID.x + k * groups; the team folds through subgroup
//     operations and shared memory (HCL_GROUP_FOLD_FN);
//   hcl_softmax_rows_<type> (-DSOFTMAX_ROWS): a run of p.lanes invocations of a subgroup a row (a power of two, at
//     most the subgroup size), so a work-group takes several rows at once; the team folds through subgroup shuffles;
//   hcl_softmax_parts_<type> (-DSOFTMAX_PARTS): rows too long for one work-group's registers, p.parts work-groups a row
//     that each hold their part and meet through the scratch (see "Parts" below).
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
#ifdef SOFTMAX_PARTS
// the launch's first row, the row length, the work-groups a row
layout(push_constant) uniform P { uint row0; uint cols; uint parts; } p;
#else
layout(push_constant) uniform P { uint rows; uint cols; uint lanes; uint keep; } p;
#endif

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

#ifndef SOFTMAX_PARTS
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
#else // SOFTMAX_PARTS
// Parts: rows of whole words (p.cols a multiple of HCL_VN) too long for one work-group's registers, p.parts work-groups
// a row, each holding its part (at most WORDS words a work-item; the plan sizes the groups and keeps the parts within
// the work-group size) in registers as it came, so that the row is read once. The groups meet through `ws`, scratch
// the host gave zeroed and that the kernel leaves zeroed:
//   ws[0]  a ticket: groups take (row, part) in the order they start, so that the parts of a row start together; the
//          group that takes the launch's last ticket puts it back to 0
//   ws[WS_ROWS + r * (2 + 3 * parts) + ...]  per row of the launch: its arrivals, its departures, then per part its
//          max, its sum of exp(x - max) (to_word: never 0) and its state (0 undecided, 1 kept, 2 given up)
// Each group publishes its part's (max, sum) and arrives. The last to arrive claims every other part (state 0 -> 1 by a
// compare-and-swap) and writes its own; a claimed part writes its own too, each from every part's (max, sum), folded
// alike, so every part gets the same bits of the row's max and sum. Vulkan does not promise that the groups of a
// launch run at the same time (lavapipe runs a few at a time on the CPU's threads): a group that is not claimed within
// HCL_SOFTMAX_SPIN polls of its state gives its part up (0 -> 2 by the same compare-and-swap, so that it and the last
// to arrive agree on which came first) and leaves, and the last to arrive writes the parts given up from their inputs
// (which no one has written, so in place stays right). So no group waits for a group that may not be running: the
// polls are bounded, and the only other waits are for (max, sum) words that a group which has arrived wrote before it
// arrived. The scratch is read and written by atomic operations only (each word's own order is all the waits assume),
// with buffer barriers before and after the arrival and the departure besides, as reduce.comp does. Each group departs
// once it is done with the row's words; the last to depart clears them. -inf and NaN: a part of only -inf has max -inf
// and sum 0 and adds 0 (its outputs exp(-inf - max) = 0) unless the whole row is -inf (max -inf: exp(-inf - -inf) is
// NaN, the row NaN); a NaN makes its part's sum NaN, and so the row's.
#extension GL_KHR_memory_scope_semantics : require
layout(std430, set = 0, binding = 2) coherent buffer Ws { uint ws[]; };
#define WS_ROWS 64 // words before the rows' (the ticket's, a cache line to itself)
// Polls of its state before a part gives up. lavapipe (Mesa 22.3) ends every loop of an invocation after 65535 trips
// over all of them (docs/backends.md): the polls stay well below that, so that the loops after them still run whole;
// on a GPU 32768 reads of the device's L2 outlast a part's load and the start of its row's other parts many times.
#ifndef HCL_SOFTMAX_SPIN
#define HCL_SOFTMAX_SPIN 32768
#endif
#define WS_LOAD(i) atomicLoad(ws[i], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
#define WS_STORE(i, v) atomicStore(ws[i], v, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)

shared uint s_ticket, s_role, s_clear;
shared uint s_gave[1024]; // the last to arrive: part q was given up (q < parts <= the work-group size)

// a float as a scratch word that is never 0: the complement of its bits, every NaN made the one quiet NaN
uint to_word(float v) { return isnan(v) ? ~0x7fc00000u : ~floatBitsToUint(v); }

// the float in scratch word i once it is written (by a group that has arrived, so it is written or on its way)
float word_at(uint i) {
    uint b;
    while ((b = WS_LOAD(i)) == 0u) {
    }
    return uintBitsToFloat(~b);
}

// The group is done with the row's words from rw: it departs, and the last of the row's `parts` groups to depart puts
// them back to 0. Every invocation of the group calls it (it has barriers).
void depart(uint rw, uint parts) {
    memoryBarrierBuffer(); // each invocation's reads of the row's words come before the departure
    barrier();
    if (member == 0) {
        s_clear = atomicAdd(ws[rw + 1u], 1u) == parts - 1u ? 1u : 0u;
        memoryBarrierBuffer(); // the clear comes after every group's departure
    }
    barrier();
    if (s_clear != 0u)
        for (uint i = member; i < 2u + 3u * parts; i += team) WS_STORE(rw + i, 0u);
}

void main() {
    team = gl_WorkGroupSize.x;
    member = gl_LocalInvocationID.x;
    const uint parts = p.parts, words = p.cols / HCL_VN;
    if (member == 0) {
        const uint t = atomicAdd(ws[0], 1u);
        if (t == gl_NumWorkGroups.x - 1u) WS_STORE(0, 0u); // every group has taken its ticket
        s_ticket = t;
    }
    barrier();
    const uint r = s_ticket / parts, part = s_ticket % parts;
    const uint per = (words + parts - 1u) / parts; // words a part
    const uint first = min(part * per, words), count = min(per, words - first);
    const uint row0 = (p.row0 + r) * words; // the row's first word
    float pad[HCL_VN];
    for (uint e = 0; e < HCL_VN; e++) pad[e] = float(NEG_INF);
    uvec4 v[WORDS];
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        const uint c = member + k * team;
        v[k] = c < count ? x4[row0 + first + c] : hcl_pack(pad);
    }
    float m = float(NEG_INF), s = 0.0;
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        if (k * team >= count) break;
        float f[HCL_VN];
        hcl_unpack(v[k], f);
        for (uint e = 0; e < HCL_VN; e++) m = max(m, f[e]); // a plain max, as row() takes it
    }
    m = team_max(m);
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        if (k * team >= count) break;
        float f[HCL_VN];
        hcl_unpack(v[k], f);
        // while the part's max is -inf its values are -inf (adding 0) or NaN (making the sum NaN)
        for (uint e = 0; e < HCL_VN; e++)
            s += m == float(NEG_INF) ? (f[e] == float(NEG_INF) ? 0.0 : f[e]) : ex(f[e], m);
    }
    s = team_sum(s);

    const uint rw = WS_ROWS + r * (2u + 3u * parts); // the row's words
    if (member == 0) {
        WS_STORE(rw + 2u + 3u * part, to_word(m));
        WS_STORE(rw + 3u + 3u * part, to_word(s));
        memoryBarrierBuffer(); // the (max, sum) before the arrival
        uint role = 2u;        // 2: the last to arrive, 1: claimed by it, 0: given up
        if (atomicAdd(ws[rw], 1u) != parts - 1u) {
            const uint state = rw + 4u + 3u * part;
            uint st = 0u;
            for (uint spins = 0u; st == 0u && spins < HCL_SOFTMAX_SPIN; spins++) st = WS_LOAD(state);
            if (st == 0u) st = atomicCompSwap(ws[state], 0u, 2u) == 0u ? 2u : 1u; // given up, unless claimed first
            role = st == 2u ? 0u : 1u;
        }
        memoryBarrierBuffer(); // every part's (max, sum) after the arrivals
        s_role = role;
    }
    barrier();
    const uint role = s_role;
    if (role == 0u) {
        depart(rw, parts);
        return;
    }
    if (role == 2u && member < parts) { // invocation q claims part q
        uint gave = 0u;
        if (member != part) gave = atomicCompSwap(ws[rw + 4u + 3u * member], 0u, 1u) == 2u ? 1u : 0u;
        s_gave[member] = gave;
    }
    // the row's max and sum from every part's: invocation q reads part q's
    float pm = float(NEG_INF), ps = 0.0;
    if (member < parts) pm = word_at(rw + 2u + 3u * member);
    const float mx = team_max(isnan(pm) ? float(NEG_INF) : pm);
    if (member < parts) {
        const float sq = word_at(rw + 3u + 3u * member);
        ps = pm == float(NEG_INF) ? (isnan(sq) ? sq : 0.0) : sq * exp(pm - mx);
    }
    const float sc = scale_of(team_sum(ps));
    depart(rw, parts);
    [[unroll]] for (uint k = 0; k < WORDS; k++) {
        const uint c = member + k * team;
        if (c >= count) break;
        float f[HCL_VN];
        hcl_unpack(v[k], f);
        for (uint e = 0; e < HCL_VN; e++) f[e] = out_of(f[e], mx, sc);
        y4[row0 + first + c] = hcl_pack(f);
    }
    if (role != 2u) return;
    for (uint q = 0u; q < parts; q++) { // rare: the parts given up, from their inputs
        if (s_gave[q] == 0u) continue;
        const uint f0 = min(q * per, words), n = min(per, words - f0);
        for (uint c = member; c < n; c += team) {
            float f[HCL_VN];
            hcl_unpack(x4[row0 + f0 + c], f);
            for (uint e = 0; e < HCL_VN; e++) f[e] = out_of(f[e], mx, sc);
            y4[row0 + f0 + c] = hcl_pack(f);
        }
    }
}
#endif
