/* Launch plans of the built-in kernels (see plan.h): the work-group geometry and the arguments, from the device's
 * limits alone. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SPIR-V modules, embedded at build time (cmake/HclSpirv.cmake, then cmake/HclEmbed.cmake). */
extern const unsigned char hcl_ze_spv_vecadd[];
extern const size_t hcl_ze_spv_vecadd_size;
extern const unsigned char hcl_ze_spv_gemm16[];
extern const size_t hcl_ze_spv_gemm16_size;
extern const unsigned char hcl_ze_spv_gemm8[];
extern const size_t hcl_ze_spv_gemm8_size;
extern const unsigned char hcl_ze_spv_softmax[];
extern const size_t hcl_ze_spv_softmax_size;
extern const unsigned char hcl_ze_spv_reduce[];
extern const size_t hcl_ze_spv_reduce_size;
extern const unsigned char hcl_ze_spv_fill[];
extern const size_t hcl_ze_spv_fill_size;

const hcl__ze_module_def hcl__ze_modules[HCL_ZE_MOD_COUNT] = {
    [HCL_ZE_MOD_VECADD] = {"vecadd", "kernels/vecadd/vecadd.cl", hcl_ze_spv_vecadd, &hcl_ze_spv_vecadd_size,
                           {"hcl_vecadd_f32"}},
    [HCL_ZE_MOD_GEMM16] = {"gemm16", "kernels/gemm/gemm.cl -DHCL_GEMM_WG=16 -DHCL_GEMM_PREFETCH=1", hcl_ze_spv_gemm16,
                           &hcl_ze_spv_gemm16_size,
                           {"hcl_gemm_nn_f32", "hcl_gemm_nt_f32", "hcl_gemm_tn_f32", "hcl_gemm_tt_f32"}},
    [HCL_ZE_MOD_GEMM8] = {"gemm8", "kernels/gemm/gemm.cl -DHCL_GEMM_WG=8 -DHCL_GEMM_PREFETCH=0", hcl_ze_spv_gemm8,
                          &hcl_ze_spv_gemm8_size,
                          {"hcl_gemm_nn_f32", "hcl_gemm_nt_f32", "hcl_gemm_tn_f32", "hcl_gemm_tt_f32"}},
    [HCL_ZE_MOD_SOFTMAX] = {"softmax", "kernels/softmax/softmax.cl", hcl_ze_spv_softmax, &hcl_ze_spv_softmax_size,
                            {"hcl_softmax_f32", "hcl_softmax_cached_f32"}},
    [HCL_ZE_MOD_REDUCE] = {"reduce", "kernels/reduce/reduce.cl", hcl_ze_spv_reduce, &hcl_ze_spv_reduce_size,
                           {"hcl_reduce_sum_f32", "hcl_reduce_max_f32", "hcl_reduce_min_f32"}},
    [HCL_ZE_MOD_FILL] = {"fill", "drivers/levelzero/fill.cl", hcl_ze_spv_fill, &hcl_ze_spv_fill_size,
                         {"hcl_fill_u32", "hcl_fill_u8"}},
};

/* ---------------------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------------------- */
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static size_t pow2_floor(size_t v) {
    size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}

/* A limit the runtime did not give (0) does not limit. */
static uint64_t known_or(uint64_t v, uint64_t otherwise) { return v ? v : otherwise; }

static uint64_t kernel_max(const hcl__ze_kernel_limits *kl, int kernel) {
    return kl ? kl->max_group_size[kernel] : 0;
}

static uint32_t max_groups_x(const hcl__ze_limits *lim) { return lim->max_group_count[0] ? lim->max_group_count[0] : UINT32_MAX; }

static hcl_status plan_init(hcl__ze_plan *p, size_t count, char *why, size_t why_size) {
    memset(p, 0, sizeof *p);
    p->launch = p->inline_launch;
    if (count > sizeof p->inline_launch / sizeof p->inline_launch[0]) {
        p->launch = calloc(count, sizeof *p->launch);
        if (!p->launch) {
            p->launch = p->inline_launch;
            snprintf(why, why_size, "out of host memory for a plan of %zu launches", count);
            return HCL_ERROR_OUT_OF_MEMORY;
        }
    }
    p->count = count;
    return HCL_SUCCESS;
}

void hcl__ze_plan_free(hcl__ze_plan *plan) {
    if (plan && plan->launch && plan->launch != plan->inline_launch) free(plan->launch);
    if (plan) {
        plan->launch = plan->inline_launch;
        plan->count = 0;
    }
}

