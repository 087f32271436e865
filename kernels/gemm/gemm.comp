// gemm (Vulkan GLSL, kernels/hcl_vk_types.glsl): row-major GEMM with BLAS meaning, C = alpha * op(A) * op(B) + beta * C,
// A and B of type T, C of type T or (-DHCL_C_F32) f32, accumulated in float32.
// The tiled kernels (below) and the dot kernel (HCL_GEMM_DOT) take the same arguments. flags: bit 0 A transposed,
// bit 1 B transposed, bits 2-31 the first k of this launch (k slices, one launch each, for lavapipe: see
// kernels/plan_vk.c); k is the end of the slice. beta == 0 writes alpha * AB without reading C (NaN in C does not
// propagate); the host passes k = 0 and alpha = 0 when k or alpha is 0.
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
layout(push_constant) uniform P {
    uint m, n, k, lda, ldb, ldc, flags;
    float alpha, beta;
} p;
#ifdef HCL_GEMM_DOT
// hcl_gemm_dot_<type>[_f32] (-DHCL_GEMM_DOT): one work-item per element of C (x: column, y: row), its dot product
// in one loop, no shared memory and no barrier: for C of at most 16 rows or columns (kernels/plan_vk.c), where most
// of a 64 x 64 tile would be idle.
void main() {
    const uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y;
    if (i >= p.m || j >= p.n) return;
    const bool ta = (p.flags & 1u) != 0u, tb = (p.flags & 2u) != 0u;
    float acc = 0.0;
    for (uint kk = p.flags >> 2; kk < p.k; kk++) {
        const float av = ta ? LOAD(a[kk * p.lda + i]) : LOAD(a[i * p.lda + kk]);
        const float bv = tb ? LOAD(b[j * p.ldb + kk]) : LOAD(b[kk * p.ldb + j]);
        acc = fma(av, bv, acc);
    }
    float v = p.alpha * acc;
    if (p.beta != 0.0) v = fma(p.beta, CLOAD(c[i * p.ldc + j]), v);
    c[i * p.ldc + j] = CSTORE(v);
}
#else
// hcl_gemm[_<bm>[x<bn>]]_<type>[_f32]: a 16 x 16 work-group (the plan launches no other size) per HCL_GEMM_BM x
// HCL_GEMM_BN tile of C (64 x 64 unless defined: hcl_gemm_*; 128 x 64: hcl_gemm_128x64_*; 128 x 128: hcl_gemm_128_*),
// each work-item BM / 16 x BN / 16 of it in registers: rows 64 g + 4 ty + r and columns 64 h + 4 tx + c, so that its
// values of A and B for one k are whole vec4s of shared memory (BM / 64 + BN / 64 vec4 reads per BM BN / 256 fmas).
// The tiles of A and B go through shared memory 8 deep in k, double-buffered: the next step's values are read from
// global memory into registers while this step's are multiplied, then stored into the other buffer (one barrier a
// step). Global reads are 4 consecutive elements of A's or B's rows (one 16-byte read for f32) wherever the leading
// dimension is a multiple of 4 and the 4 are inside the matrix, element by element elsewhere (edges, odd lda/ldb).
#ifndef HCL_GEMM_BM
#define HCL_GEMM_BM 64
#endif
#ifndef HCL_GEMM_BN
#define HCL_GEMM_BN 64
#endif
#define BM HCL_GEMM_BM
#define BN HCL_GEMM_BN
#define BK 8
#include "gemm/gemm_load4.glsl"
// sa[buffer][kk][i / 4][i % 4]: A(row0 + i, k0 + kk); sb[buffer][kk][j / 4][j % 4]: B(k0 + kk, col0 + j). One vec4 of
// padding a row: a warp's scalar stores of rows of A (4 k apart) fall in other banks.
shared vec4 sa[2][BK][BM / 4 + 1];
shared vec4 sb[2][BK][BN / 4 + 1];


