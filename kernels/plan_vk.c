/* The launch plans of the Vulkan family (plan_vk.h). The kernels index with 32-bit integers (GLSL without
 * shaderInt64), so a call whose elements do not fit is refused, never cut. f16 and bf16 kernels are in the vk16
 * program, which only a device with 16-bit storage builds (elsewhere the call is HCL_ERROR_UNSUPPORTED with the
 * driver's reason); the f16 and bf16 gemm on cooperative matrices in vk-coop, which a plan launches only where the
 * driver reports the matrix unit for that type. */
#include "plan_vk.h"

#include <stdio.h>

#define VK_WG 256u            /* work-items per group of the 1-D kernels */
#define VK_MAX_PARTIALS 1024u /* reduce: groups where the device states no compute units */
/* gemm on a CPU device: k in slices of at most this many, one launch each, the later ones adding to C (beta 1).
 * lavapipe (Mesa 22.3) ends a shader's loops after 65535 trips of its loop limiter, counted over all of them. Measured
 * (32 x 32 x k of ones, unsliced): the dot kernel stops at k = 65535 (a trip a k), the 128 x 128 tiled one at 52429
 * (10 trips a step of 8 k: its k loop and its 8 k, not unrolled), the 64 x 64 one at 524280 (one trip a step). Without
 * slices C would silently miss the rest of k; with 32768 every kernel stays below the limit, and a 16-bit C is rounded
 * between slices only from k > 32768. */
#define VK_GEMM_CPU_KSLICE 32768u

static hcl_kprog vk_prog(hcl_dtype type) { return type == HCL_DTYPE_F32 ? HCL_KPROG_VK : HCL_KPROG_VK16; }

/* The group count of a 1-D launch over `items` work-items: at most the device's limit (65535 where unknown). */
static size_t vk_groups(const hcl_kdevice *dev, size_t items, size_t wg, size_t cap) {
    size_t groups = hcl_min_size(hcl_ceil_div(items, wg), cap);
    groups = hcl_min_size(groups, hcl_known_or(dev->max_groups[0], 65535));
    return groups ? groups : 1;
}

static int fits_u32(size_t v) { return v <= UINT32_MAX; }

/* The work-group size of a kernel: VK_WG, or less where the device or kernel takes less (a power of two). */
static size_t vk_wg(const hcl_kdevice *dev, hcl_kprog prog, int kernel) {
    size_t wg = hcl_pow2_floor((size_t)hcl_kgroup_max(dev, prog, kernel, VK_WG));
    return wg ? wg : 1;
}

/* Elements a 16-byte word holds (the shaders' HCL_VN): 4 float32 or 8 16-bit values. */
static size_t vk_word_elems(hcl_dtype type) { return type == HCL_DTYPE_F32 ? 4 : 8; }

/* Work-groups that keep every compute unit full: `per_unit` groups a unit (an SM runs 2048 work-items: 8 groups of
 * 256), or `fallback` where the device states no count of units. */
static size_t vk_fill_groups(const hcl_kdevice *dev, size_t per_unit, size_t fallback) {
    return dev->compute_units ? (size_t)dev->compute_units * per_unit : fallback;
}

hcl_status hcl__plan_vecadd_vk(const hcl_kdevice *dev, hcl_dtype type, size_t n, hcl_kplan *out) {
    const hcl_kprog prog = vk_prog(type);
    const int kernel = hcl_kplan_typed_kernel(out, prog, "hcl_vecadd", type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    if (!fits_u32(n))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the Vulkan kernels take at most 2^32-1 elements (n %zu)", n);
    hcl_klaunch *l = &out->launch[0];
    const size_t wg = vk_wg(dev, prog, kernel);
    /* a grid-stride loop over 16-byte words, a work-item a word a trip: at most 4096 groups, at least one word (or
     * element of the tail) a work-item */
    const size_t words = n / vk_word_elems(type), tail = n % vk_word_elems(type);
    const size_t items = words > tail ? words : tail;
    hcl_klaunch_1d(l, prog, kernel, vk_groups(dev, items, wg, 4096), wg);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0); /* each seen by the shader as elements and as 16-byte words */
    hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u32(l, (uint32_t)n);
    return HCL_SUCCESS;
}

hcl_status hcl__plan_reduce_vk(const hcl_kdevice *dev, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_kplan *out) {
    static const char *const base[3] = {"hcl_reduce_sum", "hcl_reduce_max", "hcl_reduce_min"};
    const int o = op == HCL_REDUCE_MAX ? 1 : op == HCL_REDUCE_MIN ? 2 : 0;
    const hcl_kprog prog = vk_prog(type);
    const int kernel = hcl_kplan_typed_kernel(out, prog, base[o], type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    if (!fits_u32(n))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the Vulkan kernels take at most 2^32-1 elements (n %zu)", n);
    /* one launch (kernels/reduce/reduce.comp: the last work-group folds the partials), its groups from n and the device
     * only: the same input gives the same bits. A work-item folds four 16-byte words a trip; enough groups to fill
     * every compute unit (8 of 256 an SM), fewer where n is small */
    const size_t wg = vk_wg(dev, prog, kernel);
    const size_t words = n / vk_word_elems(type) ? n / vk_word_elems(type) : 1;
    const size_t groups =
        vk_groups(dev, hcl_ceil_div(words, 4), wg, vk_fill_groups(dev, 2048 / wg ? 2048 / wg : 1, VK_MAX_PARTIALS));
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, prog, kernel, groups, wg);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u32(l, (uint32_t)n);
    out->scratch_bytes = (1 + groups) * sizeof(float); /* the ticket, then the partials; zeros, left zeroed */
    out->scratch_zeroed = 1;
    return HCL_SUCCESS;
}

