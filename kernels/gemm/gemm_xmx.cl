/* gemm_xmx (OpenCL C 1.2 + cl_intel_subgroup_matrix_multiply_accumulate): the gemm of gemm.cl for f16 and bf16 A and
 * B (C in their type or f32) on Intel's matrix unit (XMX): same arguments, same BLAS rules, same kernel names
 * (hcl_gemm_<nn|nt|tn|tt>_<f16|f16_f32|bf16|bf16_f32>). The products are exact in float32 and summed in float32 by the
 * unit; C is rounded once, as in gemm.cl.
 *
 * The unit: intel_sub_group_<f16|bf16>_<same>_matrix_mad_k16(a, b, acc) multiplies an 8 x 16 block of A by a
 * 16 x SG block of B and adds an 8 x SG block of float accumulators, SG the sub-group size: 8 on devices whose
 * smallest sub-group is 8 (DG2/Arc, Flex), 16 where it is 16 (Ponte Vecchio, Xe2); the program is built for one
 * (HCL_XMX_SG), and the plan picks the one the device's smallest sub-group size names. Where each element lives
 * (the extension's text, our reading of it):
 *   acc, result  component r of lane n: C(r, n)
 *   b (int8)     component i of lane n: B(2i, n) in the low 16 bits, B(2i + 1, n) in the high 16 bits
 *   a, SG 8      (int8) component r of lane l: A(r, 2l) low, A(r, 2l + 1) high
 *   a, SG 16     (short8) component r of lane l: A(r, l)
 * Both tiles are therefore staged as 32-bit pairs of consecutive k (low half: the even k), so every operand is read
 * from local memory as whole words, the same for f16 and bf16 (the unit reads the bits; nothing here converts).
 *
 * Tiling: a work-group is SG x 4 work-items, four sub-groups of SG lanes (lane: local id 0, sub-group: local id 1:
 * Intel forms sub-groups from consecutive work-items in dimension 0, and the kernel requires SG-wide sub-groups).
 * It computes a 64 x 4*SG tile of C; its sub-groups a 2 x 2 grid of 32 x 2*SG blocks, each 4 x 2 calls of the unit
 * per 16 k (8 float8 accumulators per lane). K goes in steps of 32: the work-group stages a 64 x 32 tile of op(A)
 * (row-major, k pairs) and a 32 x 4*SG tile of op(B) (k-pair-major) in local memory; the transposes are resolved
 * while loading, consecutive work-items reading consecutive addresses where the layout allows.
 * Edges: elements outside the matrices load as 0 (+0 in both types) and writes are bounds-checked: any m, n, k.
 * BLAS rules: beta == 0 writes alpha * AB without reading C; the host passes k = 0 and alpha = 0 when k or alpha is
 * 0, so A and B are not read and C = beta * C.
 *
 * Built only for devices whose extension string has cl_intel_subgroup_matrix_multiply_accumulate (the OpenCL
 * driver then reports matrix_unit XMX). Two defines serve the tests, never libhcl:
 *   HCL_XMX_DECLARE  declares the built-ins as the extension's text writes them, for compilers that do not
 *                    (clang 14 for the SPIR-V compile test, kernels-gemm-xmx-spirv);
 *   HCL_XMX_EMULATE  defines them in plain OpenCL C 1.2 from the extension's text, with local memory standing in for
 *                    the sub-group exchange, so PoCL (no sub-groups, no XMX) runs this very kernel
 *                    (kernels-gemm-xmx-emulated). That checks the data layout and the logic against our reading of
 *                    the extension, not against Intel hardware. */
#include "hcl_cl_types.h"

#ifndef HCL_XMX_SG
#define HCL_XMX_SG 8
#endif
#define HCL_XMX_NSG 4                            /* sub-groups per work-group: 2 x 2 */
#define HCL_XMX_RM 4                             /* 8-row blocks per sub-group */
#define HCL_XMX_RN 2                             /* SG-column blocks per sub-group */
#define HCL_XMX_TM (2 * 8 * HCL_XMX_RM)          /* rows of C per work-group: 64 */
#define HCL_XMX_TN (2 * HCL_XMX_SG * HCL_XMX_RN) /* columns of C per work-group: 32 or 64 */
#define HCL_XMX_TK 32                            /* k per staged step: two calls of the unit */
#define HCL_XMX_KP (HCL_XMX_TK / 2)              /* k pairs per step */
#define HCL_XMX_THREADS (HCL_XMX_SG * HCL_XMX_NSG)
#define HCL_XMX_LDA (HCL_XMX_KP + 1) /* words per row of the A tile (an odd count spreads transposing stores) */
#define HCL_XMX_LDB (HCL_XMX_TN + 1) /* words per k pair of the B tile */
#define HCL_XMX_LOADS_A (HCL_XMX_TM * HCL_XMX_KP / HCL_XMX_THREADS)
#define HCL_XMX_LOADS_B (HCL_XMX_KP * HCL_XMX_TN / HCL_XMX_THREADS)

