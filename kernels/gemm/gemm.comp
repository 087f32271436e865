// gemm (Vulkan GLSL, kernels/hcl_vk_types.glsl): row-major GEMM with BLAS meaning, C = alpha * op(A) * op(B) + beta * C,
// A and B of type T, C of type T or (-DHCL_C_F32) f32, accumulated in float32.
// hcl_gemm_<type>[_f32]: a 16 x 16 work-group (the plan launches no other size) per 64 x 64 tile of C, each work-item 4 x 4 of it; the tiles of A and B
// go through shared memory 16 deep in k. flags: bit 0 A transposed, bit 1 B transposed, bits 2-31 the first k of this
// launch (k slices, one launch each, for lavapipe: see kernels/plan_vk.c); k is the end of the slice. beta == 0 writes alpha * AB
// without reading C (NaN in C does not propagate); the host passes k = 0 and alpha = 0 when k or alpha is 0.
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
#define TM 64
#define TK 16
shared float sa[TK][TM + 1]; // sa[kk][i]: A(row0 + i, k0 + kk)
shared float sb[TK][TM + 1]; // sb[kk][j]: B(k0 + kk, col0 + j)

float load_a(uint i, uint kk) {
    if (i >= p.m || kk >= p.k) return 0.0;
    return (p.flags & 1u) != 0u ? LOAD(a[kk * p.lda + i]) : LOAD(a[i * p.lda + kk]);
}
float load_b(uint kk, uint j) {
    if (j >= p.n || kk >= p.k) return 0.0;
    return (p.flags & 2u) != 0u ? LOAD(b[j * p.ldb + kk]) : LOAD(b[kk * p.ldb + j]);
}

void main() {
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, lid = ty * 16u + tx;
    const uint row0 = gl_WorkGroupID.y * TM, col0 = gl_WorkGroupID.x * TM;
    float acc[4][4];
    for (int r = 0; r < 4; r++)
        for (int q = 0; q < 4; q++) acc[r][q] = 0.0;
    for (uint k0 = p.flags >> 2; k0 < p.k; k0 += TK) {
        // 64 x 16 of A and 16 x 64 of B: 1024 values each, 4 per work-item
        for (uint e = lid; e < TM * TK; e += 256u) {
            const uint i = e / TK, kk = e % TK; // A: consecutive kk for row-major A
            sa[kk][i] = load_a(row0 + i, k0 + kk);
            const uint kb = e / TM, j = e % TM; // B: consecutive j for row-major B
            sb[kb][j] = load_b(k0 + kb, col0 + j);
        }
        barrier();
        for (uint kk = 0; kk < TK; kk++) {
            float av[4], bv[4];
            for (int r = 0; r < 4; r++) av[r] = sa[kk][ty + 16u * uint(r)];
            for (int q = 0; q < 4; q++) bv[q] = sb[kk][tx + 16u * uint(q)];
            for (int r = 0; r < 4; r++)
                for (int q = 0; q < 4; q++) acc[r][q] = fma(av[r], bv[q], acc[r][q]);
        }
        barrier();
    }
    for (int r = 0; r < 4; r++) {
        const uint i = row0 + ty + 16u * uint(r);
        if (i >= p.m) continue;
        for (int q = 0; q < 4; q++) {
            const uint j = col0 + tx + 16u * uint(q);
            if (j >= p.n) continue;
            float v = p.alpha * acc[r][q];
            if (p.beta != 0.0) v = fma(p.beta, CLOAD(c[i * p.ldc + j]), v);
            c[i * p.ldc + j] = CSTORE(v);
        }
    }
}
#endif