#define VK_SOFTMAX_WORDS 8u      /* softmax: 16-byte words a work-item keeps in registers (the shader's WORDS) */
#define VK_SOFTMAX_ROW_LANES 32u /* the subgroup kernel: at most this many lanes a row (NVIDIA's subgroup) */
#define VK_SOFTMAX_ROWS_GROUPS_PER_CU 64u /* the subgroup kernel's work-groups a compute unit for short rows, at most */
#define VK_SOFTMAX_PARTS_WG 256u          /* the parts kernel: its smallest work-group */
#define VK_SOFTMAX_WS_ROWS 64u /* the parts kernel's scratch: 32-bit words before the rows' (the shader's WS_ROWS) */

/* The largest work-group of a softmax kernel: a power of two, at most 1024. */
static size_t vk_softmax_most(const hcl_kdevice *dev, hcl_kprog prog, int kernel) {
    return hcl_pow2_floor((size_t)hcl_kgroup_max(dev, prog, kernel, 1024));
}

/* The parts kernel (softmax.comp, SOFTMAX_PARTS) for rows of `words` 16-byte words, its work-groups of at most `most`
 * work-items: groups of the fewest work-items w (a power of two from 256) whose parts, 8 w words each, number at most
 * w (work-item q reads part q's max and sum) and at most `limit`, so 256 for rows of up to 524288 words. Returns the
 * groups a row and w in *wg; 0 where no w up to `most` takes the row. Measured on an H200 (GB/s, 1024 x 131072 and
 * 512 x 262144, against the CUDA backend's 3190-3260): float32 2885 and 2830 on groups of 256, 2671 and 2635 of 512,
 * 2502 and 2401 on the fewest groups of 1024; f16 2287 / 2272, 2216 / 2170, 1973 / 1938; the work-group kernel (one
 * group a row, the rest streamed) 2442 / 2376 and 2233 / 2040. 16-bit parts of 4 words a work-item (twice the parts):
 * f16 2300 -> 1882 and 2263 -> 1805, not kept. */
static size_t vk_softmax_parts(size_t words, size_t most, size_t limit, size_t *wg) {
    for (size_t w = VK_SOFTMAX_PARTS_WG; w <= most; w *= 2) {
        const size_t np = words ? hcl_ceil_div(words, VK_SOFTMAX_WORDS * w) : 1;
        if (np <= w && np <= limit) {
            *wg = w;
            return np;
        }
    }
    return 0;
}

/* The parts kernel's launches: batches of rows whose `parts` groups each fit the device's group count, a group a
 * (row, part) of the batch; the zeroed scratch its ticket and each row's words (kernels/softmax/softmax.comp). */
static hcl_status vk_softmax_parts_launches(const hcl_kdevice *dev, hcl_kprog prog, int kernel, size_t rows,
                                            size_t cols, size_t parts, size_t wg, hcl_kplan *out) {
    const size_t batch = hcl_min_size(rows, hcl_known_or(dev->max_groups[0], 65535) / parts); /* rows a launch */
    const size_t count = batch ? hcl_ceil_div(rows, batch) : 0;
    const hcl_status st = hcl_kplan_init(out, count);
    if (st != HCL_SUCCESS) return st;
    /* per row of a launch: its arrivals and departures, then a part's max, sum and state */
    out->scratch_bytes = (VK_SOFTMAX_WS_ROWS + batch * (2 + 3 * parts)) * sizeof(uint32_t);
    out->scratch_zeroed = 1;
    for (size_t i = 0; i < count; i++) {
        hcl_klaunch *l = &out->launch[i];
        const size_t r0 = i * batch, n = hcl_min_size(batch, rows - r0);
        hcl_klaunch_1d(l, prog, kernel, n * parts, wg);
        hcl_klaunch_mem(l, HCL_KSLOT_A, 0); /* bindings 0 and 1 seen as 16-byte words, the scratch at 2 */
        hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
        hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
        hcl_klaunch_u32(l, (uint32_t)r0);
        hcl_klaunch_u32(l, (uint32_t)cols);
        hcl_klaunch_u32(l, (uint32_t)parts);
    }
    return HCL_SUCCESS;
}