#if HCL_XMX_SG == 8
typedef int8 hcl_xmx_a; /* the a operand: SG 8: two k per lane and row */
#elif HCL_XMX_SG == 16
typedef short8 hcl_xmx_a; /* SG 16: one k per lane and row */
#else
#error "HCL_XMX_SG must be 8 or 16"
#endif

#if defined(HCL_XMX_DECLARE) && !defined(HCL_XMX_EMULATE)
/* cl_intel_subgroup_matrix_multiply_accumulate, "New OpenCL C Functions": the float8 forms this kernel calls */
float8 __attribute__((overloadable)) intel_sub_group_bf16_bf16_matrix_mad_k16(int8 a, int8 b, float8 acc);
float8 __attribute__((overloadable)) intel_sub_group_f16_f16_matrix_mad_k16(int8 a, int8 b, float8 acc);
float8 __attribute__((overloadable)) intel_sub_group_bf16_bf16_matrix_mad_k16(short8 a, int8 b, float8 acc);
float8 __attribute__((overloadable)) intel_sub_group_f16_f16_matrix_mad_k16(short8 a, int8 b, float8 acc);
#endif

#ifdef HCL_XMX_EMULATE
/* One 16-bit element of type abt, widened (f16 through vload_half: no cl_khr_fp16 needed). */
static float hcl_xmx_widen(const int abt, const uint bits) {
    if (abt == HCL_CL_BF16) return as_float(bits << 16);
    const ushort h = (ushort)bits;
    return vload_half(0, (const __private half *)&h);
}

/* The built-in as the extension defines it, for this work-item's sub-group (local id 1) and lane (local id 0):
 * result(r, n) = acc(r, n) + sum over k < 16 of A(r, k) * B(k, n), n this lane. A(r, k) is held by another lane
 * (lane k / 2, half k % 2 at SG 8; lane k at SG 16); the extension's sample reads it with sub_group_broadcast, here
 * every lane publishes its a in xs (8 words per lane) between two barriers. All work-items of the work-group call it
 * together (the kernel's calls are in uniform control flow), as the extension requires of a sub-group. */
static float8 hcl_xmx_emulated_mad(const int abt, const hcl_xmx_a a, const int8 b, const float8 acc, __local int *xs) {
    const int lane = (int)get_local_id(0);
    __local int *mine = xs + (int)get_local_id(1) * HCL_XMX_SG * 8;
#if HCL_XMX_SG == 8
    const int8 words = a;
#else
    const int8 words = convert_int8(as_ushort8(a));
#endif
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous call's readers are done with xs */
    vstore8(words, lane, mine);
    barrier(CLK_LOCAL_MEM_FENCE);
    float r[8];
    int bw[8];
    vstore8(acc, 0, r);
    vstore8(b, 0, bw);
    for (int row = 0; row < 8; row++)
        for (int k = 0; k < 16; k++) {
            const uint ak = HCL_XMX_SG == 8 ? ((uint)mine[(k / 2) * 8 + row] >> (16 * (k % 2))) & 0xffffu
                                            : (uint)mine[k * 8 + row] & 0xffffu;
            const uint bk = ((uint)bw[k / 2] >> (16 * (k % 2))) & 0xffffu;
            r[row] = fma(hcl_xmx_widen(abt, ak), hcl_xmx_widen(abt, bk), r[row]);
        }
    return vload8(0, r);
}
#define HCL_XMX_MAD(ABT, A, B, ACC) hcl_xmx_emulated_mad(ABT, A, B, ACC, xs)
#else
#define HCL_XMX_MAD(ABT, A, B, ACC)                                                                                    \
    ((ABT) == HCL_CL_BF16 ? intel_sub_group_bf16_bf16_matrix_mad_k16(A, B, ACC)                                        \
                          : intel_sub_group_f16_f16_matrix_mad_k16(A, B, ACC))
#endif

