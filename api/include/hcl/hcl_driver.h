/* HCL driver ABI: what a backend driver module implements and what the core offers it.
 *
 * A driver module (libhcl-<name>.so) exports one C function, HCL_DRIVER_ENTRY_NAME, that returns a pointer to
 * a static hcl_driver_table. The table starts with its size and ABI version and only ever grows at the end;
 * the core refuses a module whose abi_major differs from HCL_DRIVER_ABI_MAJOR, or whose size is smaller than
 * the core needs.
 *
 * The core validates everything before it calls a driver: handles, devices, offsets and sizes, wait lists
 * and argument kinds. A driver sees only its own native objects (void *) and may trust its inputs.
 * A driver reports failures by returning a status and calling host->set_message with the detail
 * (for vendor failures: the vendor call, its error name and code). Drivers must not exit or abort.
 *
 * A driver knows nothing of the built-in kernels (vecadd, gemm, softmax, reduce): the core builds their programs
 * from kernels/ through module_create and runs them through kernel_launch like any user kernel, with launch shapes
 * from the device's limits (device_info, device_limits, kernel_max_group).
 */
#ifndef HCL_HCL_DRIVER_H
#define HCL_HCL_DRIVER_H

#include "hcl/hcl.h"

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The driver ABI's one version, now 2.7. Its history (which entry came with which minor), the required entries and
 * what the core does when an optional entry is absent: docs/driver-abi.md. A minor version only adds at the end. */
#define HCL_DRIVER_ABI_MAJOR 2
#define HCL_DRIVER_ABI_MINOR 7
#define HCL_DRIVER_ENTRY_NAME "hcl_driver_entry"

/* Log levels of host->log (HCL_LOG=error|warn|info|debug). */
typedef enum hcl_log_level { HCL_LOG_ERROR = 0, HCL_LOG_WARN = 1, HCL_LOG_INFO = 2, HCL_LOG_DEBUG = 3 } hcl_log_level;

