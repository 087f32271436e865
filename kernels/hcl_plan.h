/* Launch plans of the built-in kernels: the contract between kernels/ and the core.
 *
 * A built-in call (hcl_softmax_f32, ...) is run by the core as ordinary launches of kernels from the device's
 * built-in programs. This header says what those programs are (the catalogue: kernels/catalogue.c) and how a
 * call becomes launches (the plans: kernels/<op>/plan.c). Plans are plain C: no runtime call, no allocation
 * beyond the plan itself, so the SPIR-V round-trip test runs the very launches the core makes.
 *
 * A device runs one family of sources, the first whose programs its driver builds (see catalogue.c):
 *   HCL_KFAMILY_GPU   kernels/<op>/<op>.cu: CUDA fatbin or CUDA C (NVRTC), HIP bundle or HIP C (hiprtc)
 *   HCL_KFAMILY_CL    kernels/<op>/<op>.cl: OpenCL C text, or SPIR-V built from it (Level Zero)
 *   HCL_KFAMILY_HOST  kernels/<op>/<op>.c: a table of C functions, each launched as a single work-group
 *   HCL_KFAMILY_VK    kernels/<op>/<op>.comp: GLSL compute shaders compiled to Vulkan SPIR-V at build time (plan_vk.c)
 * A plan reads the family and the device's limits, and writes the launches: program, kernel, grid, block,
 * dynamic local memory, arguments (buffers by role), and the scratch memory the core must provide. */
#ifndef HCL_PLAN_H
#define HCL_PLAN_H

#include "hcl/hcl.h"
#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hcl_kfamily {
    HCL_KFAMILY_GPU = 0,
    HCL_KFAMILY_CL = 1,
    HCL_KFAMILY_HOST = 2,
    HCL_KFAMILY_VK = 3,
    HCL_KFAMILY_COUNT
} hcl_kfamily;

/* The built-in programs. GPU and HOST have one program each; CL has one per op (gemm in two shapes, chosen per
 * device, since its work-group size is a compile-time constant), and gemm for f16 and bf16 on Intel's matrix unit
 * (kernels/gemm/gemm_xmx.cl) for sub-groups of 8 and of 16, built only on devices with its extension. */
typedef enum hcl_kprog {
    HCL_KPROG_GPU = 0,
    HCL_KPROG_CL_VECADD,
    HCL_KPROG_CL_GEMM16,
    HCL_KPROG_CL_GEMM8,
    HCL_KPROG_CL_SOFTMAX,
    HCL_KPROG_CL_REDUCE,
    HCL_KPROG_CL_GEMM_XMX8,
    HCL_KPROG_CL_GEMM_XMX16,
    HCL_KPROG_HOST,
    HCL_KPROG_VK,   /* the Vulkan f32 kernels (and reduce's final folds) */
    HCL_KPROG_VK16, /* the Vulkan f16 and bf16 kernels: only on devices with 16-bit storage */
    /* the Vulkan f16 and bf16 gemm on cooperative matrices (kernels/gemm/gemm_coop.comp): only on devices whose driver
     * enabled VK_KHR_cooperative_matrix for them (matrix_unit TENSOR_CORE), the only ones a plan launches it on */
    HCL_KPROG_VK_COOP,
    HCL_KPROG_COUNT
} hcl_kprog;

#define HCL_KPROG_MAX_SOURCES 4
#define HCL_KPROG_MAX_KERNELS 256

typedef struct hcl_kprogram {
    hcl_kfamily family;
    const char *name;   /* "gpu", "cl-gemm16", ... for messages */
    const char *origin; /* the source files and defines it was built from, for messages */
    /* Candidate sources, tried one at a time in this order (binaries before the texts they were built from, so a
     * binary that does not load on this device falls back to compiling the text). Absent ones are left out. */
    hcl_module_source sources[HCL_KPROG_MAX_SOURCES];
    uint32_t num_sources;
    const char *kernels[HCL_KPROG_MAX_KERNELS]; /* kernel names; a plan refers to them by index */
    uint32_t num_kernels;
    /* The OpenCL device extension the program needs, NULL for none: a plan launches it only on devices that report it
     * (cl_intel_subgroup_matrix_multiply_accumulate: matrix_unit XMX), so no other device ever compiles it. */
    const char *device_extension;
} hcl_kprogram;

