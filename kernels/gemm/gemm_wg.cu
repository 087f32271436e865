/* gemm on Hopper tensor cores (sm_90a): C = alpha * op(A) * op(B) + beta * C with A and B in f16 or bf16 and C in
 * their type or f32, or A, B and C in f32 multiplied in TF32; accumulated in float32 by wgmma, the operands brought
 * to shared memory by the tensor memory accelerator (TMA).
 *
 * A block of three warpgroups computes a 128 x 256 tile of C (gemm_wg.h), or 128 x 64 (the wg64 and _n64 kernels).
 * Warpgroup 0 is the producer: one thread issues the TMA copies of each K step (128 bytes of each row: 64 16-bit
 * elements, 32 floats) into a ring of 4 stages (8 of the narrow tiles), each stage's "full" barrier counting the bytes
 * in. Warpgroups 1 and 2 multiply rows 0-63 and 64-127 of the tile: per stage four wgmma m64n256k16 (k8 for TF32)
 * reading both operands from shared memory, then they release the stage before last to the producer through its
 * "empty" barrier (one wgmma group stays in flight). The accumulators (128 floats a thread), scaled by alpha, go to
 * global memory through each warp's rows in shared memory (whole 16-byte runs a store) where beta is 0 and C's rows
 * are 16-byte aligned, else straight from registers, with beta; bounds-checked either way (the store of the fragments
 * as they lie, 16 bytes of each of 8 rows a warp's store, had cost about 4 us a tile: 1024 x 4096 x 4096 f16 at one
 * tile a block 0.88 of cuBLAS before, 1.00 after). Blocks are persistent: one per SM takes tile after tile, the
 * producer running ahead into the next tile while the consumers store the last. When the tiles are too few to fill
 * the SMs the plan cuts k into slices (kslice): a work item is then a tile and a slice, whose partial product goes to
 * the scratch for hcl_gemm_splitk_sum to add.
 *
 * Shared layout: the TMA writes with the 128-byte swizzle, rows of 128 bytes. A K-contiguous operand (A not
 * transposed, B transposed) is one box of K x rows (K-major for wgmma: a step of one wgmma in K is 32 bytes along
 * the row, 8-row groups 1024 bytes apart); an M- or N-contiguous one is boxes of (a row's 128 bytes) x (the stage's
 * K): 64 x 64 16-bit elements (M/N-major, "transposed" for wgmma: 64-element atoms 8 KiB apart, 8 K-rows 1024 bytes
 * apart, a step of 16 in K is 2048 bytes), or 32 x 32 floats. wgmma reads TF32 operands from shared memory only
 * K-major: an M-major A (TF32 "tt") goes to it from registers, each consumer thread loading its fragments from the
 * boxes (hcl_wg_frag); TF32 "nn" is "tt" on swapped operands (C^T = B^T A^T, C stored transposed). The tensor cores
 * drop the low 13 bits of each TF32 factor (no rounding).
 *
 * The tensor maps (plan_tc.c) give the TMA the matrix bounds: what lies outside reads as zeros, so any m, n, k >= 1
 * works; the plan takes these kernels only when the rows the TMA reads are 16-byte multiples (ld a multiple of 8
 * halves or 4 floats). BLAS rules: beta == 0 does not read C. Bodies exist only for sm_90a (wgmma and setmaxnreg are
 * not in sm_90 or later PTX); elsewhere a launch traps, and the plan never makes one. */

#include "gemm_wg.h"
#include "hcl_gpu_types.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(HCL_GPU_HIP_KERNEL)
#define HCL_WG_ENABLED 1
#endif

/* A tensor map (CUtensorMap): 128 bytes encoded by the driver, taken by value */
struct __align__(64) hcl_tmap {
    unsigned long long opaque[16];
};