hcl_status hcl__plan_softmax_vk(const hcl_kdevice *dev, hcl_dtype type, size_t rows, size_t cols, hcl_kplan *out) {
    const hcl_kvariant v = dev->variant[HCL_KOP_SOFTMAX];
    /* the subgroup kernel for rows that 32 lanes' registers hold (8 words a lane: 1024 float32 or 2048 16-bit
     * values), the work-group kernel above it, keeping 8 words a work-item and streaming the rest; on a GPU, rows of
     * whole words longer than a work-group of it holds go to the parts kernel, several work-groups a row, where their
     * parts number at most the device's compute units (so that they run together; a CPU device, or one that states no
     * count of compute units, keeps the work-group kernel); a forced variant takes every row it can */
    const size_t words = hcl_ceil_div(cols, vk_word_elems(type));
    const hcl_kprog prog = vk_prog(type);
    if (!fits_u32(rows) || (rows && cols > UINT32_MAX / rows))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the Vulkan kernels take at most 2^32-1 elements (%zu rows x %zu columns)", rows, cols);
    const int whole = cols % vk_word_elems(type) == 0;
    const int group_k = hcl_kplan_typed_kernel(out, prog, "hcl_softmax", type);
    const int parts_k = hcl_kplan_typed_kernel(out, prog, "hcl_softmax_parts", type);
    if (group_k < 0 || parts_k < 0) return HCL_ERROR_UNSUPPORTED;
    size_t parts = 0, wg = 0;
    if (v == HCL_KVARIANT_SOFTMAX_PARTS) {
        const size_t most = vk_softmax_most(dev, prog, parts_k);
        if (!whole)
            return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                                       "the parts kernel takes rows of whole 16-byte words (%zu %s values each; %zu "
                                       "columns)",
                                       vk_word_elems(type), hcl_kdtype_name(type), cols);
        if (most < VK_SOFTMAX_PARTS_WG)
            return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                                       "the parts kernel needs work-groups of %u work-items (the device allows %zu)",
                                       VK_SOFTMAX_PARTS_WG, most);
        parts = vk_softmax_parts(words, most, SIZE_MAX, &wg);
        if (!parts || parts > hcl_known_or(dev->max_groups[0], 65535))
            return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                                       "the parts kernel takes rows of at most %zu words (%zu work-groups of %zu "
                                       "work-items, 8 words each; %zu words here)",
                                       most * most * VK_SOFTMAX_WORDS, most, most, words);
    } else if (v == HCL_KVARIANT_AUTO && whole && !dev->is_cpu && dev->compute_units &&
               words > VK_SOFTMAX_WORDS * vk_softmax_most(dev, prog, group_k)) {
        parts = vk_softmax_parts(words, vk_softmax_most(dev, prog, parts_k),
                                 hcl_min_size(dev->compute_units, hcl_known_or(dev->max_groups[0], 65535)), &wg);
    }
    if (parts) return vk_softmax_parts_launches(dev, prog, parts_k, rows, cols, parts, wg, out);
    const int sub = v == HCL_KVARIANT_SOFTMAX_SUBGROUP ||
                    (v == HCL_KVARIANT_AUTO && words <= VK_SOFTMAX_WORDS * VK_SOFTMAX_ROW_LANES);
    const int keep = v != HCL_KVARIANT_SOFTMAX_STREAMED;
    const int kernel = sub ? hcl_kplan_typed_kernel(out, prog, "hcl_softmax_rows", type) : group_k;
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    size_t lanes = 1, groups;
    if (sub) {
        /* lanes a row: about 4 words each for float32 and 16-bit rows of at most 16 words, 8 for longer 16-bit rows,
         * 2 for rows of at most 8 words (a 16-byte load in flight per word), a power of two of at most 32 (the shader
         * takes at most the subgroup); a work-group of 256 takes 256 / lanes rows at once (H200, GB/s, f16 / bf16: 32
         * columns 3418 / 3228 at 2 words a lane, 2812 / 2641 at 1; 128 columns 2980 / 2931 at 8, 3297 / 3241 at 4,
         * 2918 / 2837 at 2; 256 columns 3556 / 3385 at 8, 3306 / 3231 at 4) */
        const size_t per_lane = words <= 8 ? 2 : type == HCL_DTYPE_F32 || words <= 16 ? 4 : 8;
        while (lanes < VK_SOFTMAX_ROW_LANES && lanes * per_lane < words) lanes *= 2;
        wg = vk_wg(dev, prog, kernel);
        /* rows of at most 8 words: at most VK_SOFTMAX_ROWS_GROUPS_PER_CU work-groups a compute unit, each looping over
         * its rows, where a work-group for every 256 / lanes rows spent the time starting groups (H200, GB/s, rows of
         * 32 f32 / 32 f16 / 64 f16 columns: 3571 / 2998 / 2936 with a turn a sub-group, 3876 / 3404 / 3309 at 64 a
         * compute unit; 32: 3836 / 3442 / 3336, 128: 3864 / 3263 / 3166; rows of 16 words, 64 f32 columns, 4083 ->
         * 3962 at 64, so longer rows keep a turn a sub-group) */
        const size_t cap =
            words <= 8 && dev->compute_units ? dev->compute_units * VK_SOFTMAX_ROWS_GROUPS_PER_CU : SIZE_MAX;
        groups = vk_groups(dev, rows, wg / hcl_min_size(lanes, wg), cap);
    } else {
        /* a work-group a row: enough work-items to keep the row (8 words each), a power of two of 64 to 1024 */
        const size_t most = vk_softmax_most(dev, prog, kernel);
        wg = hcl_min_size(64, most);
        while (wg < most && wg * VK_SOFTMAX_WORDS < words) wg *= 2;
        groups = vk_groups(dev, rows, 1, SIZE_MAX); /* rows strided */
    }
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, prog, kernel, groups, wg ? wg : 1);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0); /* each seen by the shader as elements and as 16-byte words */
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u32(l, (uint32_t)rows);
    hcl_klaunch_u32(l, (uint32_t)cols);
    hcl_klaunch_u32(l, (uint32_t)lanes);
    hcl_klaunch_u32(l, (uint32_t)keep);
    return HCL_SUCCESS;
}

/* The last element of an operand stored with leading dimension `ld`, `outer` rows of `inner` columns, fits in 32 bits. */
static int operand_fits(size_t outer, size_t inner, size_t ld) {
    return outer == 0 || (fits_u32(ld) && outer - 1 <= (UINT32_MAX - inner) / (ld ? ld : 1));
}

/* Whether m, n and every element of A, B and C (by their leading dimensions) index within 32 bits, as the gemm
 * shaders do (k is each kernel's own bound). */