/* The built-in operations. */
typedef enum hcl_kop {
#define HCL_KOP(id, name) HCL_KOP_##id,
#include "hcl_ops.def"
#undef HCL_KOP
    HCL_KOP_COUNT
} hcl_kop;
/* "vecadd", "gemm", ... (hcl_ops.def); "?" for another value. */
const char *hcl_kop_name(hcl_kop op);

/* The kernel variants of the plans (hcl_variants.def): HCL_KVARIANT_AUTO lets the plan choose; any other value, forced
 * through hcl_kdevice.variant (the core sets it from HCL_<OP>_VARIANT), makes the plan take that variant for every call
 * it can express, skipping the plan's preferences (is it worth it: split-K for many tiles) but never its capability
 * tests (can the kernel run it: wgmma on sm_90 only), and refuse any other call with HCL_ERROR_UNSUPPORTED and a why
 * that names the variable, the variant and the reason (hcl_kvariant_refuse). Never a silent fallback. */
#define HCL_KVF_GPU (1u << HCL_KFAMILY_GPU) /* the families that have a variant (hcl_kvariant_info.families) */
#define HCL_KVF_CL (1u << HCL_KFAMILY_CL)
#define HCL_KVF_VK (1u << HCL_KFAMILY_VK)
typedef enum hcl_kvariant {
    HCL_KVARIANT_AUTO = 0,
#define HCL_KVARIANT(op, id, name, families, what) HCL_KVARIANT_##op##_##id,
#include "hcl_variants.def"
#undef HCL_KVARIANT
    HCL_KVARIANT_COUNT
} hcl_kvariant;

/* The catalogue (catalogue.c): every built-in program, with the sources this build embedded. */
const hcl_kprogram *hcl_kprogram_get(hcl_kprog prog);
/* Index of kernel `name` in program `prog`, or -1. */
int hcl_kprogram_kernel(hcl_kprog prog, const char *name);

/* What a plan knows of the device. 0 means "unknown" for every limit (a plan then does not limit by it). */
typedef struct hcl_kdevice {
    hcl_kfamily family;
    int is_cpu;              /* a CPU device runs a group's work-items as a loop */
    uint32_t compute_units;  /* SMs, CUs, EUs or cores */
    uint32_t subgroup_width; /* warp / wavefront lanes (GPU family: required) */
    uint64_t max_group_size; /* work-items per group */
    uint64_t local_mem;      /* bytes of local memory per group */
    uint32_t max_groups[3];  /* work-groups per launch, per dimension */
    uint32_t
        arch_level; /* GPU family on CUDA: the number of hcl_device_info.arch "sm_NN" (90 for sm_90); 0 elsewhere or unknown */
    hcl_matrix_unit matrix_unit; /* hcl_device_info.matrix_unit */
    /* the variant forced for each op (HCL_<OP>_VARIANT, read once by the core); HCL_KVARIANT_AUTO: the plan chooses */
    hcl_kvariant variant[HCL_KOP_COUNT];
    uint32_t matrix_types; /* hcl_device_info.matrix_types: HCL_TYPE_BIT(t), HCL_TYPE_BIT_TF32 */
    uint32_t native_types; /* hcl_device_info.native_types */
    /* The most work-items a group of kernel `kernel` of program `prog` may have on this device (0: unknown).
     * The core builds the program on first use to answer; a plan calls it only for the programs it launches. */
    uint64_t (*kernel_max_group)(const struct hcl_kdevice *dev, hcl_kprog prog, int kernel);
    /* How many clusters of `cluster_blocks` groups of `threads` work-items with `shared_bytes` of dynamic local memory
     * of that kernel the device runs at once (0: unknown, or no clusters; NULL: never known). Built on first use as
     * above. */
    uint32_t (*kernel_max_clusters)(const struct hcl_kdevice *dev, hcl_kprog prog, int kernel, uint32_t cluster_blocks,
                                    uint32_t threads, uint64_t shared_bytes);
    void *ctx; /* the core's, for kernel_max_group and kernel_max_clusters */
} hcl_kdevice;