/* Services the core gives a driver at init. Valid for the life of the process. */
typedef struct hcl_driver_host {
    uint32_t size;
    /* Set this thread's hcl_last_message (printf format). Returns `status` so a driver can write
     * `return host->set_message(HCL_ERROR_VENDOR, "clFoo: %s (%d)", name, err);` */
    hcl_status (*set_message)(hcl_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    /* Log a line when HCL_LOG is at `level` or more verbose (the core prefixes "hcl[<driver>]"). */
    void (*log)(hcl_log_level level, const char *driver, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    /* The on-disk cache. key_text is hashed together with the HCL version; the core locates the file under
     * $HCL_CACHE_DIR (default ~/.cache/hcl) and stores the whole key in the entry, so a load compares it.
     * cache_load returns a malloc'd copy (free with free()) or NULL on a miss. cache_store writes to a temporary name and renames it into place; failures are logged, not
     * fatal. */
    void *(*cache_load)(const char *driver, const void *key, size_t key_size, size_t *out_size);
    void (*cache_store)(const char *driver, const void *key, size_t key_size, const void *data, size_t size);
    /* ---- optional services (a driver checks each with HCL_DRIVER_HOST_HAS before use) ---- */
    /* dlopen (RTLD_NOW | RTLD_LOCAL) the first library that loads: only the one named by the environment
     * variable `env_override` when that is set and not empty, else names[0..count) in order. Each attempt is
     * logged for `driver`. On failure returns NULL and appends to `reason` every dlerror text and the list of
     * names tried ("... (tried: libOpenCL.so.1, libOpenCL.so)"). */
    void *(*open_library)(const char *driver, const char *env_override, const char *const *names, size_t count,
                          char *reason, size_t reason_size);
    /* Remove the cache entry of `key` (a binary that cache_load gave but that then failed: a kernel missing from
     * it, a build or link error); the driver then builds from source and stores the result. Failures are logged. */
    void (*cache_evict)(const char *driver, const void *key, size_t key_size);
} hcl_driver_host;

/* True when the core's services (of any minor version) include `field`. */
#define HCL_DRIVER_HOST_HAS(host, field)                                                                               \
    ((host)->size >= offsetof(hcl_driver_host, field) + sizeof((host)->field) && (host)->field != NULL)

/* Which native object hcl_driver_table.get_native is asked for. */
typedef enum hcl_native_kind {
    HCL_NATIVE_DEVICE = 0, /* object: the driver's device */
    HCL_NATIVE_QUEUE = 1,  /* object: the driver's queue */
    HCL_NATIVE_BUFFER = 2  /* object: the driver's memory object */
} hcl_native_kind;

/* What a hcl_driver_arg holds. BUFFER and VALUE have the numbers of their public hcl_arg_kind (hcl.h), so the core
 * passes an application's argument through unchanged; TENSOR_MAP exists only at driver level. */
typedef enum hcl_driver_arg_kind {
    HCL_DRIVER_ARG_BUFFER = 1,    /* = HCL_ARG_BUFFER: `mem` + `offset`; the kernel sees a device pointer */
    HCL_DRIVER_ARG_VALUE = 2,     /* = HCL_ARG_VALUE: `size` bytes copied from `value` */
    HCL_DRIVER_ARG_TENSOR_MAP = 3 /* a tensor map over `mem` + `offset`, described by the hcl_driver_tensor_map at
                                   * `value` (see below) */
} hcl_driver_arg_kind;
/* The name of HCL_DRIVER_ARG_TENSOR_MAP before the driver ABI had its own argument kinds (kept for driver sources). */
#define HCL_ARG_TENSOR_MAP HCL_DRIVER_ARG_TENSOR_MAP

/* A kernel argument as the driver sees it: buffers already resolved to the driver's native memory object. */
typedef struct hcl_driver_arg {
    hcl_driver_arg_kind kind;
    void *mem;         /* BUFFER, TENSOR_MAP: native memory object */
    size_t offset;     /* BUFFER, TENSOR_MAP */
    const void *value; /* VALUE; TENSOR_MAP: a hcl_driver_tensor_map */
    size_t size;       /* VALUE; TENSOR_MAP: sizeof(hcl_driver_tensor_map) */
} hcl_driver_arg;
#ifndef __cplusplus
_Static_assert((int)HCL_DRIVER_ARG_BUFFER == (int)HCL_ARG_BUFFER && (int)HCL_DRIVER_ARG_VALUE == (int)HCL_ARG_VALUE,
               "driver argument kinds keep the numbers of the public ones");
_Static_assert(sizeof(hcl_driver_arg_kind) == sizeof(hcl_arg_kind), "hcl_driver_arg.kind keeps its size");
#endif

/* HCL_DRIVER_ARG_TENSOR_MAP: an argument only the core's built-in launch plans make (hcl_launch refuses it): a 2-D
 * tensor map over a buffer for the GPU's tensor memory accelerator. The driver encodes it at launch from `mem` +
 * `offset` and the hcl_driver_tensor_map at `value` (CUDA: cuTensorMapEncodeTiled, 128-byte swizzle, zeros outside
 * the tensor) and passes the 128-byte map by value. A driver without tensor maps fails the launch with
 * HCL_ERROR_UNSUPPORTED. */
typedef struct hcl_driver_tensor_map {
    hcl_dtype type;      /* element type, for messages: a driver encodes by elem_bytes and knows no element type */
    uint64_t dims[2];    /* elements per dimension, innermost first */
    uint64_t row_bytes;  /* bytes from one index of the outer dimension to the next (a multiple of 16) */
    uint32_t box[2];     /* elements one copy moves per dimension, innermost first (inner box <= 128 bytes) */
    uint32_t elem_bytes; /* bytes per element (1, 2 or 4); since ABI 2.5 (hcl_driver_arg.size then covers it) */
} hcl_driver_tensor_map;

/* Limits of a device that launch plans need beyond hcl_device_info. 0 means unknown. */
typedef struct hcl_driver_limits {
    uint32_t subgroup_width; /* warp / wavefront / sub-group lanes the device runs together (1 on a CPU) */
    uint32_t max_groups[3];  /* work-groups per launch, per dimension */
} hcl_driver_limits;

/* A kernel parameter as the driver knows it (kernel_params). */
typedef enum hcl_driver_param_kind {
    HCL_DRIVER_PARAM_UNKNOWN = 0, /* the backend cannot tell what this parameter takes */
    HCL_DRIVER_PARAM_BUFFER = 1,  /* a pointer to global or constant memory: an HCL_ARG_BUFFER */
    HCL_DRIVER_PARAM_VALUE = 2,   /* a value copied at launch: an HCL_ARG_VALUE of `size` bytes */
    HCL_DRIVER_PARAM_LOCAL = 3    /* a pointer to local (work-group) memory: no launch argument gives it */
} hcl_driver_param_kind;
typedef struct hcl_driver_param {
    hcl_driver_param_kind kind;
    uint32_t size; /* VALUE: bytes of the value; UNKNOWN: bytes the parameter takes, a value's or a 64-bit device
                     * address (CUDA's cuFuncGetParamInfo, PTX); 0 when not known */
    char name[64]; /* the parameter's name in the source, or "" (truncated if longer) */
    char type[48]; /* its type as the source spells it ("float*", "uint4"), or "" */
} hcl_driver_param;
/* kernel_params flags. */
#define HCL_DRIVER_PARAMS_SHARED_LAST                                                                                  \
    1u /* a launch with shared_bytes > 0 passes the dynamic local memory as the last
                                          * declared parameter (OpenCL), after the launch's own arguments */

/* Every entry of hcl_driver_table after its header (size, abi_major, abi_minor, name), in table order, as
 * E(a, return type, name, (parameters)) in one list per capability group (`a` is passed through: the driver
 * kit's prefix, drivers/common/table.h). HCL_DRIVER_ENTRIES(X) is all of them as X(return type, name, (parameters)):
 * the one list the table's members, the kit's declarations and the drivers' initialisers are generated from. Only
 * ever add at the end (docs/driver-abi.md); drivers/common/test_abi_layout.c checks the layout against the
 * hand-written struct of ABI 2.4. Every native object is a void *. `wait`/`num_wait` are the driver's own events.
 * `out_event` may be NULL: then the driver creates no event. Blocking calls (blocking != 0) return after the command
 * completed. */
/* ---- Required: the runtime and its devices ---- */
#define HCL_DRIVER_ENTRIES_DEVICES(E, a)                                                                               \
    /* Open the vendor runtime. On failure return a status and write why (dlerror text and paths tried, or the \
     * vendor's error name) into `reason`. `version` receives the runtime's version text if known. */       \
    E(a, hcl_status, init,                                                                                             \
      (const hcl_driver_host *host, char *reason, size_t reason_size, char *version, size_t version_size))             \
    E(a, void, shutdown, (void))                                                                                       \
    E(a, hcl_status, device_count, (uint32_t * out_count))                                                             \
    /* backend/index/identity filled. Writes the hcl_device_info of the header the driver was built with: the core \
     * zeroes a larger buffer first, so fields the driver does not know read 0 (unknown). Hardware facts only: for \
     * an in-tree backend the core sets native_types / matrix_types (and may clear matrix_unit) from arch, \
     * matrix_unit, has_fp16 and subgroup_size (docs/driver-abi.md, 2.5). */   \
    E(a, hcl_status, device_info, (uint32_t index, hcl_device_info * out_info))                                        \
    E(a, hcl_status, device_open, (uint32_t index, void **out_device))                                                 \
    E(a, void, device_close, (void *device))

/* ---- Required: queues, buffers, events, modules, kernels (the driver kit's entries, drivers/common/table.h) ---- */
#define HCL_DRIVER_ENTRIES_OBJECTS(E, a)                                                                               \
    E(a, hcl_status, queue_create, (void *device, void **out_queue))                                                   \
    /* the core calls queue_finish first */                                                                            \
    E(a, void, queue_destroy, (void *queue))                                                                           \
    E(a, hcl_status, queue_finish, (void *queue))                                                                      \
    E(a, hcl_status, queue_marker, (void *queue, uint32_t num_wait, void *const *wait, void **out_event))              \
    E(a, hcl_status, buffer_alloc, (void *device, size_t size, void **out_mem))                                        \
    E(a, void, buffer_free, (void *device, void *mem))                                                                 \
    E(a, hcl_status, buffer_write,                                                                                     \
      (void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking, uint32_t num_wait,           \
       void *const *wait, void **out_event))                                                                           \
    E(a, hcl_status, buffer_read,                                                                                      \
      (void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking, uint32_t num_wait,                 \
       void *const *wait, void **out_event))                                                                           \
    E(a, hcl_status, buffer_copy,                                                                                      \
      (void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size, int blocking,             \
       uint32_t num_wait, void *const *wait, void **out_event))                                                        \
    E(a, hcl_status, buffer_fill,                                                                                      \
      (void *queue, void *mem, size_t offset, size_t size, const void *pattern, size_t pattern_size, int blocking,     \
       uint32_t num_wait, void *const *wait, void **out_event))                                                        \
    E(a, hcl_status, event_wait, (void *event))                                                                        \
    E(a, void, event_release, (void *event))                                                                           \
    /* Seconds from the start of `start`'s command to the end of `end`'s command; waits for both. */                   \
    E(a, hcl_status, event_elapsed, (void *start, void *end, double *out_seconds))                                     \
    E(a, hcl_status, module_create,                                                                                    \
      (void *device, const hcl_module_source *sources, uint32_t count, void **out_module))                             \
    E(a, void, module_destroy, (void *module))                                                                         \
    E(a, hcl_status, kernel_create, (void *module, const char *name, void **out_kernel))                               \
    E(a, void, kernel_destroy, (void *kernel))                                                                         \
    E(a, hcl_status, kernel_launch,                                                                                    \
      (void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes, uint32_t num_args,               \
       const hcl_driver_arg *args, uint32_t num_wait, void *const *wait, void **out_event))

/* ---- Optional, grouped by capability: the core checks each with HCL_DRIVER_HAS (the table's `size` covers it and
 * it is not NULL) before use; docs/driver-abi.md says what the core does without it. ---- */
/* ---- Page-locked host memory ---- */
#define HCL_DRIVER_ENTRIES_HOST_MEMORY(E, a)                                                                           \
    /* Host memory for fast transfers (page-locked where the runtime can). NULL: the core hands out ordinary \
     * aligned memory. */         \
    E(a, hcl_status, host_alloc, (void *device, size_t size, void **out_ptr))                                          \
    E(a, void, host_free, (void *device, void *ptr))

/* ---- Interop ---- */
#define HCL_DRIVER_ENTRIES_INTEROP(E, a)                                                                               \
    /* The vendor object behind a native object (see hcl_device_get_native in hcl.h); HCL_ERROR_UNSUPPORTED with \
     * a message when there is none. NULL: the backend exposes none. */     \
    E(a, hcl_status, get_native, (hcl_native_kind kind, void *object, void **out_native))

/* ---- Launch limits ---- */
#define HCL_DRIVER_ENTRIES_LIMITS(E, a)                                                                                \
    /* The device's limits for launch plans (the core zeroes *out first; leave unknown fields 0). */                   \
    E(a, hcl_status, device_limits, (void *device, hcl_driver_limits *out))                                            \
    /* The most work-items a group of this kernel may have on its device (CL_KERNEL_WORK_GROUP_SIZE, \
     * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ...); 0 when the runtime does not say. */                 \
    E(a, hcl_status, kernel_max_group, (void *kernel, uint64_t *out_max))

/* ---- Kernel parameters ---- */
#define HCL_DRIVER_ENTRIES_PARAMS(E, a)                                                                                \
    /* The kernel's declared parameters, in order, so that the core checks a launch's arguments before the vendor \
     * runtime sees them. Writes the first min(count, max) parameters to out[], the count to *out_count and \
     * HCL_DRIVER_PARAMS_* bits to *out_flags (the core zeroes all of them first). A parameter the backend cannot \
     * describe is HCL_DRIVER_PARAM_UNKNOWN; a non-success status (or a NULL entry) means that not even the count is \
     * known, and the core checks nothing beyond the argument kinds. */    \
    E(a, hcl_status, kernel_params,                                                                                    \
      (void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count, uint32_t *out_flags))

/* ---- Peer copies ---- */
#define HCL_DRIVER_ENTRIES_PEER(E, a)                                                                                  \
    /* Whether `device` reaches the memory of `peer` (another opened device of this driver, possibly the same \
     * vendor device opened twice) directly: *out_direct 1 or 0 (the core zeroes it first). A driver may enable the \
     * access here (CUDA: cuCtxEnablePeerAccess, both directions) so that buffer_copy_peer works once it said 1. */        \
    E(a, hcl_status, peer_access, (void *device, void *peer, int *out_direct))                                         \
    /* Copy between memory of two devices of this driver that peer_access called direct, as a command on `queue` \
     * (a queue of either device), ordered like buffer_copy: after `wait`, an event in *out_event when asked for. */     \
    E(a, hcl_status, buffer_copy_peer,                                                                                 \
      (void *queue, void *dst_device, void *dst, size_t dst_offset, void *src_device, void *src, size_t src_offset,    \
       size_t size, int blocking, uint32_t num_wait, void *const *wait, void **out_event))

/* ---- Registering host memory; polling ---- */
#define HCL_DRIVER_ENTRIES_REGISTER(E, a)                                                                                 \
    /* Page-lock `size` bytes of host memory at `ptr` (page-aligned, not from host_alloc, mapped by the caller) so that \
     * transfers between it and any device of this driver run as host_alloc's memory does (CUDA: cuMemHostRegister, \
     * portable); the memory stays the caller's. HCL_ERROR_UNSUPPORTED or a vendor status with a message when the runtime \
     * refuses (the caller then copies it as pageable memory). */ \
    E(a, hcl_status, host_register, (void *device, void *ptr, size_t size))                                               \
    /* Undo host_register of `ptr` (no pending command may still use it). Reports nothing. */                             \
    E(a, void, host_unregister, (void *device, void *ptr))                                                                \
    /* Whether the command of `event` is done, without waiting: *out_done 1 or 0 (the core zeroes it first). A command \
     * that failed on the device: the failure's status (as event_wait would give). */  \
    E(a, hcl_status, event_query, (void *event, int *out_done))

/* ---- Thread-block clusters (CUDA only) ---- */
#define HCL_DRIVER_ENTRIES_CLUSTERS(E, a)                                                                              \
    /* How many clusters of `cluster_blocks` groups (thread-block clusters: blocks that run at once on neighbouring \
     * compute units) of `threads` work-items and `shared_bytes` of dynamic local memory each this kernel has resident on \
     * its device at once (CUDA: cuOccupancyMaxActiveClusters, after opting the kernel in to the shared memory as a \
     * launch would), so that a plan can give every resident cluster an equal share of the work in one wave. *out_count \
     * 0 (the core zeroes it first) or HCL_ERROR_UNSUPPORTED when the runtime does not say. */  \
    E(a, hcl_status, kernel_max_clusters,                                                                              \
      (void *kernel, uint32_t cluster_blocks, uint32_t threads, size_t shared_bytes, uint32_t *out_count))

/* ---- Wrapping foreign memory ---- */
#define HCL_DRIVER_ENTRIES_WRAP(E, a)                                                                                  \
    /* The native memory object (what buffer_alloc gives) for `size` bytes at `native`, memory the application \
     * allocated through the vendor's own API on this device (CUDA: a CUdeviceptr in the device's context; HIP: a \
     * device pointer; Level Zero: a device or shared USM pointer; host: a host pointer). The driver checks what the \
     * runtime can tell cheaply (the pointer's device, the allocation's extent) and refuses with \
     * HCL_ERROR_INVALID_ARGUMENT and a message; HCL_ERROR_UNSUPPORTED when it cannot wrap such memory. The core never \
     * calls buffer_free on the result: the memory stays the application's. */       \
    E(a, hcl_status, buffer_wrap, (void *device, void *native, size_t size, void **out_mem))

/* ---- Kernels that wait in the device (CUDA only) ---- */
#define HCL_DRIVER_ENTRIES_EARLY(E, a)                                                                                 \
    /* Declare that `kernel` waits in the device for the kernel before it on its queue (its code begins with the \
     * runtime's wait for the preceding grid: CUDA's griddepcontrol.wait), so that its later launches may begin before \
     * that kernel ends (CUDA: programmatic dependent launch); every launch of it after the call is such a launch. \
     * HCL_ERROR_UNSUPPORTED when the runtime or the device cannot. The core calls it only for its built-in kernels, \
     * where their plans say so. */     \
    E(a, hcl_status, kernel_wait_in_device, (void *kernel))

/* Every group in table order, as X(return type, name, (parameters)). */
#define HCL__DRIVER_APPLY(X, ret, name, params) X(ret, name, params)
#define HCL__DRIVER_GROUP(group, X) HCL_DRIVER_ENTRIES_##group(HCL__DRIVER_APPLY, X)
#define HCL_DRIVER_ENTRIES(X)                                                                                          \
    HCL__DRIVER_GROUP(DEVICES, X)     /* required */                                                                   \
    HCL__DRIVER_GROUP(OBJECTS, X)     /* required */                                                                   \
    HCL__DRIVER_GROUP(HOST_MEMORY, X) /* 2.0, optional from here on */                                                 \
    HCL__DRIVER_GROUP(INTEROP, X)     /* 2.0 */                                                                        \
    HCL__DRIVER_GROUP(LIMITS, X)      /* 2.0 */                                                                        \
    HCL__DRIVER_GROUP(PARAMS, X)      /* 2.1 */                                                                        \
    HCL__DRIVER_GROUP(PEER, X)        /* 2.2 */                                                                        \
    HCL__DRIVER_GROUP(REGISTER, X)    /* 2.3 */                                                                        \
    HCL__DRIVER_GROUP(CLUSTERS, X)    /* 2.4 */                                                                        \
    HCL__DRIVER_GROUP(WRAP, X)        /* 2.6 */                                                                        \
    HCL__DRIVER_GROUP(EARLY, X)       /* 2.7 */

/* The table a driver module gives the core: its header, then the entries of HCL_DRIVER_ENTRIES. */
typedef struct hcl_driver_table {
    uint32_t size;      /* sizeof(hcl_driver_table) as the driver was built */
    uint32_t abi_major; /* HCL_DRIVER_ABI_MAJOR */
    uint32_t abi_minor; /* HCL_DRIVER_ABI_MINOR */
    const char *name;   /* backend name, e.g. "opencl" */
#define HCL__DRIVER_MEMBER(ret, name, params) ret(*name) params;
    HCL_DRIVER_ENTRIES(HCL__DRIVER_MEMBER)
#undef HCL__DRIVER_MEMBER
} hcl_driver_table;

/* True when a driver table (of any minor version) has entry `field`, non-NULL. */
#define HCL_DRIVER_HAS(table, field)                                                                                   \
    ((table)->size >= offsetof(hcl_driver_table, field) + sizeof((table)->field) && (table)->field != NULL)

/* The entry point a driver module exports (visibility default, C linkage). */
typedef const hcl_driver_table *(*hcl_driver_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* HCL_HCL_DRIVER_H */
