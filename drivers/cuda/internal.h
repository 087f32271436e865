/* Shared declarations of the CUDA driver: the symbol tables, the native objects behind the core's handles, the
 * one error macro used at every CUDA call site, and the entry points by file. */
#ifndef HCL_CUDA_INTERNAL_H
#define HCL_CUDA_INTERNAL_H

#include "hcl/hcl_driver.h"
#include "symbols.h"

#include <cuda.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "the CUDA driver resolves the legacy-default-stream entry points; do not define CUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

#define HCL_CU_NAME "cuda"

/* ---- symbol tables ---- */
typedef struct hcl__cu_symbols {
#define HCL__CU_FIELD(name, params) CUresult (*name) params;
#define HCL__CU_FIELD_OR(name, old, params) CUresult (*name) params;
    HCL_CU_SYMBOLS(HCL__CU_FIELD, HCL__CU_FIELD, HCL__CU_FIELD_OR)
#undef HCL__CU_FIELD
#undef HCL__CU_FIELD_OR
} hcl__cu_symbols;

typedef struct hcl__nvrtc_symbols {
#define HCL__NVRTC_FIELD(ret, name, params) ret (*name) params;
    HCL_NVRTC_SYMBOLS(HCL__NVRTC_FIELD)
#undef HCL__NVRTC_FIELD
} hcl__nvrtc_symbols;

extern hcl__cu_symbols hcl__cu;        /* filled at init; valid while the driver is initialised */
extern const hcl_driver_host *hcl__cu_host;
extern int hcl__cu_driver_version;     /* cuDriverGetVersion, e.g. 13000; part of the compile-cache key */

#define HCL_CU_LOG(...) hcl__cu_host->log(HCL_LOG_DEBUG, HCL_CU_NAME, __VA_ARGS__)

/* ---- errors ---- */
/* "CUDA_ERROR_OUT_OF_MEMORY": the driver's own name, or a built-in one when the driver cannot say (stub). */
const char *hcl__cu_error_name(CUresult r);
/* Map a failed call to a status: out of memory -> HCL_ERROR_OUT_OF_MEMORY, image/PTX/JIT failures ->
 * HCL_ERROR_BUILD, CUDA_ERROR_NOT_FOUND -> HCL_ERROR_NOT_FOUND, anything else -> HCL_ERROR_VENDOR. */
hcl_status hcl__cu_status(CUresult r);
/* Set the thread's message to "<call>: <CUDA name> (<code>) <detail>" and return the mapped status. `call` is
 * the exported name; a _vN suffix is dropped ("cuMemAlloc_v2" reads "cuMemAlloc"). */