/* Memory a launch refers to, by role; the core maps each role to a buffer. */
typedef enum hcl_kslot {
    HCL_KSLOT_A = 0,   /* vecadd a, gemm A, softmax in, reduce in */
    HCL_KSLOT_B,       /* vecadd b, gemm B */
    HCL_KSLOT_C,       /* vecadd c, gemm C, softmax out, reduce out */
    HCL_KSLOT_SCRATCH, /* the plan's scratch memory (hcl_kplan.scratch_bytes), owned by the core per queue */
    HCL_KSLOT_COUNT
} hcl_kslot;

typedef enum hcl_kparg_kind {
    HCL_KPARG_MEM = 1,   /* a buffer: slot `slot` plus `offset` bytes */
    HCL_KPARG_VALUE = 2, /* `size` bytes of `value` */
    /* a tensor map over slot `slot` plus `offset` bytes, described by the hcl_driver_tensor_map in `value` (only GPU
     * family plans for devices whose driver has them: CUDA on sm_90) */
    HCL_KPARG_TENSOR_MAP = 3
} hcl_kparg_kind;

#define HCL_KPARG_VALUE_MAX 128
#define HCL_KLAUNCH_MAX_ARGS                                                                                           \
    16 /* a launch that asks for more holds num_args HCL_KLAUNCH_MAX_ARGS + 1: the core refuses it (the most any plan \
          asks for is 13, the short-k gemm: kernels-plan-gpu checks every plan of its devices) */

typedef struct hcl_kparg {
    hcl_kparg_kind kind;
    hcl_kslot slot;
    size_t offset;
    size_t size;
    _Alignas(16) unsigned char value[HCL_KPARG_VALUE_MAX];
} hcl_kparg;

typedef struct hcl_klaunch {
    hcl_kprog prog;
    int kernel; /* index into the program's kernels */
    hcl_dim3 grid;
    hcl_dim3 block;
    size_t shared_bytes; /* dynamic local memory per group */
    /* the kernel waits in the device for the launch before it in the plan (hcl_gpu_wait_previous), so the driver may
     * start it before that one ends (kernel_wait_in_device); 0: it starts after */
    int waits_in_device;
    uint32_t num_args;
    hcl_kparg args[HCL_KLAUNCH_MAX_ARGS];
} hcl_klaunch;

#define HCL_KPLAN_INLINE 2

/* The launches of one built-in call, in order; each completes before the next starts (queues are in order). */
typedef struct hcl_kplan {
    size_t count;
    hcl_klaunch *launch;  /* `inline_launch` or the heap (hcl_kplan_free) */
    size_t scratch_bytes; /* bytes HCL_KSLOT_SCRATCH must hold (0: not used) */
    /* the scratch must hold zeros when first allocated, and the kernels leave every byte of it zero again (another
     * plan's kernels may count in the same bytes next) */
    int scratch_zeroed;
    hcl_klaunch inline_launch[HCL_KPLAN_INLINE];
    char why[384]; /* on failure: the reason, without the call's name */
} hcl_kplan;

/* ---- the plans (kernels/<op>/plan.c) ----
 * Shapes are those the core validated: n, rows, cols, m, n > 0; gemm k may be 0 (then C = beta * C, and A and B
 * are not read). Each returns HCL_SUCCESS, HCL_ERROR_UNSUPPORTED (the device cannot run it: why in out->why) or
 * HCL_ERROR_OUT_OF_MEMORY. Free a plan with hcl_kplan_free whatever the status. */

/* The shape of a GEMM call (row-major storage, BLAS meaning; see hcl_gemm_f32). */
typedef struct hcl_kgemm {
    hcl_transpose trans_a, trans_b;
    size_t m, n, k;
    float alpha, beta;
    size_t lda, ldb, ldc;
    hcl_dtype ab_type;   /* the type of A and B */
    hcl_dtype c_type;    /* ab_type or HCL_DTYPE_F32 */
    hcl_compute compute; /* HCL_COMPUTE_TF32 only with f32 A and B, and only where matrix_types has TF32 */
} hcl_kgemm;

