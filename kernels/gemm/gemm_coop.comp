// gemm on NVIDIA's matrix units (Vulkan GLSL, GL_NV_cooperative_matrix; kernels/plan_vk.c launches it only on devices
// whose driver enabled VK_NV_cooperative_matrix with 16 x 16 x 16 f16 x f16 + f32 on sub-groups of 32, so no other
// device ever builds this module). hcl_gemm_coop_f16: A, B and C f16; hcl_gemm_coop_f16_f32 (-DHCL_C_F32): C f32. The
// arguments, flags and BLAS meaning of gemm.comp's kernels (C = alpha * op(A) * op(B) + beta * C; beta == 0 does not
// read C; the host passes k = 0 and alpha = 0 when k or alpha is 0). bf16 has no NV cooperative-matrix type: it stays
// on gemm.comp.
//
// A 16 x 16 work-group (8 sub-groups of 32) per 128 x 128 tile of C; sub-group w computes rows 64 (w / 4) .. + 64 and
// columns 32 (w % 4) .. + 32 of it as 4 x 2 fragments of 16 x 16, accumulated in f32. A and B go through shared memory
// 32 k deep, in the orientation they are stored (rows of A along k, or along m when transposed; rows of B along n, or
// along k when transposed), zero-padded past m, n and k, so ragged edges need no other kernel; the fragments are loaded
// row- or column-major to match. The next step's A and B are read from global memory into registers (4 consecutive f16
// a read, 8 bytes, where the leading dimension is a multiple of 4) while this step multiplies. C leaves each fragment
// through a 16 x 16 f32 patch of shared memory per sub-group, scaled, added to beta * C and rounded to C's type there.
// glslang puts any module with cooperative matrices under the Vulkan memory model: the driver enables
// vulkanMemoryModel with the extension.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "hcl_vk_types.glsl"
layout(std430, set = 0, binding = 0) readonly buffer A { T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { T b[]; };
layout(std430, set = 0, binding = 0) readonly buffer A4 { f16vec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4 { f16vec4 b4[]; };
#ifdef HCL_C_F32
layout(std430, set = 0, binding = 2) buffer C { float c[]; };
#define CLOAD(x) (x)
#define CSTORE(v) (v)
#else
layout(std430, set = 0, binding = 2) buffer C { T c[]; };
#define CLOAD(x) LOAD(x)
#define CSTORE(v) STORE(v)
#endif
layout(push_constant) uniform P {
    uint m, n, k, lda, ldb, ldc, flags;
    float alpha, beta;
} p;

#define BM 128
#define BN 128
#define BK 32
#define PAD 8 // f16 a shared row: rows stay 16-byte multiples (the fragments' loads) and fall in other banks
// A's tile: BM rows of BK + PAD (A(i, k0 + kk) at i (BK + PAD) + kk), or transposed BK rows of BM + PAD (at kk (BM + PAD)
// + i); B's: BK rows of BN + PAD (B(k0 + kk, j) at kk (BN + PAD) + j), or transposed BN rows of BK + PAD (at j (BK + PAD)
// + kk). Each buffer has room for the larger of its two forms.
#define SA_SIZE (BM * (BK + PAD) > BK * (BM + PAD) ? BM * (BK + PAD) : BK * (BM + PAD))
#define SB_SIZE (BN * (BK + PAD) > BK * (BN + PAD) ? BN * (BK + PAD) : BK * (BN + PAD))
shared float16_t sa[SA_SIZE];
shared float16_t sb[SB_SIZE];
shared float sc[8][16 * 16]; // a sub-group's fragment of C on its way out
#define CHUNKS (BM * BK / 4 / 256) // f16vec4s of A (and of B) per work-item per step

// Elements (r, c .. c + 3) of a stored operand (row-major, leading dimension ld), zero where r >= rows or a column >=
// cols; one 8-byte read when ld is a multiple of 4 (c is) and all 4 are inside.
#define HCL_COOP_LOAD4(name, buf, buf4, ld)                                                                            \
    f16vec4 name(uint r, uint c, uint rows, uint cols) {                                                               \
        f16vec4 v = f16vec4(0.0);                                                                                      \
        if (r >= rows) return v;                                                                                       \
        const uint at = r * ld + c;                                                                                    \
        if ((ld & 3u) == 0u && c + 3u < cols) return buf4[at >> 2];                                                   \
        for (uint q = 0u; q < 4u; q++)                                                                                 \
            if (c + q < cols) v[q] = buf[at + q];                                                                      \
        return v;                                                                                                      \
    }
HCL_COOP_LOAD4(load_a4, a, a4, p.lda)
HCL_COOP_LOAD4(load_b4, b, b4, p.ldb)

// Chunk e (0 .. BM BK / 4) of a tile stored `rows` x `cols` (cols contiguous, a multiple of 4): its row and column.
uvec2 chunk(uint e, uint cols) { return uvec2(e / (cols / 4u), e % (cols / 4u) * 4u); }

// This work-item's chunks of the tiles of A and B at k0, read from global memory.
void fetch(uint lid, uint row0, uint col0, uint k0, out f16vec4 va[CHUNKS], out f16vec4 vb[CHUNKS]) {
    const bool ta = (p.flags & 1u) != 0u, tb = (p.flags & 2u) != 0u;
    for (uint q = 0u; q < CHUNKS; q++) {
        const uint e = lid + 256u * q;
        uvec2 rc = chunk(e, ta ? BM : BK);
        va[q] = ta ? load_a4(k0 + rc.x, row0 + rc.y, p.k, p.m) : load_a4(row0 + rc.x, k0 + rc.y, p.m, p.k);
        rc = chunk(e, tb ? BK : BN);
        vb[q] = tb ? load_b4(col0 + rc.x, k0 + rc.y, p.n, p.k) : load_b4(k0 + rc.x, col0 + rc.y, p.k, p.n);
    }
}

// Store what fetch read into the shared tiles, in the operands' stored orientation.
void stage(uint lid, f16vec4 va[CHUNKS], f16vec4 vb[CHUNKS]) {
    const bool ta = (p.flags & 1u) != 0u, tb = (p.flags & 2u) != 0u;
    for (uint q = 0u; q < CHUNKS; q++) {
        const uint e = lid + 256u * q;
        uvec2 rc = chunk(e, ta ? BM : BK);
        uint at = rc.x * ((ta ? BM : BK) + PAD) + rc.y;
        for (uint t = 0u; t < 4u; t++) sa[at + t] = va[q][t];
        rc = chunk(e, tb ? BK : BN);
        at = rc.x * ((tb ? BK : BN) + PAD) + rc.y;
        for (uint t = 0u; t < 4u; t++) sb[at + t] = vb[q][t];
    }
}

void main() {
    const uint lid = gl_LocalInvocationIndex, w = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    const uint wr = 64u * (w / 4u), wc = 32u * (w % 4u); // this sub-group's block of the tile
    const bool ta = (p.flags & 1u) != 0u, tb = (p.flags & 2u) != 0u;
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[4][2];
    for (int r = 0; r < 4; r++)
        for (int s = 0; s < 2; s++) acc[r][s] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    const uint kbeg = p.flags >> 2;
    f16vec4 va[CHUNKS], vb[CHUNKS];
    if (kbeg < p.k) fetch(lid, row0, col0, kbeg, va, vb);
    for (uint k0 = kbeg; k0 < p.k; k0 += BK) {
        stage(lid, va, vb);
        barrier();
        if (k0 + BK < p.k) fetch(lid, row0, col0, k0 + BK, va, vb); // in flight while this step multiplies
        for (uint kk = 0u; kk < BK; kk += 16u) {
            fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fa[4], fb[2];
            for (int r = 0; r < 4; r++) {
                const uint i = wr + 16u * uint(r);
                if (ta)
                    coopMatLoadNV(fa[r], sa, kk * (BM + PAD) + i, BM + PAD, true);
                else
                    coopMatLoadNV(fa[r], sa, i * (BK + PAD) + kk, BK + PAD, false);
            }
            for (int s = 0; s < 2; s++) {
                const uint j = wc + 16u * uint(s);
                if (tb)
                    coopMatLoadNV(fb[s], sb, j * (BK + PAD) + kk, BK + PAD, true);
                else
                    coopMatLoadNV(fb[s], sb, kk * (BN + PAD) + j, BN + PAD, false);
            }
            for (int r = 0; r < 4; r++)
                for (int s = 0; s < 2; s++) acc[r][s] = coopMatMulAddNV(fa[r], fb[s], acc[r][s]);
        }
        barrier(); // every sub-group has read the tiles before the next stage overwrites them
    }
    for (int r = 0; r < 4; r++)
        for (int s = 0; s < 2; s++) {
            coopMatStoreNV(acc[r][s], sc[w], 0u, 16u, false);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            for (uint e = lane; e < 256u; e += 32u) {
                const uint i = row0 + wr + 16u * uint(r) + e / 16u, j = col0 + wc + 16u * uint(s) + e % 16u;
                if (i >= p.m || j >= p.n) continue;
                float v = p.alpha * sc[w][e];
                if (p.beta != 0.0) v = fma(p.beta, CLOAD(c[i * p.ldc + j]), v);
                c[i * p.ldc + j] = CSTORE(v);
            }
            subgroupBarrier(); // the patch is read before the next fragment is stored into it
        }
}