static void launch_1d(hcl__ze_launch *l, int module, int kernel, size_t groups, size_t group_size) {
    l->module = module;
    l->kernel = kernel;
    l->groups[0] = (uint32_t)groups;
    l->groups[1] = l->groups[2] = 1;
    l->group_size[0] = (uint32_t)group_size;
    l->group_size[1] = l->group_size[2] = 1;
    l->num_args = 0;
}

static void arg_mem(hcl__ze_launch *l, int slot, size_t offset) {
    hcl__ze_parg *a = &l->args[l->num_args++];
    a->kind = HCL_ZE_PARG_MEM;
    a->slot = slot;
    a->offset = offset;
    a->size = sizeof(void *);
}

static void arg_value(hcl__ze_launch *l, const void *value, size_t size) {
    hcl__ze_parg *a = &l->args[l->num_args++];
    a->kind = HCL_ZE_PARG_VALUE;
    a->size = size;
    memcpy(a->value, value, size);
}

static void arg_u64(hcl__ze_launch *l, uint64_t v) { arg_value(l, &v, sizeof v); }
static void arg_f32(hcl__ze_launch *l, float v) { arg_value(l, &v, sizeof v); }
static void arg_u32(hcl__ze_launch *l, uint32_t v) { arg_value(l, &v, sizeof v); }

static void arg_local(hcl__ze_launch *l, size_t size) {
    hcl__ze_parg *a = &l->args[l->num_args++];
    a->kind = HCL_ZE_PARG_LOCAL;
    a->size = size;
}

/* The largest work-group for a kernel that needs a float of local memory per work-item: at most 1024, within the
 * kernel's and the device's limits and local memory, a multiple of 32 where it can be. */
static size_t group_limit(const hcl__ze_limits *lim, uint64_t kmax) {
    size_t g = (size_t)min_size(min_size(1024, known_or(kmax, 1024)), known_or(lim->max_group_size, 1024));
    while (g > 1 && lim->local_mem && g * sizeof(float) > lim->local_mem) g /= 2;
    if (g >= 32) g -= g % 32;
    return g > 0 ? g : 1;
}

/* ---------------------------------------------------------------------------------------------------------
 * vecadd: float4 groups, grid-stride (kernels/vecadd/vecadd.cl)
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_plan_vecadd(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t n,
                               hcl__ze_plan *out, char *why, size_t why_size) {
    hcl_status st = plan_init(out, 1, why, why_size);
    if (st != HCL_SUCCESS) return st;
    size_t wg = pow2_floor(min_size(min_size(256, known_or(kernel_max(kl, 0), 256)), known_or(lim->max_group_size, 256)));
    size_t items = n / 4 > 0 ? n / 4 : 1;
    size_t groups = min_size((items + wg - 1) / wg, (size_t)1 << 18); /* past that, work-items stride */
    groups = min_size(groups, max_groups_x(lim));
    hcl__ze_launch *l = &out->launch[0];
    launch_1d(l, HCL_ZE_MOD_VECADD, 0, groups, wg);
    arg_mem(l, HCL_ZE_SLOT_A, 0);
    arg_mem(l, HCL_ZE_SLOT_B, 0);
    arg_mem(l, HCL_ZE_SLOT_C, 0);
    arg_u64(l, n);
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * gemm: a WG x WG work-group per 8*WG square tile of C (kernels/gemm/gemm.cl), WG fixed per SPIR-V module
 * ------------------------------------------------------------------------------------------------------- */
static int gemm_wg(int module) { return module == HCL_ZE_MOD_GEMM16 ? 16 : 8; }

/* two k-major 16 x (8*WG + 4) float tiles */
static uint64_t gemm_local_bytes(int wg) { return 2u * 16u * (8u * (uint64_t)wg + 4u) * sizeof(float); }

static int gemm_fits(const hcl__ze_limits *lim, int wg) {
    uint64_t items = (uint64_t)wg * (uint64_t)wg;
    return (!lim->max_group_size || items <= lim->max_group_size) &&
           (!lim->local_mem || gemm_local_bytes(wg) <= lim->local_mem);
}

/* GPU: 16 x 16 work-items, 128 x 128 tiles, the next step prefetched (the OpenCL driver's GPU shape). CPU: 8 x 8
 * work-items, no prefetch (fastest on PoCL, see drivers/opencl/kernels.c); also GPUs too small for 16 x 16. */