#ifdef HCL_WG_ENABLED
__device__ __forceinline__ unsigned hcl_wg_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void hcl_wg_bar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
/* the producer's arrival, announcing `bytes` of TMA copies that complete the phase */
__device__ __forceinline__ void hcl_wg_bar_expect(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void hcl_wg_bar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/* wait until the phase of parity `parity` has completed */
__device__ __forceinline__ void hcl_wg_bar_wait(unsigned bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
}

/* TMA: the box at (c0 innermost, c1) of the tensor `map` into shared `dst`, completing on barrier `bar` */
__device__ __forceinline__ void hcl_wg_tma(unsigned dst, const hcl_tmap *map, int c0, int c1, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

/* A shared-memory matrix descriptor of wgmma with the 128-byte swizzle: start, leading and stride byte offsets */
__device__ __forceinline__ unsigned long long hcl_wg_desc(unsigned addr, unsigned lbo, unsigned sbo) {
    return (unsigned long long)((addr & 0x3ffffu) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32) | (1ull << 62);
}

/* The compiler must not move reads or writes of the accumulators (N of them) across the asynchronous wgmma. */
template <int N> __device__ __forceinline__ void hcl_wg_fence_acc(float *d) {
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}

#define HCL_WG_D8(i)                                                                                                   \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]),        \
        "+f"(d[i + 7])
#define HCL_WG_D32(i) HCL_WG_D8(i), HCL_WG_D8(i + 8), HCL_WG_D8(i + 16), HCL_WG_D8(i + 24)
#define HCL_WG_MMA(SHAPE_TYPES, TRANS)                                                                                 \
    asm volatile("wgmma.mma_async.sync.aligned." SHAPE_TYPES " {"                                                      \
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                              \
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                    \
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                    \
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                    \
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                    \
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                    \
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "        \
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "   \
                 "%128, %129, 1, 1, 1" TRANS ";"                                                                       \
                 : HCL_WG_D32(0), HCL_WG_D32(32), HCL_WG_D32(64), HCL_WG_D32(96)                                       \
                 : "l"(da), "l"(db), "n"(TA), "n"(TB))

/* The narrow tile's form (64 columns, 32 accumulators a thread) of HCL_WG_MMA, 16-bit types */
#define HCL_WG_MMA64(SHAPE_TYPES)                                                                                      \
    asm volatile("wgmma.mma_async.sync.aligned." SHAPE_TYPES " {"                                                      \
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                              \
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "                   \
                 "%32, %33, 1, 1, 1, %34, %35;"                                                                        \
                 : HCL_WG_D32(0)                                                                                       \
                 : "l"(da), "l"(db), "n"(TA), "n"(TB))

/* d += A (64 x K at da) * B (K x 256 at db), K 16 (f16, bf16) or 8 (TF32, float32 in shared memory); TA, TB:
 * wgmma's imm-trans-a/b, 1 when the operand is M- / N-major (16-bit types only: TF32 operands are K-major); mma64:
 * the same with B K x 64 (the narrow tile, 16-bit types) */
template <typename T> struct hcl_wg_op;
template <> struct hcl_wg_op<hcl_f16_t> {
    template <int TA, int TB>
    static __device__ __forceinline__ void mma(float *d, unsigned long long da, unsigned long long db) {
        HCL_WG_MMA("m64n256k16.f32.f16.f16", ", %130, %131");
    }
    template <int TA, int TB>
    static __device__ __forceinline__ void mma64(float *d, unsigned long long da, unsigned long long db) {
        HCL_WG_MMA64("m64n64k16.f32.f16.f16");
    }
};
template <> struct hcl_wg_op<hcl_bf16_t> {
    template <int TA, int TB>
    static __device__ __forceinline__ void mma(float *d, unsigned long long da, unsigned long long db) {
        HCL_WG_MMA("m64n256k16.f32.bf16.bf16", ", %130, %131");
    }
    template <int TA, int TB>
    static __device__ __forceinline__ void mma64(float *d, unsigned long long da, unsigned long long db) {
        HCL_WG_MMA64("m64n64k16.f32.bf16.bf16");
    }
};
template <> struct hcl_wg_op<float> {
    template <int TA, int TB>
    static __device__ __forceinline__ void mma(float *d, unsigned long long da, unsigned long long db) {
        HCL_WG_MMA("m64n256k8.f32.tf32.tf32", "");
    }
};

/* d += A (64 x 8, in registers: fa, hcl_wg_frag) * B (8 x 256 at db, K-major), TF32 */
__device__ __forceinline__ void hcl_wg_mma_rs_tf32(float *d, const float *fa, unsigned long long db) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "{%128, %129, %130, %131}, %132, 1, 1, 1;"
                 : HCL_WG_D32(0), HCL_WG_D32(32), HCL_WG_D32(64), HCL_WG_D32(96)
                 : "r"(__float_as_uint(fa[0])), "r"(__float_as_uint(fa[1])), "r"(__float_as_uint(fa[2])),
                   "r"(__float_as_uint(fa[3])), "l"(db));
}

/* d += A (64 x 8, in registers) * B (8 x 64 at db, K-major), TF32: the narrow tile's form of hcl_wg_mma_rs_tf32 */
__device__ __forceinline__ void hcl_wg_mma_rs_tf32_n64(float *d, const float *fa, unsigned long long db) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, 1, 1, 1;"
                 : HCL_WG_D32(0)
                 : "r"(__float_as_uint(fa[0])), "r"(__float_as_uint(fa[1])), "r"(__float_as_uint(fa[2])),
                   "r"(__float_as_uint(fa[3])), "l"(db));
}