static int vk_gemm_indexes_fit(const hcl_kgemm *g) {
    const int ta = g->trans_a != HCL_NO_TRANS, tb = g->trans_b != HCL_NO_TRANS;
    return fits_u32(g->m) && fits_u32(g->n) && operand_fits(ta ? g->k : g->m, ta ? g->m : g->k, g->lda) &&
           operand_fits(tb ? g->n : g->k, tb ? g->k : g->n, g->ldb) && operand_fits(g->m, g->n, g->ldc);
}

/* gemm's kernels (kernels/gemm/gemm.comp, and gemm_coop.comp in the vk-coop program), one variant each
 * (hcl_variants.def), in the order an unforced plan considers them: "<base>_<A's and B's type>[_f32 when C is f32 and
 * they are not]", a 16 x 16 work-group per bm x bn tile of C, all with the same arguments. */
typedef struct vk_gemm_kernel {
    hcl_kvariant variant;
    const char *base;
    size_t bm, bn;
} vk_gemm_kernel;
static const vk_gemm_kernel g_vk_gemm[] = {
    {HCL_KVARIANT_GEMM_VK_GEMV, "hcl_gemm_gemv", 0, 0},       /* its own launches: vk_gemv_launches */
    {HCL_KVARIANT_GEMM_VK_SPLITK, "hcl_gemm_splitk", 64, 64}, /* its tile by shape: vk_splitk_tile */
    {HCL_KVARIANT_GEMM_VK_DOT, "hcl_gemm_dot", 16, 16},
    {HCL_KVARIANT_GEMM_VK_COOP, "hcl_gemm_coop", 128, 128},
    {HCL_KVARIANT_GEMM_VK_COOP64, "hcl_gemm_coop64", 64, 64},
    {HCL_KVARIANT_GEMM_VK_SIMT128, "hcl_gemm_128", 128, 128},
    {HCL_KVARIANT_GEMM_VK_SIMT128X64, "hcl_gemm_128x64", 128, 64},
    {HCL_KVARIANT_GEMM_VK_SIMT64, "hcl_gemm", 64, 64},
};

/* The gemv kernel (kernels/gemm/gemm_gemv.comp, vk_gemv_launches): C of at most VK_GEMV_ROWS rows (or columns) */
#define VK_GEMV_ROWS 16
/* rows (or columns) up to which an unforced plan takes it on a GPU: 8 for f32, 4 for 16-bit types. H200, GFLOP/s on
 * vk-splitk -> vk-gemv, over N x K of 4096 x 4096, 1024 x 4096, 14336 x 4096, 4096 x 14336, 128256 x 4096: f32 1 row
 * 692-1296 -> 569-2197, 4 rows 1487-5094 -> 1762-8062, 8 rows 2612-8701 -> 2346-11218 (0.90 at 1024 x 4096, 1.16-1.34
 * elsewhere), 16 rows 3803-10252 -> 2959 at 128256 (not taken); f16 1 row 236-660 -> 570-3289, 4 rows 1182-3848 ->
 * 1469-8299 (0.96 at 128256), 8 rows 2108-6372 -> 620-1978 (not taken) */
#define VK_GEMV_FIRST(t) ((t) == HCL_DTYPE_F32 ? 8u : 4u)
#define VK_GEMV_SLICE 64u /* slices are multiples of this (whole 16-byte words of W along k) */

/* Whether the gemv kernel takes g on swapped operands (C^T = B^T A^T: C's columns are its rows). */
static int vk_gemv_swap(const hcl_kgemm *g) { return !(g->m <= VK_GEMV_ROWS && (g->m <= g->n || g->n > VK_GEMV_ROWS)); }

/* Whether kk is the cooperative-matrix kernel (either tile: the vk-coop program). */
static int vk_is_coop(const vk_gemm_kernel *kk) {
    return kk->variant == HCL_KVARIANT_GEMM_VK_COOP || kk->variant == HCL_KVARIANT_GEMM_VK_COOP64;
}

/* Shared memory of a kernel: the SIMT tiles hold two buffers of 8 k of BM + 4 floats of A and BN + 4 of B; the
 * cooperative-matrix one two buffers of 128 rows of 5 16-byte words (32 k of 16-bit values and a word of padding) for
 * each of A and B (C's patches reuse them). */
static uint64_t vk_gemm_shared(const vk_gemm_kernel *kk) {
    if (kk->variant == HCL_KVARIANT_GEMM_VK_DOT) return 0u;
    /* the gemv kernel: 4096 floats of A's rows, the sums of at most 8 x 256 columns in rows of 257 floats */
    if (kk->variant == HCL_KVARIANT_GEMM_VK_GEMV) return (4096u + 8u * 257u) * sizeof(float) + 16u;
    if (kk->variant == HCL_KVARIANT_GEMM_VK_SPLITK) return 2u * 16u * (64u + 4u + 64u + 4u) * sizeof(float) + 16u;
    if (vk_is_coop(kk)) return 2u * 2u * 128u * 5u * 16u; /* the 64 x 64 tile's are smaller: the bound of both */
    return 2u * 8u * ((uint64_t)kk->bm + kk->bn + 8u) * sizeof(float);
}

/* Whether the cooperative-matrix kernel runs g on the device: f16 or bf16 inputs, the matrix unit for that type (the
 * driver enabled VK_KHR_cooperative_matrix with the kernel's fragments, and the build has the kernel:
 * kernels/plan_types.c), sub-groups of 32. */