hcl_status hcl__ze_gemm_module(const hcl__ze_limits *lim, int *out_module, char *why, size_t why_size) {
    if (!lim->is_cpu && gemm_fits(lim, 16)) {
        *out_module = HCL_ZE_MOD_GEMM16;
        return HCL_SUCCESS;
    }
    if (gemm_fits(lim, 8)) {
        *out_module = HCL_ZE_MOD_GEMM8;
        return HCL_SUCCESS;
    }
    snprintf(why, why_size,
             "the built-in gemm needs work-groups of 64 work-items and %llu bytes of local memory; the device "
             "allows %llu work-items and %llu bytes",
             (unsigned long long)gemm_local_bytes(8), (unsigned long long)lim->max_group_size,
             (unsigned long long)lim->local_mem);
    return HCL_ERROR_UNSUPPORTED;
}

hcl_status hcl__ze_plan_gemm(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, int module,
                             const hcl_gemm_args *g, hcl__ze_plan *out, char *why, size_t why_size) {
    const int which = (g->trans_a == HCL_TRANS ? 2 : 0) + (g->trans_b == HCL_TRANS ? 1 : 0);
    const size_t wg = (size_t)gemm_wg(module), tile = 8 * wg;
    uint64_t kmax = kernel_max(kl, which);
    if (kmax && kmax < wg * wg) {
        snprintf(why, why_size, "built-in '%s' of module %s needs work-groups of %zu work-items; the runtime allows %llu",
                 hcl__ze_modules[module].kernels[which], hcl__ze_modules[module].name, wg * wg,
                 (unsigned long long)kmax);
        return HCL_ERROR_UNSUPPORTED;
    }
    size_t gx = (g->n + tile - 1) / tile, gy = (g->m + tile - 1) / tile;
    uint32_t mx = lim->max_group_count[0] ? lim->max_group_count[0] : UINT32_MAX;
    uint32_t my = lim->max_group_count[1] ? lim->max_group_count[1] : UINT32_MAX;
    if (gx > mx || gy > my) {
        snprintf(why, why_size, "gemm %zu x %zu needs %zu x %zu work-groups; the device allows %u x %u", g->m, g->n, gx,
                 gy, mx, my);
        return HCL_ERROR_UNSUPPORTED;
    }
    hcl_status st = plan_init(out, 1, why, why_size);
    if (st != HCL_SUCCESS) return st;
    /* BLAS: with k or alpha 0, A and B are not read and C = beta * C */
    const int no_product = g->k == 0 || g->alpha == 0.0f;
    hcl__ze_launch *l = &out->launch[0];
    launch_1d(l, module, which, gx, wg);
    l->groups[1] = (uint32_t)gy;
    l->group_size[1] = (uint32_t)wg;
    arg_u64(l, g->m);
    arg_u64(l, g->n);
    arg_u64(l, no_product ? 0 : g->k);
    arg_f32(l, no_product ? 0.0f : g->alpha);
    arg_mem(l, HCL_ZE_SLOT_A, 0);
    arg_u64(l, g->lda);
    arg_mem(l, HCL_ZE_SLOT_B, 0);
    arg_u64(l, g->ldb);
    arg_f32(l, g->beta);
    arg_mem(l, HCL_ZE_SLOT_C, 0);
    arg_u64(l, g->ldc);
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * softmax: one work-group per row, in batches of rows within the device's group count
 * ------------------------------------------------------------------------------------------------------- */
/* GPU: rows of up to 16 columns per work-item of the largest group take the cached kernel with just enough
 * work-items (a multiple of 32); wider rows the streamed kernel with the largest group, coalesced (chunk 1).
 * CPU: the streamed kernel, one work-item per row over the whole row. (The OpenCL driver's choices, measured
 * there on an H100 and on PoCL.) */
hcl_status hcl__ze_plan_softmax(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t rows,
                                size_t cols, hcl__ze_plan *out, char *why, size_t why_size) {
    int which = 0;
    size_t wg = 1, chunk = cols;
    if (!lim->is_cpu) {
        size_t max_cached = group_limit(lim, kernel_max(kl, 1));
        size_t max_streamed = group_limit(lim, kernel_max(kl, 0));
        chunk = 1;
        if (cols <= 16 * max_cached) {
            which = 1;
            wg = ((cols + 15) / 16 + 31) / 32 * 32;
            if (wg > max_cached) wg = max_cached;
        } else {
            wg = max_streamed;
        }
    }
    size_t batch = max_groups_x(lim);
    size_t count = (rows + batch - 1) / batch;
    hcl_status st = plan_init(out, count, why, why_size);
    if (st != HCL_SUCCESS) return st;
    for (size_t i = 0; i < count; i++) {
        size_t r0 = i * batch;
        hcl__ze_launch *l = &out->launch[i];
        launch_1d(l, HCL_ZE_MOD_SOFTMAX, which, min_size(batch, rows - r0), wg);
        arg_mem(l, HCL_ZE_SLOT_A, 0);
        arg_mem(l, HCL_ZE_SLOT_C, 0);
        arg_u64(l, r0);
        arg_u64(l, cols);
        arg_u64(l, chunk);
        arg_local(l, wg * sizeof(float));
    }
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * reduce: a fixed number of groups (from n and the device only, so the order and the bits are always the same),
 * then one group over their partials
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_plan_reduce(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, hcl_reduce_op op,
                               size_t n, hcl__ze_plan *out, char *why, size_t why_size) {
    const int which = op == HCL_REDUCE_MAX ? 1 : op == HCL_REDUCE_MIN ? 2 : 0;
    /* 8 groups per compute unit; 64 when the runtime does not say how many it has */
    size_t max_groups = lim->compute_units ? (size_t)lim->compute_units * 8 : 64;
    if (max_groups > 1024) max_groups = 1024;
    max_groups = min_size(max_groups, max_groups_x(lim));
    size_t wg = pow2_floor(min_size(min_size(lim->is_cpu ? 16 : 256, known_or(kernel_max(kl, which), 256)),
                                    known_or(lim->max_group_size, 256)));
    while (wg > 1 && lim->local_mem && wg * sizeof(float) > lim->local_mem) wg /= 2;
    size_t groups = min_size((n + wg - 1) / wg, max_groups);
    /* GPU: coalesced, chunk 1 (float4 loads); CPU: one contiguous run per work-item */
    size_t chunk1 = lim->is_cpu ? (n + groups * wg - 1) / (groups * wg) : 1;
    size_t chunk2 = lim->is_cpu ? (groups + wg - 1) / wg : 1;
    hcl_status st = plan_init(out, groups > 1 ? 2 : 1, why, why_size);
    if (st != HCL_SUCCESS) return st;
    hcl__ze_launch *l = &out->launch[0];
    launch_1d(l, HCL_ZE_MOD_REDUCE, which, groups, wg);
    arg_mem(l, HCL_ZE_SLOT_A, 0);
    arg_mem(l, groups > 1 ? HCL_ZE_SLOT_SCRATCH : HCL_ZE_SLOT_C, 0);
    arg_u64(l, n);
    arg_u64(l, chunk1);
    arg_local(l, wg * sizeof(float));
    if (groups > 1) {
        out->scratch_bytes = max_groups * sizeof(float);
        l = &out->launch[1];
        launch_1d(l, HCL_ZE_MOD_REDUCE, which, 1, wg);
        arg_mem(l, HCL_ZE_SLOT_SCRATCH, 0);
        arg_mem(l, HCL_ZE_SLOT_C, 0);
        arg_u64(l, groups);
        arg_u64(l, chunk2);
        arg_local(l, wg * sizeof(float));
    }
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * fill (drivers/levelzero/fill.cl): words for patterns of 4 bytes and more, bytes for 1 and 2
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_plan_fill(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t offset,
                             size_t size, const void *pattern, size_t pattern_size, hcl__ze_plan *out, char *why,
                             size_t why_size) {
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)) != 0 ||
        offset % pattern_size != 0 || size % pattern_size != 0) {
        snprintf(why, why_size, "fill: pattern of %zu bytes at offset %zu, size %zu: not a power of two up to 128 "
                 "dividing both", pattern_size, offset, size);
        return HCL_ERROR_INVALID_ARGUMENT;
    }
    const int words = pattern_size >= 4;
    const int which = words ? 0 : 1;
    size_t count = words ? size / 4 : size;
    uint32_t period = (uint32_t)(words ? pattern_size / 4 : pattern_size);
    size_t wg = pow2_floor(min_size(min_size(256, known_or(kernel_max(kl, which), 256)), known_or(lim->max_group_size, 256)));
    size_t groups = min_size(min_size((count + wg - 1) / wg, (size_t)1 << 16), max_groups_x(lim));
    hcl_status st = plan_init(out, 1, why, why_size);
    if (st != HCL_SUCCESS) return st;
    _Alignas(16) unsigned char bytes[128];
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, pattern, pattern_size);
    hcl__ze_launch *l = &out->launch[0];
    launch_1d(l, HCL_ZE_MOD_FILL, which, groups, wg);
    arg_mem(l, HCL_ZE_SLOT_C, offset);
    arg_u64(l, count);
    arg_value(l, bytes, 64);
    arg_value(l, bytes + 64, 64);
    arg_u32(l, period);
    return HCL_SUCCESS;
}