/* The compiler must keep a fragment that an issued wgmma may still read. */
__device__ __forceinline__ void hcl_wg_fence_frag(float *fa) {
#pragma unroll
    for (int i = 0; i < 16; i++) asm volatile("" : "+f"(fa[i])::"memory");
}

/* The A fragments of one stage for a TF32 wgmma with A in registers, from an M-major tile in shared memory (boxes of
 * 32 rows x 32 k, 4 KiB each, as the TMA writes them with the 128-byte swizzle: element (r, k) of a box at byte
 * k * 128 + ((r / 4) ^ (k % 8)) * 16 + (r % 4) * 4). fa[4q + i] is fragment element a_i of the stage's K step q (8
 * wide): a0 (row g, k t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4), g = lane / 4 and t = lane % 4, rows 16 w
 * apart for warp w of the warpgroup; `a` is the warpgroup's first box (its 64 rows are two boxes). */
__device__ __forceinline__ void hcl_wg_frag(float *fa, unsigned a, int w, int lane) {
    const unsigned g = lane / 4, t = lane % 4, box = a + (w / 2) * 4096, r4 = (w % 2) * 4 + g / 4;
#pragma unroll
    for (int q = 0; q < 4; q++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const unsigned k = q * 8 + t + 4 * (i / 2), r = r4 + 2 * (i % 2);
            asm volatile("ld.shared.f32 %0, [%1];"
                         : "=f"(fa[4 * q + i])
                         : "r"(box + k * 128 + ((r ^ (k % 8)) << 4) + (g % 4) * 4)
                         : "memory");
        }
}

/* The first row and column of C of tile `tile` of BM x BN (hcl_tile_grouped: groups of HCL_WG_GROUP_M tile rows). */
template <int BN>
__device__ __forceinline__ void hcl_wg_tile(unsigned tile, unsigned tiles_m, unsigned tiles_n, int *m0, int *n0) {
    unsigned tm, tn;
    hcl_tile_grouped<unsigned>(tile, tiles_m, tiles_n, HCL_WG_GROUP_M, &tm, &tn);
    *m0 = (int)(tm * HCL_WG_BM);
    *n0 = (int)(tn * BN);
}

/* RA (TF32, TA): A is M-major in shared memory and goes to wgmma from registers (hcl_wg_frag), since TF32 takes only
 * K-major operands from shared memory. CT: C is stored transposed, D(i, j) at C[j * ldc + i] (the plan swapped the
 * operands: C^T = B^T A^T). BN: the tile's columns, HCL_WG_BN or HCL_WG_BN_NARROW (the plan's tensor map of a
 * K-major B then boxes 64 rows, an N-major one is one box of 64 x 64; the ring holds as many more stages as fit in
 * the same bytes). */