/* The program a call of `op` first needs on a device of dev->family (the core builds it before it plans, and so
 * learns which family the device runs); HCL_KPROG_COUNT when no program of the family fits the device
 * (plan_program.c). */
hcl_kprog hcl_plan_program(const hcl_kdevice *dev, hcl_kop op);
/* The gemm program of the CL family that fits the device (16 x 16 work-items on GPUs, 8 x 8 on CPUs and small
 * GPUs), or HCL_KPROG_COUNT when neither fits (gemm/plan_cl.c). */
hcl_kprog hcl_plan_gemm_cl_program(const hcl_kdevice *dev);

/* Element types: a plan launches the kernel of the call's type, named "<f32 kernel's name without _f32>_<type>"
 * (hcl_vecadd_f16, hcl_softmax_warp4_bf16, hcl_reduce_sum_f16; hcl_kplan_typed_kernel) with the arguments, grid, block
 * and local memory of the f32 kernel; a kernel of a 16-bit type reads and writes 16-bit elements and computes in
 * float32 (reduce writes one float32). gemm's kernels are named in kernels/gemm/plan*.c. */
hcl_status hcl_plan_vecadd(const hcl_kdevice *dev, hcl_dtype type, size_t n, hcl_kplan *out);
hcl_status hcl_plan_gemm(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out);
hcl_status hcl_plan_softmax(const hcl_kdevice *dev, hcl_dtype type, size_t rows, size_t cols, hcl_kplan *out);
hcl_status hcl_plan_reduce(const hcl_kdevice *dev, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_kplan *out);

/* ---- helpers for plan.c files (plan_util.c) ---- */
/* Start a plan of `count` launches (HCL_ERROR_OUT_OF_MEMORY when they do not fit in memory). */
hcl_status hcl_kplan_init(hcl_kplan *plan, size_t count);
void hcl_kplan_free(hcl_kplan *plan);
/* Set launch `l` to kernel `kernel` of `prog` over grid x block (y, z of both 1); no arguments yet. */
void hcl_klaunch_1d(hcl_klaunch *l, hcl_kprog prog, int kernel, size_t groups, size_t group_size);
void hcl_klaunch_mem(hcl_klaunch *l, hcl_kslot slot, size_t offset);
void hcl_klaunch_value(hcl_klaunch *l, const void *value, size_t size);
/* A tensor map over slot + offset (HCL_KPARG_TENSOR_MAP). */
void hcl_klaunch_tensor_map(hcl_klaunch *l, hcl_kslot slot, size_t offset, const hcl_driver_tensor_map *map);
void hcl_klaunch_u64(hcl_klaunch *l, uint64_t v);
void hcl_klaunch_u32(hcl_klaunch *l, uint32_t v);
void hcl_klaunch_f32(hcl_klaunch *l, float v);
/* native_types and matrix_types of a device (and matrix_unit cleared where no built-in GEMM uses the unit), from the
 * hardware facts its driver wrote into `info` (backend, arch, matrix_unit, has_fp16, subgroup_size) and the host
 * CPU's features (kernels/plan_types.c): drivers report what the hardware is, the plans decide what the built-ins
 * use. A backend it does not know keeps what its driver wrote (f32 where it wrote no native type). */
void hcl_plan_device_types(hcl_device_info *info);
/* "f32", "f16", "bf16" ("?" for another value): the suffix of typed kernel names (kernels/hcl_dtypes.def). */
const char *hcl_kdtype_name(hcl_dtype type);
/* Bytes per element: 4, 2, 2 (0 for another value; kernels/hcl_dtypes.def). */
size_t hcl_kdtype_size(hcl_dtype type);
/* Index of kernel `name` in `prog`; -1 when the program has none, the plan then failed with HCL_ERROR_UNSUPPORTED
 * naming it. */