/* The 16 bits of element i of a 16-bit matrix, 0 outside it. */
static uint hcl_xmx_bits(__global const void *p, const size_t i, const int inside) {
    return inside ? (uint)((__global const ushort *)p)[i] : 0u;
}

/* Stage the step at k0: op(A) rows row0.., op(B) columns col0.., as k pairs (low half: the even k). */
static void hcl_xmx_stage(const int ta, const int tb, const int t, const size_t k0, const size_t row0,
                          const size_t col0, const size_t m, const size_t n, const size_t k, __global const void *a,
                          const size_t lda, __global const void *b, const size_t ldb, __local uint *as,
                          __local uint *bs) {
    for (int l = 0; l < HCL_XMX_LOADS_A; l++) {
        const int e = t + HCL_XMX_THREADS * l;
        /* A as m x k: consecutive work-items along k; as k x m: along m */
        const int r = ta ? e % HCL_XMX_TM : e / HCL_XMX_KP, kp = ta ? e / HCL_XMX_TM : e % HCL_XMX_KP;
        const size_t gr = row0 + r, gk = k0 + 2 * kp;
        const int in0 = gr < m && gk < k, in1 = gr < m && gk + 1 < k;
        const uint lo = hcl_xmx_bits(a, ta ? gk * lda + gr : gr * lda + gk, in0);
        const uint hi = hcl_xmx_bits(a, ta ? (gk + 1) * lda + gr : gr * lda + gk + 1, in1);
        as[r * HCL_XMX_LDA + kp] = lo | (hi << 16);
    }
    for (int l = 0; l < HCL_XMX_LOADS_B; l++) {
        const int e = t + HCL_XMX_THREADS * l;
        /* B as k x n: consecutive work-items along n; as n x k: along k */
        const int c = tb ? e / HCL_XMX_KP : e % HCL_XMX_TN, kp = tb ? e % HCL_XMX_KP : e / HCL_XMX_TN;
        const size_t gc = col0 + c, gk = k0 + 2 * kp;
        const int in0 = gc < n && gk < k, in1 = gc < n && gk + 1 < k;
        const uint lo = hcl_xmx_bits(b, tb ? gc * ldb + gk : gk * ldb + gc, in0);
        const uint hi = hcl_xmx_bits(b, tb ? gc * ldb + gk + 1 : (gk + 1) * ldb + gc, in1);
        bs[kp * HCL_XMX_LDB + c] = lo | (hi << 16);
    }
}