template <bool TA, bool TB, typename TAB, typename TC, bool RA = false, bool CT = false, int BN = HCL_WG_BN>
__device__ __forceinline__ void hcl_wg_gemm(unsigned long long m, unsigned long long n, unsigned long long k,
                                            float alpha, const hcl_tmap *ta, const hcl_tmap *tb, float beta, TC *C0,
                                            unsigned long long ldc, unsigned long long kslice) {
    typedef hcl_elem<TC> EC;
    /* an M- or N-major operand moves in boxes of (a row's 128 bytes) x BK: 64 x 64 16-bit elements, 32 x 32 floats */
    enum {
        BK = HCL_WG_ROW / sizeof(TAB),
        A_BYTES = HCL_WG_BM * HCL_WG_ROW,
        BOX_BYTES = BK * HCL_WG_ROW,
        STAGE_BYTES = (HCL_WG_BM + BN) * HCL_WG_ROW,
        STAGES =
            HCL_WG_STAGES * HCL_WG_STAGE_BYTES / STAGE_BYTES /* the same bytes: 4 stages of 128 x 256, 8 of 128 x 64 */
    };
    extern __shared__ unsigned char hcl_wg_dyn[];
    __shared__ __align__(8) unsigned long long bars[2 * STAGES]; /* full[s], then empty[s] */
    const unsigned base = (hcl_wg_smem(hcl_wg_dyn) + 1023u) & ~1023u;
    const unsigned full = hcl_wg_smem(bars), empty = full + 8 * STAGES;

    const unsigned tiles_m = (unsigned)((m + HCL_WG_BM - 1) / HCL_WG_BM), tiles_n = (unsigned)((n + BN - 1) / BN),
                   tiles = tiles_m * tiles_n;
    /* kslice is k itself (one slice: its steps are the steps, whatever k is) or a multiple of 64 */
    const int steps = (int)((k + BK - 1) / BK), slice_steps = (int)((kslice + BK - 1) / BK);
    const unsigned items = tiles * (unsigned)((steps + slice_steps - 1) / slice_steps); /* tiles x slices of k */

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            hcl_wg_bar_init(full + 8 * s, 1);
            hcl_wg_bar_init(empty + 8 * s, 2 * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    /* The block's work items (a tile and a slice of k: item % tiles, item / tiles): blockIdx.x, then every
     * gridDim.x-th; the stage ring runs on across them (`it` counts the K steps the block has made), so the producer
     * loads the next item while the consumers store this one. */
    const int wg = threadIdx.x / 128;
    if (wg == 0) { /* the producer */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (threadIdx.x != 0) return;
        unsigned it = 0;
        for (unsigned item = blockIdx.x; item < items; item += gridDim.x) {
            int m0, n0;
            hcl_wg_tile<BN>(item % tiles, tiles_m, tiles_n, &m0, &n0);
            const int s1 = min(steps, (int)(item / tiles + 1) * slice_steps);
            for (int s = (int)(item / tiles) * slice_steps; s < s1; s++, it++) {
                const unsigned st = it % STAGES, a = base + st * STAGE_BYTES, b = a + A_BYTES, bar = full + 8 * st;
                const int kk = s * BK;
                if (it >= STAGES) hcl_wg_bar_wait(empty + 8 * st, (it / STAGES - 1) & 1u);
                hcl_wg_bar_expect(bar, STAGE_BYTES);
                if (!TA)
                    hcl_wg_tma(a, ta, kk, m0, bar);
                else
                    for (int j = 0; j < HCL_WG_BM / BK; j++) hcl_wg_tma(a + j * BOX_BYTES, ta, m0 + j * BK, kk, bar);
                if (TB)
                    hcl_wg_tma(b, tb, kk, n0, bar);
                else
                    for (int j = 0; j < BN / BK; j++) hcl_wg_tma(b + j * BOX_BYTES, tb, n0 + j * BK, kk, bar);
            }
        }
        hcl_gpu_launch_next(); /* the loads are issued: a sum of the slices after it may begin its launch */
        return;
    }

    /* a consumer: rows 64 * c .. of each tile */
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int c = wg - 1, t = threadIdx.x % 128, w = t / 32, lane = t % 32;
    unsigned it = 0;
    for (unsigned item = blockIdx.x; item < items; item += gridDim.x) {
        int m0, n0;
        hcl_wg_tile<BN>(item % tiles, tiles_m, tiles_n, &m0, &n0);
        /* the item's steps of k, and its C: the slice's partial product at C0 + slice * m * n when k is sliced */
        const int z = (int)(item / tiles), nsteps = min(steps, (z + 1) * slice_steps) - z * slice_steps;
        TC *const C = C0 + (unsigned long long)z * m * n;
        const bool pairs = ldc % 2 == 0 && ((unsigned long long)C % (2 * sizeof(TC))) == 0;
        float d[BN / 2]; /* the warpgroup's 64 x BN */
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
        /* RA: the A fragments of two steps (registers a wgmma in flight reads), so steps go in pairs, u the step's
         * fragment buffer */
        float fa[2][16];
        for (int s0 = 0; s0 < nsteps; s0 += 2) {
#pragma unroll
            for (int u = 0; u < 2; u++) {
                const int s = s0 + u; /* the item's step: its slice's first is 0 */
                if (s >= nsteps) break;
                const unsigned st = it % STAGES, a = base + st * STAGE_BYTES + c * (HCL_WG_BM / 2) * 128,
                               b = base + st * STAGE_BYTES + A_BYTES;
                hcl_wg_bar_wait(full + 8 * st, (it / STAGES) & 1u);
                if (RA) hcl_wg_frag(fa[u], a, w, lane);
                hcl_wg_fence_acc<BN / 2>(d);
                asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
                for (int q = 0; q < 4; q++) { /* K 16 (8 for TF32): 32 bytes of each row */
                    const unsigned long long db =
                        TB ? hcl_wg_desc(b + q * 32, 16, 1024) : hcl_wg_desc(b + q * 2048, BOX_BYTES, 1024);
                    if constexpr (RA && BN == HCL_WG_BN_NARROW) {
                        hcl_wg_mma_rs_tf32_n64(d, &fa[u][4 * q], db);
                    } else if constexpr (RA) {
                        hcl_wg_mma_rs_tf32(d, &fa[u][4 * q], db);
                    } else {
                        const unsigned long long da =
                            TA ? hcl_wg_desc(a + q * 2048, BOX_BYTES, 1024) : hcl_wg_desc(a + q * 32, 16, 1024);
                        if constexpr (BN == HCL_WG_BN_NARROW)
                            hcl_wg_op<TAB>::template mma64<TA ? 1 : 0, TB ? 0 : 1>(d, da, db);
                        else
                            hcl_wg_op<TAB>::template mma<TA ? 1 : 0, TB ? 0 : 1>(d, da, db);
                    }
                }
                asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
                hcl_wg_fence_acc<BN / 2>(d);
                if (RA) hcl_wg_fence_frag(fa[u]);
                if (s > 0) { /* the previous step's group has finished reading its stage (and its fragments) */
                    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
                    if (RA) hcl_wg_fence_frag(fa[u ^ 1]);
                    hcl_wg_bar_arrive(empty + 8 * ((it - 1) % STAGES));
                }
                it++;
            }
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        hcl_wg_fence_acc<BN / 2>(d);
        hcl_wg_bar_arrive(empty + 8 * ((it - 1) % STAGES)); /* the tile's last stage */

        /* d[4i + 2h + q] is (row w * 16 + lane / 4 + 8h, column 8i + 2 (lane % 4) + q) of the warpgroup's 64 x BN */
        if (CT) { /* C^T: element (r, col) at C[col * ldc + r]; a warp's stores are 32-byte runs of 8 rows r */
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const unsigned long long r = (unsigned long long)m0 + c * 64 + w * 16 + lane / 4 + 8 * h;
                if (r >= m) continue;
#pragma unroll
                for (int i = 0; i < BN / 8; i++)
#pragma unroll
                    for (int q = 0; q < 2; q++) {
                        const unsigned long long col = (unsigned long long)n0 + 8 * i + 2 * (lane % 4) + q,
                                                 at = col * ldc + r;
                        const float v = alpha * d[4 * i + 2 * h + q];
                        if (col < n) EC::st(C, at, beta != 0.0f ? fmaf(beta, EC::ld(C, at), v) : v);
                    }
            }
        }
        /* C through the warp's rows in shared memory where beta is 0 and C's rows are 16-byte aligned: 8 rows x 64
         * columns at a time (the fragment's rows lane / 4 + 8h), written as the fragments lie, read back along the
         * rows, so a warp's store covers whole 16-byte runs of 2 to 4 rows instead of 16 bytes of each of 8 rows */
        enum { EV = 16 / sizeof(TC), EP = HCL_WG_EPI_PITCH };
        const bool staged = !CT && beta == 0.0f && ldc % EV == 0 && ((unsigned long long)C % 16) == 0;
        if (staged) {
            TC *const sb = (TC *)(hcl_wg_dyn + (base - hcl_wg_smem(hcl_wg_dyn)) + HCL_WG_STAGES * HCL_WG_STAGE_BYTES +
                                  (c * 4 + w) * HCL_WG_EPI_WARP_BYTES);
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int j = 0; j < BN / 64; j++) {
#pragma unroll
                    for (int ii = 0; ii < 8; ii++) {
                        const int i = 8 * j + ii;
                        EC::st2(sb, ((lane / 4) * EP + 8 * ii + 2 * (lane % 4)) / 2, alpha * d[4 * i + 2 * h],
                                alpha * d[4 * i + 2 * h + 1]);
                    }
                    __syncwarp();
                    const unsigned long long r0 = (unsigned long long)m0 + c * 64 + w * 16 + 8 * h,
                                             c0 = (unsigned long long)n0 + 64 * j;
#pragma unroll
                    for (int v = lane; v < 8 * 64 / EV; v += 32) {
                        const int rr = v / (64 / EV), cc = (v % (64 / EV)) * EV;
                        const unsigned long long r = r0 + rr, col = c0 + cc;
                        if (r >= m) continue;
                        if (col + EV <= n)
                            *(uint4 *)(C + r * ldc + col) = *(const uint4 *)(sb + rr * EP + cc);
                        else
                            for (int e = 0; e < EV && col + e < n; e++)
                                EC::st(C, r * ldc + col + e, EC::ld(sb, rr * EP + cc + e));
                    }
                    __syncwarp();
                }
        }
#pragma unroll
        for (int h = 0; !CT && !staged && h < 2; h++) {
            const unsigned long long r = (unsigned long long)m0 + c * 64 + w * 16 + lane / 4 + 8 * h;
            if (r >= m) continue;
#pragma unroll
            for (int i = 0; i < BN / 8; i++) {
                const unsigned long long col = (unsigned long long)n0 + 8 * i + 2 * (lane % 4), at = r * ldc + col;
                float v0 = alpha * d[4 * i + 2 * h], v1 = alpha * d[4 * i + 2 * h + 1];
                if (pairs && col + 1 < n) {
                    if (beta != 0.0f) {
                        float old[2];
                        EC::ld2(C, at / 2, old);
                        v0 = fmaf(beta, old[0], v0), v1 = fmaf(beta, old[1], v1);
                    }
                    EC::st2(C, at / 2, v0, v1);
                } else {
                    if (col < n) EC::st(C, at, beta != 0.0f ? fmaf(beta, EC::ld(C, at), v0) : v0);
                    if (col + 1 < n) EC::st(C, at + 1, beta != 0.0f ? fmaf(beta, EC::ld(C, at + 1), v1) : v1);
                }
            }
        }
    }
}
#endif /* HCL_WG_ENABLED */