int hcl_kplan_kernel(hcl_kplan *plan, hcl_kprog prog, const char *name);
/* hcl_kplan_kernel of "<base>_<type name>" (hcl_kdtype_name). */
int hcl_kplan_typed_kernel(hcl_kplan *plan, hcl_kprog prog, const char *base, hcl_dtype type);
/* Write the reason of a failure into plan->why and return `status`. */
hcl_status hcl_kplan_fail(hcl_kplan *plan, hcl_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ---- kernel variants (plan_util.c) ---- */
typedef struct hcl_kvariant_info {
    hcl_kop op;
    const char *name;  /* what HCL_<OP>_VARIANT takes: "wgmma", "rows8", ... */
    uint32_t families; /* HCL_KVF_GPU | HCL_KVF_CL | HCL_KVF_VK: the source families that have it */
    const char *what;  /* a line for messages and docs */
} hcl_kvariant_info;
/* The entry of variant v (HCL_KVARIANT_AUTO and out-of-range values: NULL). */
const hcl_kvariant_info *hcl_kvariant_get(hcl_kvariant v);
/* "HCL_GEMM_VARIANT", "HCL_SOFTMAX_VARIANT", "HCL_REDUCE_VARIANT": the override of op's variant; NULL for an op
 * without variants (vecadd). */
const char *hcl_kvariant_env(hcl_kop op);
/* One parser for every override of a run-time choice: `text` names one of `names` (any case, blanks around it
 * ignored), or is NULL, "" or "auto" (no override). Returns the name's index, -1 for no override, -2 when the text
 * names none of them (then "auto, <names...>" is in `known`, up to known_size bytes, when known is not NULL). */
int hcl_kchoice_parse(const char *text, const char *const *names, size_t count, char *known, size_t known_size);
/* hcl_kchoice_parse over op's variants: HCL_SUCCESS with *out set (HCL_KVARIANT_AUTO when the text forces none), or
 * HCL_ERROR_INVALID_ARGUMENT with "HCL_GEMM_VARIANT="x": no gemm variant is called that; known: auto, wgmma, ..."
 * in why. */
hcl_status hcl_kvariant_parse(hcl_kop op, const char *text, hcl_kvariant *out, char *why, size_t why_size);
/* Whether a plan for dev may take variant v of op: nothing forced, or v forced. */
static inline int hcl_kvariant_allowed(const hcl_kdevice *dev, hcl_kop op, hcl_kvariant v) {
    return dev->variant[op] == HCL_KVARIANT_AUTO || dev->variant[op] == v;
}
/* HCL_SUCCESS when nothing is forced for op or dev's family has the forced variant; else the refusal naming the
 * variants the family has. Each op's plan calls it first. */
hcl_status hcl_kvariant_check_family(const hcl_kdevice *dev, hcl_kop op, hcl_kplan *plan);
/* Start an op's plan of one launch: hcl_kplan_init, then hcl_kvariant_check_family (plan_variant.c; a variant forced for `op` that the
 * device's family does not have fails the plan with HCL_ERROR_UNSUPPORTED). */
hcl_status hcl_kplan_begin(const hcl_kdevice *dev, hcl_kop op, hcl_kplan *plan);
/* Refuse the call for the variant forced for op: HCL_ERROR_UNSUPPORTED, plan->why "HCL_GEMM_VARIANT=wgmma cannot run
 * this call: <fmt ...>". */
hcl_status hcl_kvariant_refuse(hcl_kplan *plan, const hcl_kdevice *dev, hcl_kop op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* After variant v of op was tried with status st: st, turned into the refusal (hcl_kvariant_refuse with the plan's
 * own why) when st is HCL_ERROR_UNSUPPORTED and v is the forced variant. A plan returns it when it is not
 * HCL_ERROR_UNSUPPORTED or v is forced, and tries its next variant otherwise. */
hcl_status hcl_kvariant_settle(const hcl_kdevice *dev, hcl_kop op, hcl_kvariant v, hcl_status st, hcl_kplan *plan);

/* A limit that is 0 (unknown) does not limit: v ? v : otherwise. */
static inline uint64_t hcl_known_or(uint64_t v, uint64_t otherwise) { return v ? v : otherwise; }
static inline size_t hcl_min_size(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t hcl_ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
size_t hcl_pow2_floor(size_t v);
/* The most work-items a group of kernel (prog, kernel) may have: the kernel's, the device's, `cap`. */
uint64_t hcl_kgroup_max(const hcl_kdevice *dev, hcl_kprog prog, int kernel, uint64_t cap);

#ifdef __cplusplus
}
#endif
#endif /* HCL_PLAN_H */
