// gemm over slices of k (Vulkan GLSL, kernels/hcl_vk_types.glsl): hcl_gemm_splitk_<tile>_<type>[_f32], the arguments
// and meaning of gemm.comp (C = alpha * op(A) * op(B) + beta * C, flags: bit 0 A transposed, bit 1 B transposed, bits
// 2-31 the first k of this launch, k the end; beta == 0 writes alpha * AB without reading C), plus a fourth binding:
// the scratch, zeroed, left zeroed. For C with few elements and a long k (few rows, few columns, or a small m x n):
// work-group (x, y, z) takes the SK_TM x SK_TN tile (y, x) of C and slice z of the launch's k (gl_NumWorkGroups.z
// slices of equal length, a multiple of 16; the last ragged, some possibly empty). 16 x 16 work-items, each an
// SK_RM x SK_RN block of the tile in registers; the tiles of A and B go through shared memory 16 deep in k,
// double-buffered, read from global memory as 4 consecutive elements of the stored operand (gemm_load4.glsl's
// load_a4 and load_b4: one 16-byte read for f32 where the leading dimension allows) so that adjacent work-items read
// adjacent addresses whichever the storage order. Work-items whose rows (columns) of C are all past m (n) skip the arithmetic:
// whole sub-groups for m (n) of at most 16 on the tiles made for them. With one slice the group writes C; with more,
// it writes its tile of float partial sums to the scratch and takes a ticket (after a memory barrier); the last
// group of a tile adds the slices' partials in slice order (the same bits every run), writes C, and puts the
// partials and the ticket back to 0. Tiles (-DSK_TM, SK_TN, SK_RM, SK_RN): rows 16 x 64 (m <= 16), cols 64 x 16
// (n <= 16), tile 64 x 64 (small m x n, long k).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hcl_vk_types.glsl"
layout(std430, set = 0, binding = 0) readonly buffer A { T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { T b[]; };
#ifdef HCL_C_F32
layout(std430, set = 0, binding = 2) buffer C { float c[]; };
#define CLOAD(x) (x)
#define CSTORE(v) (v)
#else
layout(std430, set = 0, binding = 2) buffer C { T c[]; };
#define CLOAD(x) LOAD(x)
#define CSTORE(v) STORE(v)
#endif
// the scratch: a ticket a tile of C, then a tile of float partials a tile and slice (partial[(tile * slices + z) *
// SK_TM * SK_TN + row * SK_TN + column]); coherent, so that the last group reads what the others wrote
layout(std430, set = 0, binding = 3) coherent buffer Scratch { uint word[]; };
layout(push_constant) uniform P {
    uint m, n, k, lda, ldb, ldc, flags;
    float alpha, beta;
} p;

#define TM SK_TM
#define TN SK_TN
#define RM SK_RM
#define RN SK_RN
#define BK 16
// the tile's 16 x 16 work-items: RM x RN values of C each
#if TM / RM != 16 || TN / RN != 16
#error "SK_TM / SK_RM and SK_TN / SK_RN must be 16"
#endif

#include "gemm/gemm_load4.glsl"
// sa[buffer][kk][i / 4][i % 4]: A(row0 + i, k0 + kk); sb[buffer][kk][j / 4][j % 4]: B(k0 + kk, col0 + j); a vec4 of
// padding a row
shared vec4 sa[2][BK][TM / 4 + 1];
shared vec4 sb[2][BK][TN / 4 + 1];
shared bool last; // this work-group took its tile's last ticket


// vec4 reads of the stored operands a step (BK k) takes, and the work-items that do one each a round
#define QA (TM * BK / 4)
#define QB (TN * BK / 4)
#define NA ((QA + 255) / 256)
#define NB ((QB + 255) / 256)

// This work-item's share of the tiles of A and B for k in [k0, k0 + BK), none at or past kend: read e of A (of B) is
// 4 consecutive elements of the stored matrix: along k for A (B transposed), along the rows (columns) of C for A
// transposed (B), consecutive reads consecutive addresses.
void fetch(uint lid, uint row0, uint col0, uint k0, uint kend, out vec4 va[NA], out vec4 vb[NB]) {
    const bool ta = (p.flags & 1u) != 0u, tb = (p.flags & 2u) != 0u;
    for (int q = 0; q < NA; q++) {
        const uint e = lid + 256u * uint(q);
        va[q] = vec4(0.0);
        if (e < QA)
            va[q] = ta ? load_a4(k0 + e / (TM / 4), row0 + e % (TM / 4) * 4u, kend, p.m)
                       : load_a4(row0 + e / (BK / 4), k0 + e % (BK / 4) * 4u, p.m, kend);
    }
    for (int q = 0; q < NB; q++) {
        const uint e = lid + 256u * uint(q);
        vb[q] = vec4(0.0);
        if (e < QB)
            vb[q] = tb ? load_b4(col0 + e / (BK / 4), k0 + e % (BK / 4) * 4u, p.n, kend)
                       : load_b4(k0 + e / (TN / 4), col0 + e % (TN / 4) * 4u, kend, p.n);
    }
}

// Store what fetch read into shared buffer s: a vector along the tile's rows (columns) as one vec4, one along k as 4
// components of 4 rows of k.
void stage(uint lid, uint s, vec4 va[NA], vec4 vb[NB]) {
    const bool ta = (p.flags & 1u) != 0u, tb = (p.flags & 2u) != 0u;
    for (int q = 0; q < NA; q++) {
        const uint e = lid + 256u * uint(q);
        if (e >= QA) continue;
        if (ta)
            sa[s][e / (TM / 4)][e % (TM / 4)] = va[q];
        else {
            const uint i = e / (BK / 4), kq = e % (BK / 4) * 4u;
            for (uint r = 0u; r < 4u; r++) sa[s][kq + r][i >> 2][i & 3u] = va[q][r];
        }
    }
    for (int q = 0; q < NB; q++) {
        const uint e = lid + 256u * uint(q);
        if (e >= QB) continue;
        if (!tb)
            sb[s][e / (TN / 4)][e % (TN / 4)] = vb[q];
        else {
            const uint j = e / (BK / 4), kq = e % (BK / 4) * 4u;
            for (uint r = 0u; r < 4u; r++) sb[s][kq + r][j >> 2][j & 3u] = vb[q][r];
        }
    }
}

// alpha * v + beta * C(i, j) into C(i, j), C not read where beta is 0
void put(uint i, uint j, float v) {
    v *= p.alpha;
    if (p.beta != 0.0) v = fma(p.beta, CLOAD(c[i * p.ldc + j]), v);
    c[i * p.ldc + j] = CSTORE(v);
}

void main() {
    const uint lid = gl_LocalInvocationID.y * 16u + gl_LocalInvocationID.x;
    // the work-item's block: rows ti * RM .., columns tj * RN .. of the tile; the slower index runs along the shorter
    // side of the tile, so that the work-items past m (n) are whole sub-groups
#if TM <= TN
    const uint ti = lid / 16u, tj = lid % 16u;
#else
    const uint ti = lid % 16u, tj = lid / 16u;
#endif
    const uint row0 = gl_WorkGroupID.y * TM, col0 = gl_WorkGroupID.x * TN;
    const bool busy = row0 + ti * RM < p.m && col0 + tj * RN < p.n;
    // this group's slice of the launch's k: [kbeg, kend)
    const uint slices = gl_NumWorkGroups.z, z = gl_WorkGroupID.z, kfirst = p.flags >> 2;
    const uint klen = p.k > kfirst ? p.k - kfirst : 0u;
    // ceil(klen / slices) rounded up to a multiple of BK (the plan keeps k below 2^31 where there are slices)
    const uint part = klen / slices + (klen % slices != 0u ? 1u : 0u);
    const uint len = slices == 1u ? klen : (part + BK - 1u) / BK * BK;
    const uint kbeg = min(p.k, kfirst + min(klen, z * len)), kend = min(p.k, kbeg + len);
    float acc[RM][RN];
    for (int r = 0; r < RM; r++)
        for (int q = 0; q < RN; q++) acc[r][q] = 0.0;
    vec4 va[NA], vb[NB];
    uint s = 0u;
    if (kbeg < kend) {
        fetch(lid, row0, col0, kbeg, kend, va, vb);
        stage(lid, 0u, va, vb);
    }
    barrier();
    for (uint k0 = kbeg; k0 < kend; k0 += BK) {
        const bool more = k0 + BK < kend;
        if (more) fetch(lid, row0, col0, k0 + BK, kend, va, vb); // in flight while this step multiplies
        if (busy)
            for (uint kk = 0u; kk < BK; kk++) {
                float av[RM], bv[RN];
#if RM == 4
                const vec4 a4v = sa[s][kk][ti];
                for (int r = 0; r < 4; r++) av[r] = a4v[r];
#else
                for (int r = 0; r < RM; r++) av[r] = sa[s][kk][(ti * RM + r) >> 2][(ti * RM + r) & 3u];
#endif
#if RN == 4
                const vec4 b4v = sb[s][kk][tj];
                for (int q = 0; q < 4; q++) bv[q] = b4v[q];
#else
                for (int q = 0; q < RN; q++) bv[q] = sb[s][kk][(tj * RN + q) >> 2][(tj * RN + q) & 3u];
#endif
                for (int r = 0; r < RM; r++)
                    for (int q = 0; q < RN; q++) acc[r][q] = fma(av[r], bv[q], acc[r][q]);
            }
        // the other buffer was last read before the previous step's barrier
        if (more) stage(lid, s ^ 1u, va, vb);
        barrier();
        s ^= 1u;
    }
    if (slices == 1u) { // the whole of k: C directly
        if (busy)
            for (int r = 0; r < RM; r++) {
                const uint i = row0 + ti * RM + uint(r);
                if (i >= p.m) break;
                for (int q = 0; q < RN; q++) {
                    const uint j = col0 + tj * RN + uint(q);
                    if (j < p.n) put(i, j, acc[r][q]);
                }
            }
        return;
    }
    const uint tiles = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    const uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const uint base = tiles + (tile * slices + z) * (TM * TN); // this slice's partials (words)
    if (busy) // only elements inside C: the others stay 0
        for (int r = 0; r < RM; r++)
            for (int q = 0; q < RN; q++)
                if (row0 + ti * RM + uint(r) < p.m && col0 + tj * RN + uint(q) < p.n)
                    word[base + (ti * RM + uint(r)) * TN + tj * RN + uint(q)] = floatBitsToUint(acc[r][q]);
    memoryBarrierBuffer(); // the partials are visible before the ticket is taken
    barrier();
    if (lid == 0u) last = atomicAdd(word[tile], 1u) == slices - 1u;
    barrier();
    if (!last) return; // the whole work-group leaves or stays
    memoryBarrierBuffer();
    // the tile's elements a work-item each in turn (consecutive work-items consecutive columns), the slices' partials
    // added in slice order; elements past m or n were never written (they stay 0)
    const uint first = tiles + tile * slices * (TM * TN);
    for (uint e = lid; e < TM * TN; e += 256u) {
        const uint i = row0 + e / TN, j = col0 + e % TN;
        if (i >= p.m || j >= p.n) continue;
        float v = 0.0;
        for (uint zz = 0u; zz < slices; zz++) {
            const uint at = first + zz * (TM * TN) + e;
            v += uintBitsToFloat(word[at]);
            word[at] = 0u;
        }
        put(i, j, v);
    }
    if (lid == 0u) word[tile] = 0u;
}
