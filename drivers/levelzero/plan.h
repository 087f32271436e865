/* Launch plans of the Level Zero driver's own helper kernels (today one program, fill.cl: fills with patterns the
 * runtime's zeCommandListAppendMemoryFill does not take, and markers): which SPIR-V program and kernel, how many
 * work-groups of what size, and every argument, for a device with given limits.
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

/* ---- a plan ---- */
/* Memory a launch refers to, by role: the caller maps the roles to its own pointers (or cl_mems). */
enum {
    HCL_ZE_SLOT_DST, /* the fill's destination */
    HCL_ZE_SLOT_COUNT
};

typedef enum hcl__ze_parg_kind {
    HCL_ZE_PARG_MEM = 1,  /* a pointer: slot `slot` plus `offset` bytes */
    HCL_ZE_PARG_VALUE = 2 /* `size` bytes of `value` */
} hcl__ze_parg_kind;

#define HCL_ZE_PARG_VALUE_MAX 64
#define HCL_ZE_LAUNCH_MAX_ARGS 8

typedef struct hcl__ze_parg {
    hcl__ze_parg_kind kind;
    int slot;
    size_t offset;
    size_t size;
    _Alignas(16) unsigned char value[HCL_ZE_PARG_VALUE_MAX];
} hcl__ze_parg;

typedef struct hcl__ze_launch {
    int helper;             /* HCL_ZE_HELPER_* */
    int kernel;             /* index into hcl__ze_helpers[helper].kernels */
    uint32_t groups[3];     /* work-groups */
    uint32_t group_size[3]; /* work-items per group */
    uint32_t num_args;
    hcl__ze_parg args[HCL_ZE_LAUNCH_MAX_ARGS];
} hcl__ze_launch;

/* The launches of one helper command, in order; each must complete before the next starts. */
typedef struct hcl__ze_plan {
    size_t count;
    hcl__ze_launch *launch; /* points to `inline_launch` or to the heap */
    hcl__ze_launch inline_launch[1];
} hcl__ze_plan;

/* Per-kernel work-group limits of a helper program (0: unknown), as the runtime reports them once it built it. */
typedef struct hcl__ze_kernel_limits {
    uint64_t max_group_size[HCL_ZE_HELPER_MAX_KERNELS];
} hcl__ze_kernel_limits;

/* Fill `size` bytes (> 0) of the destination slot from byte `offset` with a pattern of 1..128 bytes (a power of
 * two; offset and size multiples of it). Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT or
 * HCL_ERROR_OUT_OF_MEMORY, with the reason in `why`; a successful plan is freed with hcl__ze_plan_free. `kl` may be
 * NULL (limits unknown). */
hcl_status hcl__ze_plan_fill(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, hcl__ze_plan *out, char *why, size_t why_size);
void hcl__ze_plan_free(hcl__ze_plan *plan);

#endif /* HCL_LEVELZERO_PLAN_H */