#ifdef HCL_WG_ENABLED
#define HCL_WG_BODY(TA, TB, TAB, TC, RA, CT, BN)                                                                       \
    hcl_wg_gemm<TA, TB, TAB, TC, RA, CT, BN>(m, n, k, alpha, &A, &B, beta, C, ldc, kslice);
#else /* a launch here is a bug (the plan takes these kernels only on sm_90, whose code is sm_90a): fail it loudly */
#define HCL_WG_BODY(TA, TB, TAB, TC, RA, CT, BN)                                                                       \
    (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)ldc, (void)kslice;            \
    HCL_GPU_UNREACHABLE
#endif

/* hcl_gemm_wg_<ab>_<c>_<nn|nt|tn|tt>: m, n, k, alpha, the tensor maps of A and B (plan_tc.c), beta, C, ldc, kslice.
 * kslice, a multiple of 64: k cut into slices of that many (k itself: one slice, C = alpha A B + beta C); with
 * several, slice z's product (alpha 1, beta 0 from the plan) goes to C + z * m * n, pitch ldc = n, for
 * hcl_gemm_splitk_sum to add. A 1-D grid of at most one block per work item (one per SM is enough: each block takes
 * items until none is left); HCL_WG_SMEM_BYTES of dynamic shared memory. HCL_WG_KERNEL names one instance of
 * hcl_wg_gemm (its template arguments after the name), every kernel below the same signature. */