static int vk_coop_runs(const hcl_kdevice *dev, const hcl_kgemm *g) {
    return (g->ab_type == HCL_DTYPE_F16 || g->ab_type == HCL_DTYPE_BF16) &&
           dev->matrix_unit == HCL_MATRIX_UNIT_TENSOR_CORE && (dev->matrix_types & HCL_TYPE_BIT(g->ab_type)) &&
           dev->subgroup_width == 32;
}

/* The split-K kernel (kernels/gemm/gemm_splitk.comp): its tile of C, by shape. */
typedef struct vk_splitk_tile {
    const char *base;
    size_t tm, tn;
} vk_splitk_tile;
static const vk_splitk_tile g_vk_splitk[] = {
    {"hcl_gemm_splitk_rows", 16, 64}, /* m <= 16 (and m <= n) */
    {"hcl_gemm_splitk_cols", 64, 16}, /* n <= 16 */
    {"hcl_gemm_splitk_tile", 64, 64}, /* otherwise */
};
/* Slices of k in the split-K and gemv kernels (one dispatch, a work-group of 256 per piece of C and slice) */
#define VK_KSLICE_MIN_K 256u       /* a GPU: k a slice at least (16 steps of the split-K kernel's 16 k) */
#define VK_KSLICE_CPU_K 2048u      /* a CPU: k a slice at most (128 such steps: far below lavapipe's loop limiter) */
#define VK_KSLICE_PER_UNIT 4u      /* a GPU: work-groups a compute unit the slices aim at */
#define VK_KSLICE_MAX_K (1u << 31) /* the shaders' slice arithmetic stays below 2^32 where k is less */

/* The split-K kernel's tile for g: 16 x 64 for at most 16 rows (no more than columns), 64 x 16 for at most 16 columns,
 * 64 x 64 otherwise. */
static const vk_splitk_tile *vk_splitk_tile_of(const hcl_kgemm *g) {
    if (g->m <= 16 && g->m <= g->n) return &g_vk_splitk[0];
    if (g->n <= 16) return &g_vk_splitk[1];
    return &g_vk_splitk[2];
}

/* Tiles of C the split-K kernel takes for g. */
static size_t vk_splitk_tiles(const hcl_kgemm *g) {
    const vk_splitk_tile *t = vk_splitk_tile_of(g);
    return hcl_ceil_div(g->m, t->tm) * hcl_ceil_div(g->n, t->tn);
}

/* Slices of `klen` (> 0) k for `pieces` work-groups' pieces of C: on a GPU enough groups for VK_KSLICE_PER_UNIT a
 * compute unit (64 units where unknown), each slice at least VK_KSLICE_MIN_K; on a CPU slices of at most
 * VK_KSLICE_CPU_K (lavapipe runs a group's work-items as a loop: slices only keep its loop limiter away); at most
 * `most` (the device's count of groups in the slices' grid dimension; 65535 where unknown), at least 1. From the shape
 * and device only: the same call adds in the same order every run. */
static size_t vk_kslices(const hcl_kdevice *dev, size_t pieces, size_t klen, uint64_t most) {
    size_t s;
    if (dev->is_cpu)
        s = hcl_ceil_div(klen, VK_KSLICE_CPU_K);
    else {
        const size_t want = hcl_known_or(dev->compute_units, 64) * VK_KSLICE_PER_UNIT;
        s = hcl_min_size(hcl_ceil_div(want, pieces), hcl_ceil_div(klen, VK_KSLICE_MIN_K));
    }
    s = hcl_min_size(s, hcl_known_or(most, 65535));
    return s ? s : 1;
}

/* Slices of k (the split-K kernel's grid z) for a launch of `klen` k of g (vk_kslices over its tiles); 1 where k is 0
 * or past VK_KSLICE_MAX_K. */
static size_t vk_splitk_slices(const hcl_kdevice *dev, const hcl_kgemm *g, size_t klen) {
    if (klen == 0 || klen >= VK_KSLICE_MAX_K) return 1;
    return vk_kslices(dev, vk_splitk_tiles(g), klen, dev->max_groups[2]);
}

/* Whether an unforced plan takes kernel kk for g. The dot kernel for C of at most 16 rows or columns, where most of a
 * tile would idle (on lavapipe: gemm/few_rows 7 s instead of 22). On a GPU the largest tile whose groups still number
 * 3/4 of the compute units: a work-item's 8 x 8 (8 x 4) values of C take 4 (3) vec4 reads of shared memory per k, the
 * 64 x 64 tile's 4 x 4 take 2, so the larger tiles do twice (1.3 times) the fmas per shared read and read A and B from
 * global memory half (3/4) as often; fewer groups than that leave SMs idle. The 64 x 64 tile otherwise, and on a CPU
 * device (lavapipe runs a group's work-items as a loop: the smaller tile is its measured one). */