// This work-item's share of the tiles of A and B at k0 (at most one vec4 of each: BM BK / 4 <= 256), read from
// global memory; va / vb hold 4 consecutive elements of the stored operand (4 k of a row of A, 4 rows of a column of
// A transposed, 4 columns of a row of B, 4 k of a row of B transposed).
void fetch(uint lid, uint row0, uint col0, uint k0, out vec4 va, out vec4 vb) {
    va = vb = vec4(0.0);
    if (lid < BM * BK / 4)
        va = (p.flags & 1u) != 0u ? load_a4(k0 + lid / (BM / 4), row0 + lid % (BM / 4) * 4u, p.k, p.m)
                                  : load_a4(row0 + lid / (BK / 4), k0 + lid % (BK / 4) * 4u, p.m, p.k);
    if (lid < BN * BK / 4)
        vb = (p.flags & 2u) != 0u ? load_b4(col0 + lid / (BK / 4), k0 + lid % (BK / 4) * 4u, p.n, p.k)
                                  : load_b4(k0 + lid / (BN / 4), col0 + lid % (BN / 4) * 4u, p.k, p.n);
}

// Store what fetch read into shared buffer `s`: a vector along the tile's rows (A transposed, B) as one vec4, one along
// k (A, B transposed) as 4 components of 4 rows of k.
void stage(uint lid, uint s, vec4 va, vec4 vb) {
    if (lid < BM * BK / 4) {
        if ((p.flags & 1u) != 0u)
            sa[s][lid / (BM / 4)][lid % (BM / 4)] = va;
        else {
            const uint i = lid / (BK / 4), kq = lid % (BK / 4) * 4u;
            for (uint q = 0u; q < 4u; q++) sa[s][kq + q][i >> 2][i & 3u] = va[q];
        }
    }
    if (lid < BN * BK / 4) {
        if ((p.flags & 2u) == 0u)
            sb[s][lid / (BN / 4)][lid % (BN / 4)] = vb;
        else {
            const uint j = lid / (BK / 4), kq = lid % (BK / 4) * 4u;
            for (uint q = 0u; q < 4u; q++) sb[s][kq + q][j >> 2][j & 3u] = vb[q];
        }
    }
}

void main() {
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, lid = ty * 16u + tx;
    const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    vec4 acc[BM / 16][BN / 64]; // acc[4 g + r][h]: C(row0 + 64 g + 4 ty + r, col0 + 64 h + 4 tx + 0..3)
    for (int r = 0; r < BM / 16; r++)
        for (int h = 0; h < BN / 64; h++) acc[r][h] = vec4(0.0);
    const uint kbeg = p.flags >> 2;
    vec4 va, vb;
    uint s = 0u;
    if (kbeg < p.k) {
        fetch(lid, row0, col0, kbeg, va, vb);
        stage(lid, 0u, va, vb);
    }
    barrier();
    for (uint k0 = kbeg; k0 < p.k; k0 += BK) {
        const bool more = k0 + BK < p.k;
        if (more) fetch(lid, row0, col0, k0 + BK, va, vb); // in flight while this step multiplies
        for (uint kk = 0u; kk < BK; kk++) {
            vec4 av[BM / 64], bv[BN / 64];
            for (int g = 0; g < BM / 64; g++) av[g] = sa[s][kk][ty + 16u * uint(g)];
            for (int h = 0; h < BN / 64; h++) bv[h] = sb[s][kk][tx + 16u * uint(h)];
            for (int g = 0; g < BM / 64; g++)
                for (int r = 0; r < 4; r++)
                    for (int h = 0; h < BN / 64; h++) acc[4 * g + r][h] = fma(vec4(av[g][r]), bv[h], acc[4 * g + r][h]);
        }
        // the other buffer was last read before the previous step's barrier
        if (more) stage(lid, s ^ 1u, va, vb);
        barrier();
        s ^= 1u;
    }
    for (int g = 0; g < BM / 64; g++)
        for (int r = 0; r < 4; r++) {
            const uint i = row0 + 64u * uint(g) + 4u * ty + uint(r);
            if (i >= p.m) continue;
            for (int h = 0; h < BN / 64; h++)
                for (int q = 0; q < 4; q++) {
                    const uint j = col0 + 64u * uint(h) + 4u * tx + uint(q);
                    if (j >= p.n) continue;
                    float v = p.alpha * acc[4 * g + r][h][q];
                    if (p.beta != 0.0) v = fma(p.beta, CLOAD(c[i * p.ldc + j]), v);
                    c[i * p.ldc + j] = CSTORE(v);
                }
        }
}
#endif
