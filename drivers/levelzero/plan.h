/* Launch plans of the Level Zero driver's own helper kernels (today one program, fill.cl: fills with patterns the
 * runtime's zeCommandListAppendMemoryFill does not take, and markers): which kernel, how many work-groups of what
 * size, and every argument, for a device with given limits.
 *
 * Plain C with no Level Zero call, so that the round-trip test (test_fill_roundtrip.c) runs the very same launches
 * on PoCL, through OpenCL, that the driver appends to a Level Zero command list (helpers.c): the arguments are
 * proven by the test, not copied into it. The built-in kernels are not the driver's: the core plans and launches
 * them (kernels/hcl_plan.h). */
#ifndef HCL_LEVELZERO_PLAN_H
#define HCL_LEVELZERO_PLAN_H

#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdint.h>

/* ---- the embedded SPIR-V programs of the helper kernels ---- */
enum {
    HCL_ZE_HELPER_FILL, /* drivers/levelzero/fill.cl */
    HCL_ZE_HELPER_COUNT
};
#define HCL_ZE_HELPER_MAX_KERNELS 2

typedef struct hcl__ze_helper_def {
    const char *name;   /* "fill" */
    const char *origin; /* the source it was built from, for messages */
    const unsigned char *spirv;
    const size_t *spirv_size;
    const char *kernels[HCL_ZE_HELPER_MAX_KERNELS]; /* NULL-terminated when fewer */
} hcl__ze_helper_def;

extern const hcl__ze_helper_def hcl__ze_helpers[HCL_ZE_HELPER_COUNT];

/* ---- what a plan needs to know of the device; 0 means the runtime did not say ---- */
typedef struct hcl__ze_limits {
    int is_cpu;
    uint64_t max_group_size;     /* work-items per group */
    uint64_t local_mem;          /* bytes of local memory per group */
    uint32_t max_group_count[3]; /* work-groups per launch, per dimension */
    uint32_t compute_units;
} hcl__ze_limits;

/* Per-kernel work-group limits of a helper program (0: unknown), as the runtime reports them once it built it. */
typedef struct hcl__ze_kernel_limits {
    uint64_t max_group_size[HCL_ZE_HELPER_MAX_KERNELS];
} hcl__ze_kernel_limits;

/* ---- the fill plan: one 1-D launch of one kernel of fill.cl ---- */
/* The launch of kernel `kernel` (index into hcl__ze_helpers[HCL_ZE_HELPER_FILL].kernels) on `groups` work-groups of
 * `group_size` work-items, with the arguments of fill.cl in order: the destination plus `offset` bytes, `count`,
 * the pattern as two 64-byte vectors (`pattern`), `period`. */
typedef struct hcl__ze_fill_plan {
    int kernel;
    uint32_t groups;
    uint32_t group_size;
    size_t offset;
    uint64_t count;
    _Alignas(16) unsigned char pattern[128];
    uint32_t period;
} hcl__ze_fill_plan;

/* Fill `size` bytes (> 0) of the destination from byte `offset` with a pattern of 1..128 bytes (a power of two;
 * offset and size multiples of it). Returns HCL_SUCCESS or HCL_ERROR_INVALID_ARGUMENT, with the reason in `why`.
 * `kl` may be NULL (limits unknown). */
hcl_status hcl__ze_plan_fill(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, hcl__ze_fill_plan *out, char *why,
                             size_t why_size);

#endif /* HCL_LEVELZERO_PLAN_H */