static int vk_gemm_worth(const hcl_kdevice *dev, const hcl_kgemm *g, const vk_gemm_kernel *kk) {
    if (kk->variant == HCL_KVARIANT_GEMM_VK_GEMV)
        return !dev->is_cpu && (vk_gemv_swap(g) ? g->n : g->m) <= VK_GEMV_FIRST(g->ab_type);
    if (kk->variant == HCL_KVARIANT_GEMM_VK_SPLITK) {
        /* a GPU, k long enough for 2 slices or more, and C of at most 16 rows or columns or of fewer 64 x 64 tiles
         * than a quarter of the compute units (127 x 127, 61 x 67; not 127 x 4096: 128 tiles on 132 units) */
        const size_t tiles64 = hcl_ceil_div(g->m, 64) * hcl_ceil_div(g->n, 64);
        return !dev->is_cpu && vk_splitk_slices(dev, g, g->k) >= 2 &&
               (g->m <= 16 || g->n <= 16 || tiles64 * 4 < hcl_known_or(dev->compute_units, 64));
    }
    if (kk->variant == HCL_KVARIANT_GEMM_VK_DOT) return g->m <= 16 || g->n <= 16;
    /* Measured on an H200 (4096^3, TFLOP/s): f16 and bf16 on the cooperative-matrix kernel 199-201 in bench (8192^3:
     * 214), on the SIMT tiles f16 33.1 (128 x 128), 29.3 (128 x 64), 25.0 (64 x 64); bf16 2.3 (128 x 128), 29.2 (128 x
     * 64), 25.1 (64 x 64). So 16-bit types on the matrix unit wherever the kernel runs, and bf16 never on the 128 x
     * 128 SIMT tile unforced. */
    const size_t groups = hcl_ceil_div(g->m, kk->bm) * hcl_ceil_div(g->n, kk->bn);
    /* 128 x 128 tiles where they number at least the compute units, else 64 x 64 (H200, f16 TFLOP/s in a harness,
     * 64 x 64 against 128 x 128: 1024^3 82.7 against 48.4, 127 x 4096 x 4096 46.5 against 28.2; 2048^3, 256 tiles,
     * 126.9 against 175.9) */
    if (kk->variant == HCL_KVARIANT_GEMM_VK_COOP)
        return vk_coop_runs(dev, g) && groups >= hcl_known_or(dev->compute_units, 64);
    if (kk->variant == HCL_KVARIANT_GEMM_VK_COOP64) return vk_coop_runs(dev, g);
    if (kk->variant == HCL_KVARIANT_GEMM_VK_SIMT128 && g->ab_type == HCL_DTYPE_BF16) return 0;
    if (kk->variant == HCL_KVARIANT_GEMM_VK_SIMT64) return 1;
    return !dev->is_cpu && groups * 4 >= hcl_known_or(dev->compute_units, 64) * 3;
}

/* HCL_SUCCESS when the device runs kernel kk for g (a 256-work-item group and its shared memory; the cooperative-matrix
 * kernel only f16 or bf16 inputs on a device with the matrix unit for them and sub-groups of 32), else the refusal in
 * out. */
static hcl_status vk_gemm_fits(const hcl_kdevice *dev, const hcl_kgemm *g, const vk_gemm_kernel *kk, hcl_kplan *out) {
    if (vk_is_coop(kk) && !vk_coop_runs(dev, g))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the cooperative-matrix gemm takes f16 or bf16 inputs on a device with "
                              "VK_KHR_cooperative_matrix for that type and sub-groups of 32, in a build with the "
                              "kernel (here %s inputs, %s for them, sub-groups of %u)",
                              hcl_kdtype_name(g->ab_type),
                              dev->matrix_unit == HCL_MATRIX_UNIT_TENSOR_CORE &&
                                      (dev->matrix_types & HCL_TYPE_BIT(g->ab_type))
                                  ? "the matrix unit"
                                  : "no matrix unit",
                              dev->subgroup_width);
    if (kk->variant == HCL_KVARIANT_GEMM_VK_GEMV && g->m > VK_GEMV_ROWS && g->n > VK_GEMV_ROWS)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the gemv kernel takes C of at most %d rows or %d columns (here %zu x %zu)", VK_GEMV_ROWS,
                              VK_GEMV_ROWS, g->m, g->n);
    if (hcl_known_or(dev->max_group_size, 256) >= 256 && hcl_known_or(dev->local_mem, UINT64_MAX) >= vk_gemm_shared(kk))
        return HCL_SUCCESS;
    return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                          "%s needs work-groups of 256 work-items and %llu bytes of shared memory; the device allows "
                          "%llu and %llu",
                          kk->base, (unsigned long long)vk_gemm_shared(kk), (unsigned long long)dev->max_group_size,
                          (unsigned long long)dev->local_mem);
}

/* The kernel of the variant forced for gemm, or the first the plan considers worth it that the device runs; NULL with
 * the refusal in out. */
static const vk_gemm_kernel *vk_gemm_choose(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    const hcl_kvariant forced = dev->variant[HCL_KOP_GEMM];
    for (size_t i = 0; i < sizeof g_vk_gemm / sizeof g_vk_gemm[0]; i++) {
        const vk_gemm_kernel *kk = &g_vk_gemm[i];
        if (forced != HCL_KVARIANT_AUTO ? forced != kk->variant : !vk_gemm_worth(dev, g, kk)) continue;
        if (vk_gemm_fits(dev, g, kk, out) == HCL_SUCCESS) return kk;
        if (forced != HCL_KVARIANT_AUTO) break;
    }
    return NULL; /* the last refusal is in out (the 64 x 64 tile's, unforced: the plan tries it last, always) */
}