hcl_status hcl__cu_fail(CUresult r, const char *call, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The one error macro: call hcl__cu.<fn> with `args`; on failure set the message (the detail is a printf format
 * and its values, e.g. "size=%zu", size) and evaluate to the mapped status, else to HCL_SUCCESS.
 *   if ((st = HCL_CU(cuMemAlloc_v2, (&ptr, size), "size=%zu", size)) != HCL_SUCCESS) goto cleanup;  */
#define HCL_CU(fn, args, ...)                                                                              \
    __extension__({                                                                                         \
        CUresult hcl_cu_r_ = hcl__cu.fn args;                                                               \
        hcl_cu_r_ == CUDA_SUCCESS ? HCL_SUCCESS : hcl__cu_fail(hcl_cu_r_, #fn, __VA_ARGS__);                \
    })

/* The text of this thread's last hcl__cu_fail (for messages that combine two failures). */
const char *hcl__cu_last_failure(void);
hcl_status hcl__cu_oom(const char *what); /* "cuda: out of host memory (<what>)" */

/* ---- devices (driver.c) ---- */
enum {
    HCL_CU_FN_VECADD,
    HCL_CU_FN_GEMM_128_NN, HCL_CU_FN_GEMM_128_NT, HCL_CU_FN_GEMM_128_TN, HCL_CU_FN_GEMM_128_TT,
    HCL_CU_FN_GEMM_64_NN, HCL_CU_FN_GEMM_64_NT, HCL_CU_FN_GEMM_64_TN, HCL_CU_FN_GEMM_64_TT,
    HCL_CU_FN_GEMM_SCALE,
    HCL_CU_FN_SOFTMAX_WARP1, HCL_CU_FN_SOFTMAX_WARP2, HCL_CU_FN_SOFTMAX_WARP4, HCL_CU_FN_SOFTMAX_WARP8,
    HCL_CU_FN_SOFTMAX_WARP16, HCL_CU_FN_SOFTMAX_WARP32,
    HCL_CU_FN_SOFTMAX_BLOCK_STAGED, HCL_CU_FN_SOFTMAX_BLOCK,
    HCL_CU_FN_REDUCE_SUM, HCL_CU_FN_REDUCE_MAX, HCL_CU_FN_REDUCE_MIN,
    HCL_CU_FN_FILL,
    HCL_CU_FN_COUNT
};

#define HCL_CU_EVENT_POOL 64

/* An opened device: the retained primary context and what the built-ins need. */
typedef struct hcl__cu_device {
    uint32_t index;
    CUdevice dev;
    CUcontext ctx;               /* the primary context, retained in device_open */
    char name[HCL_NAME_MAX];
    int cc_major, cc_minor;      /* compute capability */
    int sm_count;
    int max_grid[3], max_block[3];
    int smem_default;            /* shared memory per block without opting in (48 KiB) */
    int smem_optin;              /* the most a kernel may opt in to (227 KiB on H100) */
    pthread_mutex_t lock;        /* guards the lazy built-in module and the event pool */
    CUmodule builtins;           /* NULL until the first built-in call */
    const char *builtins_from;   /* "fatbin" or "nvrtc" */
    CUfunction fn[HCL_CU_FN_COUNT];
    int staged_smem_set;         /* dynamic shared memory opted in for the staged softmax */
    CUevent pool[HCL_CU_EVENT_POOL];
    uint32_t pool_count;
} hcl__cu_device;

/* Make the device's context current on this thread for the span of one entry point. Threads may differ from
 * call to call, so every entry that calls CUDA enters a scope; it pushes only when another context (or none) is
 * current, and hcl__cu_leave pops exactly what was pushed, so a caller's own context is left as it was. */
typedef struct hcl__cu_scope {
    int pushed;
} hcl__cu_scope;
hcl_status hcl__cu_enter(const hcl__cu_device *d, hcl__cu_scope *scope);
void hcl__cu_leave(hcl__cu_scope *scope);

/* ---- queues, events and commands (queue.c) ---- */
typedef struct hcl__cu_queue {
    hcl__cu_device *dev;
    CUstream stream;       /* non-blocking: never serialises with the legacy default stream */
    CUdeviceptr scratch;   /* reduce partials + ticket, made on first use; the stream is in order, so reductions
                              on one queue never race for it */
} hcl__cu_queue;

/* begin == end for a marker. Elapsed time is end.end - start.begin. */
typedef struct hcl__cu_event {
    hcl__cu_device *dev;
    CUevent begin;
    CUevent end;
} hcl__cu_event;

/* One HCL command on a queue: hcl__cu_cmd_begin enters the context, makes the stream wait for the wait list and
 * records the begin event if an event is wanted; the caller enqueues its CUDA work (status in `st`);
 * hcl__cu_cmd_end records the end event, synchronises when blocking, hands the event out on success (frees it
 * on failure) and leaves the context. Always call hcl__cu_cmd_end after a successful hcl__cu_cmd_begin. */
typedef struct hcl__cu_cmd {
    hcl__cu_queue *q;
    hcl__cu_scope scope;
    hcl__cu_event *ev;
} hcl__cu_cmd;
hcl_status hcl__cu_cmd_begin(hcl__cu_cmd *cmd, hcl__cu_queue *q, uint32_t num_wait, void *const *wait,
                             void **out_event);
hcl_status hcl__cu_cmd_end(hcl__cu_cmd *cmd, hcl_status st, int blocking, const char *what, void **out_event);

void hcl__cu_event_pool_drain(hcl__cu_device *d); /* context current */

/* ---- NVRTC (nvrtc.c): no libcuda call in that file, so the CI test links it alone ---- */
/* What to compile. headers/include_names: sources offered to #include (may be 0). arch: device compute
 * capability as major*10+minor. driver_version: for the cache key (0 if none). */
typedef struct hcl__cu_nvrtc_job {
    const char *source;
    size_t source_size;
    const char *name;    /* program name shown in the log */
    int num_headers;
    const char *const *headers;
    const char *const *include_names;
    const char *options; /* whitespace-separated user options, may be NULL */
    int arch;
    int driver_version;
} hcl__cu_nvrtc_job;
/* Load NVRTC on first use (HCL_NVRTC_LIBRARY, else libnvrtc.so.13, .so.12, .so, then the CUDA install's lib64);
 * it stays loaded until the process ends. HCL_ERROR_UNSUPPORTED with the dlerror texts and the paths tried when
 * it is absent (tried once). Thread-safe. */
hcl_status hcl__cu_nvrtc_open(void);
/* Compile through the disk cache: CUBIN for an architecture NVRTC knows, else PTX for the newest virtual
 * architecture it has that the device can run. *out_image is malloc'd (PTX NUL-terminated);
 * *out_is_cubin says which. HCL_ERROR_BUILD with the NVRTC log on a compile error. */
hcl_status hcl__cu_nvrtc_compile(const hcl__cu_nvrtc_job *job, void **out_image, size_t *out_size,
                                 int *out_is_cubin);
/* Why NVRTC could not be loaded ("" if it was, or was not tried yet). */
const char *hcl__cu_nvrtc_reason(void);

/* ---- modules (module.c) ---- */
/* Load a fatbin, cubin or PTX image into the current context; a JIT failure gives HCL_ERROR_BUILD with the
 * JIT log. */
hcl_status hcl__cu_module_load(const void *image, const char *what, CUmodule *out_module);

/* ---- built-ins (kernels.c) ---- */
hcl_status hcl__cu_builtins_get(hcl__cu_device *d); /* context current; loads the module on first use */
void hcl__cu_builtins_release(hcl__cu_device *d);   /* context current */
/* Load the built-ins on first use and, with need_scratch, make the queue's reduce scratch. Call it before a
 * command's begin event, so one-time work never counts in a command's device time. */
hcl_status hcl__cu_builtins_prepare(hcl__cu_queue *q, int need_scratch);
/* Enqueue the fill kernel (patterns of 8..128 bytes) on the command's stream. */
hcl_status hcl__cu_fill_kernel(hcl__cu_queue *q, CUdeviceptr dst, size_t size, const void *pattern,
                               size_t pattern_size);

/* ---- driver entry points, by file ---- */
hcl_status hcl__cu_queue_create(void *device, void **out_queue);
void hcl__cu_queue_destroy(void *queue);
hcl_status hcl__cu_queue_finish(void *queue);
hcl_status hcl__cu_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__cu_event_wait(void *event);
void hcl__cu_event_release(void *event);
hcl_status hcl__cu_event_elapsed(void *start, void *end, double *out_seconds);

hcl_status hcl__cu_buffer_alloc(void *device, size_t size, void **out_mem);
hcl_status hcl__cu_host_alloc(void *device, size_t size, void **out_ptr);
void hcl__cu_host_free(void *device, void *ptr);
hcl_status hcl__cu_get_native(hcl_native_kind kind, void *object, void **out_native);
void hcl__cu_buffer_free(void *device, void *mem);
hcl_status hcl__cu_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__cu_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                               uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__cu_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                               int blocking, uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__cu_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                               void **out_event);

hcl_status hcl__cu_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out_module);
void hcl__cu_module_destroy(void *module);
hcl_status hcl__cu_kernel_create(void *module, const char *name, void **out_kernel);
void hcl__cu_kernel_destroy(void *kernel);
hcl_status hcl__cu_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                 uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                 void **out_event);

hcl_status hcl__cu_vecadd_f32(void *queue, size_t n, void *a, void *b, void *c, void **out_event);
hcl_status hcl__cu_gemm_f32(void *queue, const hcl_gemm_args *args, void **out_event);
hcl_status hcl__cu_softmax_f32(void *queue, size_t rows, size_t cols, void *in, void *out, void **out_event);
hcl_status hcl__cu_reduce_f32(void *queue, hcl_reduce_op op, size_t n, void *in, void *out, void **out_event);

/* A buffer's native object is its device address. */
static inline CUdeviceptr hcl__cu_ptr(const void *mem) { return (CUdeviceptr)(uintptr_t)mem; }

#endif /* HCL_CUDA_INTERNAL_H */