static void hcl_xmx_tile(const int ta, const int tb, const size_t m, const size_t n, const size_t k, const float alpha,
                         __global const void *a, const size_t lda, __global const void *b, const size_t ldb,
                         const float beta, __global void *c, const size_t ldc, const int abt, const int ct,
                         __local uint *as, __local uint *bs, __local int *xs) {
    (void)xs; /* the emulation's exchange (HCL_XMX_EMULATE) */
    const int lane = (int)get_local_id(0), sg = (int)get_local_id(1);
    const int t = sg * HCL_XMX_SG + lane;
    const int sr = (sg / 2) * 8 * HCL_XMX_RM, sc = (sg % 2) * HCL_XMX_SG * HCL_XMX_RN; /* the sub-group's block */
    const size_t col0 = get_group_id(0) * HCL_XMX_TN, row0 = get_group_id(1) * HCL_XMX_TM;

    float8 acc[HCL_XMX_RM][HCL_XMX_RN];
    for (int i = 0; i < HCL_XMX_RM; i++)
        for (int j = 0; j < HCL_XMX_RN; j++) acc[i][j] = (float8)(0.0f);

    for (size_t k0 = 0; k0 < k; k0 += HCL_XMX_TK) {
        hcl_xmx_stage(ta, tb, t, k0, row0, col0, m, n, k, a, lda, b, ldb, as, bs);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int kk = 0; kk < HCL_XMX_TK / 16; kk++) {
            int8 bv[HCL_XMX_RN];
            for (int j = 0; j < HCL_XMX_RN; j++) {
                __local const uint *p = bs + kk * 8 * HCL_XMX_LDB + sc + j * HCL_XMX_SG + lane;
                bv[j] =
                    as_int8((uint8)(p[0], p[HCL_XMX_LDB], p[2 * HCL_XMX_LDB], p[3 * HCL_XMX_LDB], p[4 * HCL_XMX_LDB],
                                    p[5 * HCL_XMX_LDB], p[6 * HCL_XMX_LDB], p[7 * HCL_XMX_LDB]));
            }
            for (int i = 0; i < HCL_XMX_RM; i++) {
#if HCL_XMX_SG == 8
                __local const uint *p = as + (sr + 8 * i) * HCL_XMX_LDA + kk * 8 + lane;
                const hcl_xmx_a av =
                    as_int8((uint8)(p[0], p[HCL_XMX_LDA], p[2 * HCL_XMX_LDA], p[3 * HCL_XMX_LDA], p[4 * HCL_XMX_LDA],
                                    p[5 * HCL_XMX_LDA], p[6 * HCL_XMX_LDA], p[7 * HCL_XMX_LDA]));
#else
                __local const ushort *p = (__local const ushort *)as + (sr + 8 * i) * 2 * HCL_XMX_LDA + kk * 16 + lane;
                const hcl_xmx_a av = as_short8((ushort8)(p[0], p[2 * HCL_XMX_LDA], p[4 * HCL_XMX_LDA],
                                                         p[6 * HCL_XMX_LDA], p[8 * HCL_XMX_LDA], p[10 * HCL_XMX_LDA],
                                                         p[12 * HCL_XMX_LDA], p[14 * HCL_XMX_LDA]));
#endif
                for (int j = 0; j < HCL_XMX_RN; j++) acc[i][j] = HCL_XMX_MAD(abt, av, bv[j], acc[i][j]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < HCL_XMX_RM; i++)
        for (int j = 0; j < HCL_XMX_RN; j++) {
            float v8[8];
            vstore8(acc[i][j], 0, v8);
            const size_t gc = col0 + sc + j * HCL_XMX_SG + lane;
            for (int r = 0; r < 8; r++) {
                const size_t gr = row0 + sr + 8 * i + r;
                if (gr >= m || gc >= n) continue;
                hcl_store_scaled(c, gr * ldc + gc, v8[r], alpha, beta, ct);
            }
        }
}

#ifdef HCL_XMX_EMULATE
#define HCL_XMX_ATTRIBUTES __attribute__((reqd_work_group_size(HCL_XMX_SG, HCL_XMX_NSG, 1)))
#define HCL_XMX_SCRATCH __local int xs[HCL_XMX_THREADS * 8];
#else
#define HCL_XMX_ATTRIBUTES                                                                                             \
    __attribute__((reqd_work_group_size(HCL_XMX_SG, HCL_XMX_NSG, 1)))                                                  \
    __attribute__((intel_reqd_sub_group_size(HCL_XMX_SG)))
#define HCL_XMX_SCRATCH __local int *xs = 0;
#endif

#define HCL_XMX_KERNEL(NAME, TA, TB, ABT, CT)                                                                          \
    __kernel HCL_XMX_ATTRIBUTES void NAME(ulong m, ulong n, ulong k, float alpha, __global const void *a, ulong lda,   \
                                          __global const void *b, ulong ldb, float beta, __global void *c,             \
                                          ulong ldc) {                                                                 \
        __local uint as[HCL_XMX_TM * HCL_XMX_LDA];                                                                     \
        __local uint bs[HCL_XMX_KP * HCL_XMX_LDB];                                                                     \
        HCL_XMX_SCRATCH                                                                                                \
        hcl_xmx_tile(TA, TB, (size_t)m, (size_t)n, (size_t)k, alpha, a, (size_t)lda, b, (size_t)ldb, beta, c,          \
                     (size_t)ldc, ABT, CT, as, bs, xs);                                                                \
    }
/* The four transposes of one type combination: hcl_gemm_<nn|nt|tn|tt>_<suffix>, as in gemm.cl */
#define HCL_XMX_KERNELS(SUFFIX, ABT, CT)                                                                               \
    HCL_XMX_KERNEL(hcl_gemm_nn_##SUFFIX, 0, 0, ABT, CT)                                                                \
    HCL_XMX_KERNEL(hcl_gemm_nt_##SUFFIX, 0, 1, ABT, CT)                                                                \
    HCL_XMX_KERNEL(hcl_gemm_tn_##SUFFIX, 1, 0, ABT, CT)                                                                \
    HCL_XMX_KERNEL(hcl_gemm_tt_##SUFFIX, 1, 1, ABT, CT)

HCL_XMX_KERNELS(f16, HCL_CL_F16, HCL_CL_F16)
HCL_XMX_KERNELS(f16_f32, HCL_CL_F16, HCL_CL_F32)
HCL_XMX_KERNELS(bf16, HCL_CL_BF16, HCL_CL_BF16)
HCL_XMX_KERNELS(bf16_f32, HCL_CL_BF16, HCL_CL_F32)