/* The launches of kernel kk for g: one, or on a CPU device one per slice of k. */
static hcl_status vk_gemm_launches(const hcl_kdevice *dev, const hcl_kgemm *g, const vk_gemm_kernel *kk,
                                   hcl_kplan *out) {
    const int coop = vk_is_coop(kk);
    const hcl_kprog prog = coop ? HCL_KPROG_VK_COOP : vk_prog(g->ab_type);
    const int splitk = kk->variant == HCL_KVARIANT_GEMM_VK_SPLITK;
    const vk_splitk_tile *sk = vk_splitk_tile_of(g);
    char name[40];
    const int ta = g->trans_a != HCL_NO_TRANS, tb = g->trans_b != HCL_NO_TRANS;
    /* the cooperative-matrix kernels are one per transposition: "<base>_<nn|tn|nt|tt>_<type>[_f32]" */
    snprintf(name, sizeof name, "%s_%s%s%s", splitk ? sk->base : kk->base,
             !coop ? ""
             : ta  ? (tb ? "tt_" : "tn_")
             : tb  ? "nt_"
                   : "nn_",
             hcl_kdtype_name(g->ab_type), g->c_type != g->ab_type ? "_f32" : "");
    const int kernel = hcl_kplan_kernel(out, prog, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    size_t k = g->k;
    float alpha = g->alpha;
    if (k == 0 || alpha == 0.0f) k = 0, alpha = 0.0f; /* C = beta * C; A and B are not read */
    const size_t gx = hcl_ceil_div(g->n, splitk ? sk->tn : kk->bn), gy = hcl_ceil_div(g->m, splitk ? sk->tm : kk->bm);
    if (!vk_gemm_indexes_fit(g) || !fits_u32(g->k))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the Vulkan GEMM indexes with 32 bits: %zu x %zu x %zu with "
                              "leading dimensions %zu, %zu, %zu reach past 2^32 elements",
                              g->m, g->n, g->k, g->lda, g->ldb, g->ldc);
    if (gx > hcl_known_or(dev->max_groups[0], 65535) || gy > hcl_known_or(dev->max_groups[1], 65535))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "%zu x %zu tiles of C exceed the device's work-group "
                              "counts",
                              gx, gy);
    /* a CPU: launches of VK_GEMM_CPU_KSLICE k; the split-K kernel's of at most 16 slices of VK_KSLICE_CPU_K, fewer
     * where its partials would pass 16 MiB (so a forced call of many tiles keeps a bounded scratch) */
    size_t cpu_slice = VK_GEMM_CPU_KSLICE;
    if (splitk) {
        const size_t fit = ((size_t)1 << 22) / (gx * gy * sk->tm * sk->tn + 1);
        cpu_slice = VK_KSLICE_CPU_K * (fit < 1 ? 1 : fit > 16 ? 16 : fit);
    }
    const size_t slice = dev->is_cpu && k > cpu_slice ? cpu_slice : (k ? k : 1);
    const size_t slices = k ? hcl_ceil_div(k, slice) : 1;
    if (k >= ((size_t)1 << 30) && slices > 1)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "k %zu: the Vulkan GEMM's k slices start below 2^30", k);
    /* the split-K kernel: its slices of k within each launch (grid z); the first launch's k is the longest */
    const size_t kslices = splitk ? vk_splitk_slices(dev, g, hcl_min_size(k, slice)) : 1;
    if (kslices > 1 && hcl_ceil_div(hcl_min_size(k, slice), kslices) >= 1 << 30)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "k %zu: the Vulkan split-K GEMM's slices are below 2^30", k);
    const hcl_status st = hcl_kplan_init(out, slices);
    if (st != HCL_SUCCESS) return st;
    if (splitk) {
        /* a ticket a tile, then (with slices) a tile of float partials a tile and slice: zeros, left zeroed */
        out->scratch_bytes = gx * gy * (1 + (kslices > 1 ? kslices * sk->tm * sk->tn : 0)) * sizeof(float);
        out->scratch_zeroed = 1;
    }
    for (size_t s = 0; s < slices; s++) {
        hcl_klaunch *l = &out->launch[s];
        const size_t k0 = s * slice, k1 = hcl_min_size(k, k0 + slice);
        /* 16 x 16 work-items; the cooperative-matrix kernels' as 128 x 1 (128 x 128 tiles: 4 sub-groups of 64 x 64
         * blocks) or 256 x 1 (64 x 64 tiles), since they index only by invocation and sub-group (on the H200 the same
         * SPIR-V ran at 92.5 TFLOP/s as 256 x 1 and 69.0 as 16 x 16, 4096^3 f16) */
        hcl_klaunch_1d(l, prog, kernel, gx, !coop ? 16 : kk->variant == HCL_KVARIANT_GEMM_VK_COOP ? 128 : 256);
        l->grid.y = (uint32_t)gy;
        l->block.y = coop ? 1 : 16;
        l->grid.z = (uint32_t)(splitk ? vk_splitk_slices(dev, g, k1 - k0) : 1);
        hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
        hcl_klaunch_mem(l, HCL_KSLOT_B, 0);
        hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
        if (splitk) hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
        const uint32_t v[7] = {(uint32_t)g->m,
                               (uint32_t)g->n,
                               (uint32_t)k1,
                               (uint32_t)g->lda,
                               (uint32_t)g->ldb,
                               (uint32_t)g->ldc,
                               (uint32_t)(ta | tb << 1 | k0 << 2)};
        for (int i = 0; i < 7; i++) hcl_klaunch_u32(l, v[i]);
        hcl_klaunch_f32(l, alpha);
        hcl_klaunch_f32(l, s == 0 ? g->beta : 1.0f);
    }
    return HCL_SUCCESS;
}

