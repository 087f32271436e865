// gemm on the matrix units through cooperative matrices (Vulkan GLSL, GL_KHR_cooperative_matrix; kernels/plan_vk.c
// launches it only on devices whose driver enabled VK_KHR_cooperative_matrix with 16 x 16 x 16 t x t + f32 on
// sub-groups of 32, and VK_KHR_shader_bfloat16 for bf16, so no other device ever builds this module).
// hcl_gemm_coop_<ab>_<t> (t: f16, bf16; ab: nn, tn, nt, tt, whether op(A) and op(B) are transposed, -DHCL_TA and
// -DHCL_TB): A, B and C of type t; hcl_gemm_coop_<ab>_<t>_f32 (-DHCL_C_F32): C f32; hcl_gemm_coop64_<ab>_<t>[_f32]
// (-DHCL_COOP64): the same over 64 x 64 tiles. The arguments, flags and BLAS meaning of gemm.comp's kernels (C = alpha
// * op(A) * op(B) + beta * C; beta == 0 does not read C; the host passes k = 0 and alpha = 0 when k or alpha is 0; the
// flags' transposes must match the kernel's). Debian 12's glslang (12) cannot compile it: the build compiles it through
// a newer one (drivers/vulkan/glslang_compile.c).
//
// A 128-work-item group (4 sub-groups of 32) per 128 x 128 tile of C; sub-group w computes a 64 x 64 block of it as
// 4 x 4 fragments of 16 x 16, accumulated in f32 (64 x 64 tiles: 256 work-items, 32 x 16 blocks of 2 x 1 fragments). A
// and B go through shared memory 32 k deep as 16-byte words of 8 16-bit values, in the orientation
// they are stored (rows of A along k, or along m when transposed; rows of B along n, or along k when transposed), each
// row one word longer than it holds (so the fragments' loads of 8 rows fall in other banks), zero-padded past m, n and
// k, so ragged edges need no other kernel; the fragments are loaded row- or column-major to match. Two buffers of each:
// the next step's words are read from global memory into registers (one 16-byte read a word where the leading
// dimension is a multiple of 8 and the word is inside; steps wholly inside A and B test nothing) while this step
// multiplies, then stored into the other buffer,
// so a step needs one barrier. A fragment of C inside m x n leaves straight from the accumulators (scaled by alpha,
// plus beta * C, converted to C's type by the driver) where C's rows are whole 16-byte words apart and C is not bf16
// (DIRECT_C); the others go through a 16 x 16 float patch of shared memory per sub-group (the buffers' words, free once
// the k loop ends), element by element (bf16 rounded to nearest even, as STORE does). glslang puts any module with
// cooperative matrices under the Vulkan memory model: the driver enables vulkanMemoryModel with the extension.
//
// Measured on an H200 (f16 in, C f32, TFLOP/s at 4096^3 / 8192^3; a harness timing SPIR-V variants of this file, the
// driver's machine code read from its pipeline cache). With the transposes read from the flags at run time, NVIDIA's
// driver loaded every fragment from shared memory as 8 16-bit loads a work-item (no ldmatrix), and every form of the
// kernel tried (tiles, depths, sub-group blocks, prefetch distances, the shared words' type, work-group-scope matrices
// of VK_NV_cooperative_matrix2) ran at 58-120: 110.3 / 114.5 for 128 x 128 tiles of 64 x 32 blocks 16 k deep. Fixed at
// compile time, the fragments load with ldmatrix: that form 177.6 / 184.6; 32 k deep 152.0 / 157.7; two steps in
// registers 167.1 / 175.6; 128 x 256 tiles 16 deep 162.1 / 171.1; 64 x 64 blocks (4 sub-groups) 16 deep 158.5 / 166.1,
// 32 deep 202.6 / 214.3 (224 registers, two groups an SM), and with the steps wholly inside A and B reading their words
// without tests 261.6 / 276.2 (this kernel; 2048^3 175.5 -> 216.5); 256 x 128 and 128 x 256 tiles of 64 x 64 blocks (8
// sub-groups, 178-183 registers, one group an SM) 160-166 / 172-176. 64 x 64 tiles (TFLOP/s at 1024^3, 2048^3, 127 x
// 4096 x 4096, 1021 x 1031 x 1033, 512 x 512 x 4096), 32 x 16 blocks 16 deep: 64.1, 103.5, 27.9, 24.2, 22.6; 32 deep
// (this kernel): 82.7, 126.9, 46.5, 35.3, 37.4; 32 x 32 blocks (4 sub-groups) 32 deep: 76.0, 146.1, 42.8, 26.4, 32.6.
// What bounds it (session 32): register-only mma.sync on that GPU 645; this kernel without the next step's global
// reads 339 / 394, also without its stores into shared memory 460 / 505, so the staging through registers and shared
// memory costs about 40 % (LDG, STS and LDSM share the SM's L1 data path). Stores without the two-way bank conflicts
// of 4-word rows (eight work-items on eight rows of one column) changed nothing without the global reads (343) and,
// since they made a sub-group read B as 8 rows x 64 bytes instead of 2 x 256, ran at 149-157 with them: not kept.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "hcl_vk_types.glsl"
// ET: the fragments' element type; BITS16(x): the 16 bits of an element read as T (hcl_vk_types.glsl's buffer type)
#if defined(HCL_BF16)
#extension GL_EXT_bfloat16 : require
#define ET bfloat16_t
#define BITS16(x) uint(x)
#else
#define ET float16_t
#define BITS16(x) uint(float16BitsToUint16(x))
#endif
#define FRAG_A coopmat<ET, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FRAG_B coopmat<ET, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define ROWS gl_CooperativeMatrixLayoutRowMajor
#define COLS gl_CooperativeMatrixLayoutColumnMajor
layout(std430, set = 0, binding = 0) readonly buffer A { T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { T b[]; };
layout(std430, set = 0, binding = 0) readonly buffer A8 { uvec4 a8[]; };
layout(std430, set = 0, binding = 1) readonly buffer B8 { uvec4 b8[]; };
#ifdef HCL_C_F32
#define CT float
#define CBITS 32
#else
#define CT ET
#define CBITS 16
#endif
#define CMAT coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
// Whether C's fragments may leave straight from the accumulators: not for bf16 C, since NVIDIA's driver converts a
// float matrix to bf16 toward zero (conformance: errors of a whole unit in the last place, types::gemm_bf16); the patch
// rounds to nearest even (STORE)
#if defined(HCL_BF16) && !defined(HCL_C_F32)
#define DIRECT_C false
layout(std430, set = 0, binding = 2) buffer C16 { uint16_t c16[]; }; // bf16 C's element stores (rounded by STORE)
#else
#define DIRECT_C true
#endif
layout(std430, set = 0, binding = 2) buffer C { CT c[]; };
layout(push_constant) uniform P {
    uint m, n, k, lda, ldb, ldc, flags;
    float alpha, beta;
} p;

// the tile of C (BM x BN) and a sub-group's block of it (WM x WN): hcl_gemm_coop_<t> 128 x 128 and 64 x 32;
// hcl_gemm_coop64_<t> (-DHCL_COOP64) 64 x 64 and 32 x 16, for C of few tiles
#ifdef HCL_COOP64
#define BM 64
#define BN 64
#define WM 32
#define WN 16
#define BK 32
#else
#define BM 128
#define BN 128
#define WM 64
#define WN 64
#define BK 32
#endif
// op(A) = A^T (HCL_TA), op(B) = B^T (HCL_TB): fixed when the kernel is compiled, so that the driver knows each
// fragment's layout and stride (with the layout chosen at run time NVIDIA's driver loaded fragments from shared
// memory 16 bits at a time instead of with ldmatrix)
#ifdef HCL_TA
#define TA true
#else
#define TA false
#endif
#ifdef HCL_TB
#define TB true
#else
#define TB false
#endif
#define SGS ((BM / WM) * (BN / WN)) // sub-groups a work-group (the plan's 128 or 256 work-items)
#define FM (WM / 16)                 // fragments of a sub-group's block, down
#define FN (WN / 16)                 // and across
// A's tile: BM rows of BK / 8 + 1 words (A(i, k0 + kk) in word i (BK / 8 + 1) + kk / 8), or transposed BK rows of
// BM / 8 + 1 (word kk (BM / 8 + 1) + i / 8); B's: BK rows of BN / 8 + 1 (B(k0 + kk, j) in word kk (BN / 8 + 1) + j / 8),
// or transposed BN rows of BK / 8 + 1 (word j (BK / 8 + 1) + kk / 8). Each buffer has room for the larger form.
#define MAXW(r0, c0, r1, c1) ((r0) * ((c0) / 8 + 1) > (r1) * ((c1) / 8 + 1) ? (r0) * ((c0) / 8 + 1) : (r1) * ((c1) / 8 + 1))
#define SA_WORDS MAXW(BM, BK, BK, BM)
#define SB_WORDS MAXW(BN, BK, BK, BN)
// A's two buffers, then B's two; the patches of C (64 words a sub-group) after the k loop, from word 0
shared uvec4 sm[2 * SA_WORDS + 2 * SB_WORDS];
#define SB0 (2 * SA_WORDS)
shared uint hcl_coop_patches_fit[64 * SGS <= 2 * (SA_WORDS + SB_WORDS) ? 1 : -1]; // a compile error where they do not
#if (BM * BK / 8) % (32 * SGS) != 0 || (BN * BK / 8) % (32 * SGS) != 0
#error "fetch's loads without tests assume that a step's words of A and of B are whole words a work-item"
#endif
#define WA ((BM * BK / 8 + 32 * SGS - 1) / (32 * SGS)) // A's words a work-item moves a step (at most)
#define WB ((BN * BK / 8 + 32 * SGS - 1) / (32 * SGS))

// Word (r, c .. c + 7) of a stored operand (row-major, leading dimension ld), zero where r >= rows or a column >=
// cols; one 16-byte read when ld is a multiple of 8 (c is) and all 8 are inside.
#define HCL_COOP_WORD(name, buf, buf8, ld)                                                                             \
    uvec4 name(uint r, uint c, uint rows, uint cols) {                                                                 \
        if (r >= rows) return uvec4(0u);                                                                               \
        const uint at = r * ld + c;                                                                                    \
        if ((ld & 7u) == 0u && c + 7u < cols) return buf8[at >> 3];                                                   \
        uint h[8];                                                                                                     \
        [[unroll]] for (uint q = 0u; q < 8u; q++) h[q] = c + q < cols ? BITS16(buf[at + q]) : 0u;                     \
        return uvec4(h[0] | h[1] << 16, h[2] | h[3] << 16, h[4] | h[5] << 16, h[6] | h[7] << 16);                     \
    }
HCL_COOP_WORD(word_a, a, a8, p.lda)
HCL_COOP_WORD(word_b, b, b8, p.ldb)

// The k0 step's words of A and B this work-item moves: from global memory (fetch) into registers, then into shared
// buffer `buf` (stage). Word e of a tile of `cols` columns (a multiple of 8) is row e / (cols / 8), column e % (cols /
// 8) * 8; the tile's words past its rows x cols / 8 are left alone.
void fetch(uint lid, uint row0, uint col0, uint k0, out uvec4 va[WA], out uvec4 vb[WB]) {
    const bool ta = TA, tb = TB;
    const uint ca = ta ? BM : BK, cb = tb ? BK : BN; // the stored tiles' columns
    // the whole step inside A and B, with leading dimensions of whole words: one 16-byte load a word and no tests
    // (on the H200 the tests cost 22 % of the 128 x 128 kernel's time)
    if (row0 + BM <= p.m && col0 + BN <= p.n && k0 + BK <= p.k && ((p.lda | p.ldb) & 7u) == 0u) {
        [[unroll]] for (uint q = 0u; q < WA; q++) {
            const uint e = lid + 32u * SGS * q, r = e / (ca / 8u), c = e % (ca / 8u) * 8u;
            va[q] = a8[(ta ? (k0 + r) * p.lda + row0 + c : (row0 + r) * p.lda + k0 + c) >> 3];
        }
        [[unroll]] for (uint q = 0u; q < WB; q++) {
            const uint e = lid + 32u * SGS * q, r = e / (cb / 8u), c = e % (cb / 8u) * 8u;
            vb[q] = b8[(tb ? (col0 + r) * p.ldb + k0 + c : (k0 + r) * p.ldb + col0 + c) >> 3];
        }
        return;
    }
    [[unroll]] for (uint q = 0u; q < WA; q++) {
        const uint e = lid + 32u * SGS * q, r = e / (ca / 8u), c = e % (ca / 8u) * 8u;
        va[q] = e >= BM * BK / 8u ? uvec4(0u) : ta ? word_a(k0 + r, row0 + c, p.k, p.m) : word_a(row0 + r, k0 + c, p.m, p.k);
    }
    [[unroll]] for (uint q = 0u; q < WB; q++) {
        const uint e = lid + 32u * SGS * q, r = e / (cb / 8u), c = e % (cb / 8u) * 8u;
        vb[q] = e >= BN * BK / 8u ? uvec4(0u) : tb ? word_b(col0 + r, k0 + c, p.n, p.k) : word_b(k0 + r, col0 + c, p.k, p.n);
    }
}
void stage(uint lid, uint buf, uvec4 va[WA], uvec4 vb[WB]) {
    const bool ta = TA, tb = TB;
    const uint ca = ta ? BM : BK, cb = tb ? BK : BN;
    [[unroll]] for (uint q = 0u; q < WA; q++) {
        const uint e = lid + 32u * SGS * q;
        if (e < BM * BK / 8u) sm[buf * SA_WORDS + e / (ca / 8u) * (ca / 8u + 1u) + e % (ca / 8u)] = va[q];
    }
    [[unroll]] for (uint q = 0u; q < WB; q++) {
        const uint e = lid + 32u * SGS * q;
        if (e < BN * BK / 8u) sm[SB0 + buf * SB_WORDS + e / (cb / 8u) * (cb / 8u + 1u) + e % (cb / 8u)] = vb[q];
    }
}

void main() {
    const uint lid = gl_LocalInvocationIndex, w = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    const uint wr = WM * (w / (BN / WN)), wc = WN * (w % (BN / WN)); // this sub-group's block of the tile
    const bool ta = TA, tb = TB;
    const uint sta = ta ? BM / 8u + 1u : BK / 8u + 1u, stb = tb ? BK / 8u + 1u : BN / 8u + 1u; // words a shared row
    ACC acc[FM][FN];
    [[unroll]] for (int r = 0; r < FM; r++)[[unroll]] for (int s = 0; s < FN; s++) acc[r][s] =
        ACC(0.0);
    const uint kbeg = p.flags >> 2;
    // The next step's words are read into registers while this step multiplies, then stored into the other shared
    // buffer (read by nobody since the last barrier).
    uvec4 va[WA], vb[WB];
    uint buf = 0u;
    if (kbeg < p.k) {
        fetch(lid, row0, col0, kbeg, va, vb);
        stage(lid, 0u, va, vb);
        barrier();
    }
    for (uint k0 = kbeg; k0 < p.k; k0 += BK) {
        const bool more = k0 + BK < p.k;
        if (more) fetch(lid, row0, col0, k0 + BK, va, vb); // in flight while this step multiplies
        [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
            FRAG_A fa[FM];
            FRAG_B fb[FN];
            [[unroll]] for (int r = 0; r < FM; r++) {
                const uint i = wr + 16u * uint(r);
                const uint at = ta ? kk * sta + i / 8u : i * sta + kk / 8u;
                if (ta)
                    coopMatLoad(fa[r], sm, buf * SA_WORDS + at, sta, COLS);
                else
                    coopMatLoad(fa[r], sm, buf * SA_WORDS + at, sta, ROWS);
            }
            [[unroll]] for (int s = 0; s < FN; s++) {
                const uint j = wc + 16u * uint(s);
                const uint at = tb ? j * stb + kk / 8u : kk * stb + j / 8u;
                if (tb)
                    coopMatLoad(fb[s], sm, SB0 + buf * SB_WORDS + at, stb, COLS);
                else
                    coopMatLoad(fb[s], sm, SB0 + buf * SB_WORDS + at, stb, ROWS);
            }
            [[unroll]] for (int r = 0; r < FM; r++)[[unroll]] for (int s = 0; s < FN; s++) acc[r][s] =
                coopMatMulAdd(fa[r], fb[s], acc[r][s]);
        }
        if (more) stage(lid, buf ^ 1u, va, vb);
        barrier();
        buf ^= 1u;
    }
    // C: fragments inside m x n straight from the accumulators; the others through this sub-group's patch (64 words
    // of sm: every sub-group has passed the loop's last barrier, so nobody reads the buffers any more)
    [[unroll]] for (int r = 0; r < FM; r++)[[unroll]] for (int s = 0; s < FN; s++) {
            const uint i0 = row0 + wr + 16u * uint(r), j0 = col0 + wc + 16u * uint(s);
            if (i0 >= p.m || j0 >= p.n) continue;
            ACC v = acc[r][s] * p.alpha;
            // inside C, whose rows are whole 16-byte words apart
            if (DIRECT_C && i0 + 16u <= p.m && j0 + 16u <= p.n && (p.ldc & (128u / CBITS - 1u)) == 0u) {
                if (p.beta != 0.0) {
                    CMAT old;
                    coopMatLoad(old, c, i0 * p.ldc + j0, p.ldc, ROWS);
                    v = v + ACC(old) * p.beta;
                }
                coopMatStore(CMAT(v), c, i0 * p.ldc + j0, p.ldc, ROWS);
                continue;
            }
            coopMatStore(v, sm, 64u * w, 4u, ROWS); // 16 rows of 4 words of 4 floats
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            for (uint e = lane; e < 256u; e += 32u) {
                const uint i = i0 + e / 16u, j = j0 + e % 16u;
                if (i >= p.m || j >= p.n) continue;
                float x = uintBitsToFloat(sm[64u * w + e / 4u][e % 4u]);
#if defined(HCL_C_F32)
                if (p.beta != 0.0) x = fma(p.beta, c[i * p.ldc + j], x);
                c[i * p.ldc + j] = x;
#elif defined(HCL_BF16)
                if (p.beta != 0.0) x = fma(p.beta, LOAD(c16[i * p.ldc + j]), x);
                c16[i * p.ldc + j] = uint16_t(hcl_bits16(x));
#else
                if (p.beta != 0.0) x = fma(p.beta, float(c[i * p.ldc + j]), x);
                c[i * p.ldc + j] = CT(x);
#endif
            }
            subgroupBarrier(); // the patch is read before the next fragment is stored into it
        }
}
