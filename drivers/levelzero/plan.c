/* Launch plans of the driver's helper kernels (see plan.h): the work-group geometry and the arguments, from the
 * device's limits alone. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SPIR-V of fill.cl, embedded at build time (cmake/HclSpirv.cmake, then cmake/HclEmbed.cmake). */
extern const unsigned char hcl_ze_spv_fill[];
extern const size_t hcl_ze_spv_fill_size;

const hcl__ze_helper_def hcl__ze_helpers[HCL_ZE_HELPER_COUNT] = {
    [HCL_ZE_HELPER_FILL] =
        {"fill", "drivers/levelzero/fill.cl", hcl_ze_spv_fill, &hcl_ze_spv_fill_size, {"hcl_fill_u32", "hcl_fill_u8"}},
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

static uint64_t kernel_max(const hcl__ze_kernel_limits *kl, int kernel) { return kl ? kl->max_group_size[kernel] : 0; }

static uint32_t max_groups_x(const hcl__ze_limits *lim) {
    return lim->max_group_count[0] ? lim->max_group_count[0] : UINT32_MAX;
}

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

static void launch_1d(hcl__ze_launch *l, int helper, int kernel, size_t groups, size_t group_size) {
    l->helper = helper;
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
static void arg_u32(hcl__ze_launch *l, uint32_t v) { arg_value(l, &v, sizeof v); }

/* ---------------------------------------------------------------------------------------------------------
 * fill (drivers/levelzero/fill.cl): words for patterns of 4 bytes and more, bytes for 1 and 2
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_plan_fill(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, hcl__ze_plan *out, char *why, size_t why_size) {
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)) != 0 ||
        offset % pattern_size != 0 || size % pattern_size != 0) {
        snprintf(why, why_size,
                 "fill: pattern of %zu bytes at offset %zu, size %zu: not a power of two up to 128 "
                 "dividing both",
                 pattern_size, offset, size);
        return HCL_ERROR_INVALID_ARGUMENT;
    }
    const int words = pattern_size >= 4;
    const int which = words ? 0 : 1;
    size_t count = words ? size / 4 : size;
    uint32_t period = (uint32_t)(words ? pattern_size / 4 : pattern_size);
    size_t wg =
        pow2_floor(min_size(min_size(256, known_or(kernel_max(kl, which), 256)), known_or(lim->max_group_size, 256)));
    size_t groups = min_size(min_size((count + wg - 1) / wg, (size_t)1 << 16), max_groups_x(lim));
    hcl_status st = plan_init(out, 1, why, why_size);
    if (st != HCL_SUCCESS) return st;
    _Alignas(16) unsigned char bytes[128];
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, pattern, pattern_size);
    hcl__ze_launch *l = &out->launch[0];
    launch_1d(l, HCL_ZE_HELPER_FILL, which, groups, wg);
    arg_mem(l, HCL_ZE_SLOT_DST, offset);
    arg_u64(l, count);
    arg_value(l, bytes, 64);
    arg_value(l, bytes + 64, 64);
    arg_u32(l, period);
    return HCL_SUCCESS;
}