#define HCL_WG_KERNEL(NAME, TA, TB, TAB, TC, RA, CT, BN)                                                               \
    extern "C" __global__ void HCL_LAUNCH_BOUNDS_MIN_BLOCKS(HCL_WG_THREADS, 1)                                         \
        NAME(unsigned long long m, unsigned long long n, unsigned long long k, float alpha,                            \
             const HCL_GRID_CONSTANT hcl_tmap A, const HCL_GRID_CONSTANT hcl_tmap B, float beta, TC *C,                \
             unsigned long long ldc, unsigned long long kslice) {                                                      \
        HCL_WG_BODY(TA, TB, TAB, TC, RA, CT, BN)                                                                       \
    }
/* hcl_gemm_<WG>_<ab>_<c>_<nn|nt|tn|tt>: WG wg, tiles of 128 x 256 (BN HCL_WG_BN), or wg64, 128 x 64 of C
 * (HCL_WG_BN_NARROW), the plan's choice for 16-bit types where the 128 x 256 tiles would fill at most half the SMs (the
 * middle rows of inference: four times the tiles, and fewer slices of k or none) */
#define HCL_WG_KERNELS(WG, TYPES, TAB, TC, BN)                                                                         \
    HCL_WG_KERNEL(hcl_gemm_##WG##_##TYPES##_nn, false, false, TAB, TC, false, false, BN)                               \
    HCL_WG_KERNEL(hcl_gemm_##WG##_##TYPES##_nt, false, true, TAB, TC, false, false, BN)                                \
    HCL_WG_KERNEL(hcl_gemm_##WG##_##TYPES##_tn, true, false, TAB, TC, false, false, BN)                                \
    HCL_WG_KERNEL(hcl_gemm_##WG##_##TYPES##_tt, true, true, TAB, TC, false, false, BN)
#define HCL_WG_KERNELS_BOTH(TYPES, TAB, TC)                                                                            \
    HCL_WG_KERNELS(wg, TYPES, TAB, TC, HCL_WG_BN)                                                                      \
    HCL_WG_KERNELS(wg64, TYPES, TAB, TC, HCL_WG_BN_NARROW)
HCL_WG_KERNELS_BOTH(f16_f16, hcl_f16_t, hcl_f16_t)
HCL_WG_KERNELS_BOTH(f16_f32, hcl_f16_t, float)
HCL_WG_KERNELS_BOTH(bf16_bf16, hcl_bf16_t, hcl_bf16_t)
HCL_WG_KERNELS_BOTH(bf16_f32, hcl_bf16_t, float)
/* hcl_gemm_wg_<ab>_<c>_<nn|nt>_n64: "nn" and "nt" of at most 64 rows (rows of few tokens), on swapped operands (C^T =
 * B^T A^T, the plan passes n, m, B and A; C stored transposed) over tiles of 128 x 64 (HCL_WG_BN_NARROW): B^T is A'
 * (M-major for "nn", K-major for "nt"), A^T is B' (K-major), and C's rows are the tile's 64 columns, where the wide
 * kernel's tile of 128 rows would lie half or more past m. */
#define HCL_WG_KERNELS_N64(TYPES, TAB, TC)                                                                             \
    HCL_WG_KERNEL(hcl_gemm_wg_##TYPES##_nn_n64, true, true, TAB, TC, false, true, HCL_WG_BN_NARROW)                    \
    HCL_WG_KERNEL(hcl_gemm_wg_##TYPES##_nt_n64, false, true, TAB, TC, false, true, HCL_WG_BN_NARROW)
HCL_WG_KERNELS_N64(f16_f16, hcl_f16_t, hcl_f16_t)
HCL_WG_KERNELS_N64(f16_f32, hcl_f16_t, float)
HCL_WG_KERNELS_N64(bf16_bf16, hcl_bf16_t, hcl_bf16_t)
HCL_WG_KERNELS_N64(bf16_f32, hcl_bf16_t, float)
/* TF32 (wgmma reads only K-major TF32 operands from shared memory): "nt" as the 16-bit kernels; "tt" with A, M-major,
 * going to wgmma from registers; "nn" the same on swapped operands, C^T = B^T A^T: the plan passes n, m, B and A, and
 * the kernel stores C transposed. "tn" is "tt" after the plan copies B transposed (hcl_transpose_f32, gemm.cu). */
HCL_WG_KERNEL(hcl_gemm_wg_tf32_f32_nt, false, true, float, float, false, false, HCL_WG_BN)
HCL_WG_KERNEL(hcl_gemm_wg_tf32_f32_tt, true, true, float, float, true, false, HCL_WG_BN)
HCL_WG_KERNEL(hcl_gemm_wg_tf32_f32_nn, true, true, float, float, true, true, HCL_WG_BN)
/* "nn" over tiles of 128 x 64 (HCL_WG_BN_NARROW), the plan's choice where m <= 64 (rows of few tokens): there three
 * quarters of the wide tile's 256 columns (C^T's, so C's rows) would lie past m */
HCL_WG_KERNEL(hcl_gemm_wg_tf32_f32_nn_n64, true, true, float, float, true, true, HCL_WG_BN_NARROW)
