/* Launch plans of the driver's helper kernels (see plan.h): the work-group geometry and the arguments, from the
 * device's limits alone. */
#include "plan.h"

#include <stdio.h>
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

/* ---------------------------------------------------------------------------------------------------------
 * fill (drivers/levelzero/fill.cl): words for patterns of 4 bytes and more, bytes for 1 and 2
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_plan_fill(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, hcl__ze_fill_plan *out, char *why,
                             size_t why_size) {
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)) != 0 ||
        offset % pattern_size != 0 || size % pattern_size != 0) {
        snprintf(why, why_size,
                 "fill: pattern of %zu bytes at offset %zu, size %zu: not a power of two up to 128 "
                 "dividing both",
                 pattern_size, offset, size);
        return HCL_ERROR_INVALID_ARGUMENT;
    }
    const int words = pattern_size >= 4;
    memset(out, 0, sizeof *out);
    out->kernel = words ? 0 : 1;
    out->count = words ? size / 4 : size;
    out->period = (uint32_t)(words ? pattern_size / 4 : pattern_size);
    size_t wg = pow2_floor(
        min_size(min_size(256, known_or(kernel_max(kl, out->kernel), 256)), known_or(lim->max_group_size, 256)));
    size_t groups = min_size(min_size(((size_t)out->count + wg - 1) / wg, (size_t)1 << 16), max_groups_x(lim));
    out->groups = (uint32_t)groups;
    out->group_size = (uint32_t)wg;
    out->offset = offset;
    memcpy(out->pattern, pattern, pattern_size);
    return HCL_SUCCESS;
}