/* The gemv kernel's launch (kernels/gemm/gemm_gemv.comp) for g: one dispatch of work-groups of 256 over (ranges of
 * out's columns) x (slices of k). out is C (rows = m <= 16, no more than n, X = op(A), W = op(B)) or, on swapped
 * operands, C^T (rows = n <= 16: X = op(B)^T, W = op(A)^T, binding 0 taking B and 1 taking A). The kernel of MR rows,
 * the smallest of 1, 2, 4, 8, 16 that holds them; W along out's columns (n: B, or a transposed A, row-major) or along k
 * (t). Slices of k, multiples of 64, as vk_kslices sizes them over the column ranges, so one slice (C written
 * directly, no scratch: binding 3 is C again, untouched) where the ranges alone fill a GPU; on a CPU longer where the
 * partials would pass 16 MiB. From the shape and device only: the same call adds in the same order
 * every run. */
static hcl_status vk_gemv_launches(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    const int swap = vk_gemv_swap(g);
    const int ta = g->trans_a != HCL_NO_TRANS, tb = g->trans_b != HCL_NO_TRANS;
    const size_t rows = swap ? g->n : g->m, cols = swap ? g->m : g->n;
    const int along_k = swap ? !ta : tb; /* W stored along k */
    size_t mr = 1;
    while (mr < rows) mr *= 2;
    const size_t vn = vk_word_elems(g->ab_type);
    const size_t gc = along_k ? 32 : 32 * (mr * vn > 64 ? vn / 2 : vn); /* the shader's GC */
    const hcl_kprog prog = vk_prog(g->ab_type);
    char name[48];
    snprintf(name, sizeof name, "hcl_gemm_gemv_%c%zu_%s%s", along_k ? 't' : 'n', mr, hcl_kdtype_name(g->ab_type),
             g->c_type != g->ab_type ? "_f32" : "");
    const int kernel = hcl_kplan_kernel(out, prog, name);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    size_t k = g->k;
    float alpha = g->alpha;
    if (k == 0 || alpha == 0.0f) k = 0, alpha = 0.0f; /* C = beta * C; A and B are not read */
    if (!vk_gemm_indexes_fit(g) || k >= VK_KSLICE_MAX_K)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the Vulkan gemv indexes with 32 bits and takes k below 2^31: %zu x %zu x %zu with "
                              "leading dimensions %zu, %zu, %zu",
                              g->m, g->n, g->k, g->lda, g->ldb, g->ldc);
    const size_t tiles = hcl_ceil_div(cols, gc);
    if (tiles > hcl_known_or(dev->max_groups[0], 65535))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "%zu ranges of %zu columns exceed the device's work-groups",
                              tiles, gc);
    size_t slices = k ? vk_kslices(dev, tiles, k, dev->max_groups[1]) : 1;
    if (dev->is_cpu) {
        const size_t most = ((size_t)1 << 22) / (tiles * mr * gc); /* 16 MiB of partials */
        slices = hcl_min_size(slices, most ? most : 1);
    }
    /* slices of whole multiples of VK_GEMV_SLICE, none empty */
    const size_t kslice = slices > 1 ? hcl_ceil_div(hcl_ceil_div(k, slices), VK_GEMV_SLICE) * VK_GEMV_SLICE : k;
    if (kslice) slices = hcl_ceil_div(k, kslice);
    hcl_status st = hcl_kplan_init(out, 1);
    if (st != HCL_SUCCESS) return st;
    if (slices > 1) { /* a ticket a column range, then its slices' partials: zeros, left zeroed */
        out->scratch_bytes = tiles * (1 + slices * mr * gc) * sizeof(float);
        out->scratch_zeroed = 1;
    }
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, prog, kernel, tiles, 256);
    l->grid.y = (uint32_t)slices;
    hcl_klaunch_mem(l, swap ? HCL_KSLOT_B : HCL_KSLOT_A, 0); /* X */
    hcl_klaunch_mem(l, swap ? HCL_KSLOT_A : HCL_KSLOT_B, 0); /* W */
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_mem(l, slices > 1 ? HCL_KSLOT_SCRATCH : HCL_KSLOT_C, 0);
    /* X(r, p) at r * x_r + p * x_p; out(r, j) at r * c_r + j * c_j */
    const size_t x_r = swap ? (tb ? g->ldb : 1) : (ta ? 1 : g->lda), x_p = swap ? (tb ? 1 : g->ldb) : (ta ? g->lda : 1);
    const uint32_t v[9] = {(uint32_t)rows,
                           (uint32_t)cols,
                           (uint32_t)k,
                           (uint32_t)kslice,
                           (uint32_t)x_r,
                           (uint32_t)x_p,
                           (uint32_t)(swap ? g->lda : g->ldb),
                           (uint32_t)(swap ? 1 : g->ldc),
                           (uint32_t)(swap ? g->ldc : 1)};
    for (int i = 0; i < 9; i++) hcl_klaunch_u32(l, v[i]);
    hcl_klaunch_f32(l, alpha);
    hcl_klaunch_f32(l, g->beta);
    return HCL_SUCCESS;
}

hcl_status hcl__plan_gemm_vk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    if (g->compute == HCL_COMPUTE_TF32)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the Vulkan kernels have no TF32 GEMM");
    const vk_gemm_kernel *kk = vk_gemm_choose(dev, g, out);
    if (!kk) return hcl_kvariant_settle(dev, HCL_KOP_GEMM, dev->variant[HCL_KOP_GEMM], HCL_ERROR_UNSUPPORTED, out);
    const hcl_status st =
        kk->variant == HCL_KVARIANT_GEMM_VK_GEMV ? vk_gemv_launches(dev, g, out) : vk_gemm_launches(dev, g, kk, out);
    return hcl_kvariant_settle(dev, HCL_KOP_GEMM, kk->variant, st, out);
}
