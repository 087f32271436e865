/* Launch plans of the Level Zero built-in kernels: which SPIR-V module and kernel, how many work-groups of what
 * size, and every argument, for one built-in call on a device with given limits.
 *
 * Plain C with no Level Zero call, so that the round-trip test (test_roundtrip.c) runs the very same launches on
 * PoCL, through OpenCL, that the driver appends to a Level Zero command list (kernels.c): the arguments are
 * proven by the test, not copied into it. The geometry follows the OpenCL driver's (drivers/opencl/kernels.c),
 * since the kernels are the same OpenCL C sources. */
#ifndef HCL_LEVELZERO_PLAN_H
#define HCL_LEVELZERO_PLAN_H

#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdint.h>

/* ---- the embedded SPIR-V modules (one per kernel source and build variant) ---- */
enum {
    HCL_ZE_MOD_VECADD,  /* kernels/vecadd/vecadd.cl */
    HCL_ZE_MOD_GEMM16,  /* kernels/gemm/gemm.cl, 16 x 16 work-items, 128 x 128 tiles, prefetch (GPUs) */
    HCL_ZE_MOD_GEMM8,   /* kernels/gemm/gemm.cl, 8 x 8 work-items, 64 x 64 tiles, no prefetch (CPUs, small GPUs) */
    HCL_ZE_MOD_SOFTMAX, /* kernels/softmax/softmax.cl */
    HCL_ZE_MOD_REDUCE,  /* kernels/reduce/reduce.cl */
    HCL_ZE_MOD_FILL,    /* drivers/levelzero/fill.cl */
    HCL_ZE_MOD_COUNT
};
#define HCL_ZE_MOD_MAX_KERNELS 4

typedef struct hcl__ze_module_def {
    const char *name;   /* "gemm16" */
    const char *origin; /* the source and defines it was built from, for messages */
    const unsigned char *spirv;
    const size_t *spirv_size;
    const char *kernels[HCL_ZE_MOD_MAX_KERNELS]; /* NULL-terminated when fewer */
} hcl__ze_module_def;

extern const hcl__ze_module_def hcl__ze_modules[HCL_ZE_MOD_COUNT];

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
    HCL_ZE_SLOT_A,       /* vecadd a, gemm A, softmax in, reduce in */
    HCL_ZE_SLOT_B,       /* vecadd b, gemm B */
    HCL_ZE_SLOT_C,       /* vecadd c, gemm C, softmax out, reduce out, fill destination */
    HCL_ZE_SLOT_SCRATCH, /* reduce partials (hcl__ze_plan.scratch_bytes) */
    HCL_ZE_SLOT_COUNT
};

typedef enum hcl__ze_parg_kind {
    HCL_ZE_PARG_MEM = 1,   /* a pointer: slot `slot` plus `offset` bytes */
    HCL_ZE_PARG_VALUE = 2, /* `size` bytes of `value` */
    HCL_ZE_PARG_LOCAL = 3  /* `size` bytes of local memory (a __local pointer parameter) */
} hcl__ze_parg_kind;

#define HCL_ZE_PARG_VALUE_MAX 64
#define HCL_ZE_LAUNCH_MAX_ARGS 12

typedef struct hcl__ze_parg {
    hcl__ze_parg_kind kind;
    int slot;
    size_t offset;
    size_t size;
    _Alignas(16) unsigned char value[HCL_ZE_PARG_VALUE_MAX];
} hcl__ze_parg;

typedef struct hcl__ze_launch {
    int module;             /* HCL_ZE_MOD_* */
    int kernel;             /* index into hcl__ze_modules[module].kernels */
    uint32_t groups[3];     /* work-groups */
    uint32_t group_size[3]; /* work-items per group */
    uint32_t num_args;
    hcl__ze_parg args[HCL_ZE_LAUNCH_MAX_ARGS];
} hcl__ze_launch;

/* The launches of one built-in call, in order; each must complete before the next starts. */
typedef struct hcl__ze_plan {
    size_t count;
    hcl__ze_launch *launch; /* points to `inline_launch` or to the heap */
    size_t scratch_bytes;   /* bytes the scratch slot must hold (0: not used) */
    hcl__ze_launch inline_launch[2];
} hcl__ze_plan;

/* Per-kernel work-group limits of a module (0: unknown), as the runtime reports them once it has built it. */
typedef struct hcl__ze_kernel_limits {
    uint64_t max_group_size[HCL_ZE_MOD_MAX_KERNELS];
} hcl__ze_kernel_limits;

/* The module a built-in call needs (gemm picks its variant from the limits): call it first, build that module,
 * then plan with its kernel limits. HCL_ERROR_UNSUPPORTED (with the reason in `why`) when no variant fits. */
hcl_status hcl__ze_gemm_module(const hcl__ze_limits *lim, int *out_module, char *why, size_t why_size);

/* The plans. Shapes are those the core validated (n, rows, cols, m, n > 0; gemm k may be 0). Return HCL_SUCCESS,
 * HCL_ERROR_UNSUPPORTED or HCL_ERROR_OUT_OF_MEMORY, with the reason in `why`. A successful plan is freed with
 * hcl__ze_plan_free. `kl` may be NULL (limits unknown). */
hcl_status hcl__ze_plan_vecadd(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t n,
                               hcl__ze_plan *out, char *why, size_t why_size);
hcl_status hcl__ze_plan_gemm(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, int module,
                             const hcl_gemm_args *g, hcl__ze_plan *out, char *why, size_t why_size);
hcl_status hcl__ze_plan_softmax(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t rows,
                                size_t cols, hcl__ze_plan *out, char *why, size_t why_size);
hcl_status hcl__ze_plan_reduce(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, hcl_reduce_op op,
                               size_t n, hcl__ze_plan *out, char *why, size_t why_size);
/* Fill `size` bytes (> 0) of the destination slot from byte `offset` with a pattern of 1..128 bytes (a power of
 * two; offset and size multiples of it). */
hcl_status hcl__ze_plan_fill(const hcl__ze_limits *lim, const hcl__ze_kernel_limits *kl, size_t offset,
                             size_t size, const void *pattern, size_t pattern_size, hcl__ze_plan *out, char *why,
                             size_t why_size);
void hcl__ze_plan_free(hcl__ze_plan *plan);

#endif /* HCL_LEVELZERO_PLAN_H */
