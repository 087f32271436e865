/* The host code the CUDA and HIP drivers share: one source, compiled twice.
 *
 * drivers/cuda and drivers/hip each build the .c files of this folder together with their own driver.c:
 * -DHCL_GPU_CUDA=1 makes libhcl-cuda.so (the CUDA driver API and NVRTC), -DHCL_GPU_HIP=1 makes libhcl-hip.so (the
 * HIP module API and hiprtc). The two APIs mirror each other call for call (cuMemAlloc_v2 / hipMalloc,
 * cuLaunchKernel / hipModuleLaunchKernel, ...), so queues, events, memory, modules, launches, the helper kernels
 * and the run-time compiler are written once, against neutral names that gpu_map_cuda.h or gpu_map_hip.h
 * turn into the vendor's (as llama.cpp builds ggml-cuda as HIP through a name-mapping header). The path the CUDA
 * build proves on an NVIDIA GPU is then the path the HIP build runs.
 *
 * What really differs is not hidden in the maps but written out, under #if HCL_GPU_CUDA / #if HCL_GPU_HIP:
 *  - the warp width: 32 on NVIDIA; a wavefront of 64 (gfx9) or 32 (gfx10+) on AMD (hcl__gpu_device.wave);
 *  - how a device becomes current: CUDA pushes its primary context, HIP sets the thread's device (driver.c);
 *  - what a binary is and how it loads (fatbin/cubin/PTX with a JIT log; code object or offload bundle);
 *  - what the run-time compiler targets and returns (sm_XY or compute_XY, CUBIN or PTX; gfx target, code object);
 *  - dynamic shared memory above the default: CUDA opts in per kernel, AMD has one limit (64 KiB);
 *  - kernel parameter sizes: CUDA can list them (cuFuncGetParamInfo), HIP cannot;
 *  - error names and statuses, device properties, library names, environment variables (driver.c, maps).
 * The functions each driver's driver.c defines for the shared code are declared in hooks.h. Both are built on the
 * driver kit (drivers/common/kit.h). */
#ifndef HCL_CUDAHIP_GPU_H
#define HCL_CUDAHIP_GPU_H

#include "hcl/hcl_driver.h"
#include "kit.h"
#include "table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if defined(HCL_GPU_CUDA) && HCL_GPU_CUDA && !defined(HCL_GPU_HIP)
#define HCL_GPU_HIP 0
#include "gpu_map_cuda.h"
#elif defined(HCL_GPU_HIP) && HCL_GPU_HIP && !defined(HCL_GPU_CUDA)
#define HCL_GPU_CUDA 0
#include "gpu_map_hip.h"
#else
#error "build drivers/cudahip with exactly one of -DHCL_GPU_CUDA=1 or -DHCL_GPU_HIP=1"
#endif

/* ---- the runtime's entry points ---- */
/* One struct of function pointers from the map's X-macro list, filled by hcl__gpu_resolve (runtime.c). */
typedef struct hcl__gpu_symbols {
#define HCL__GPU_FIELD(ret, name, params) ret(*name) params;
#define HCL__GPU_FIELD_OR(ret, name, old, params) ret(*name) params;
    HCL_GPU_SYMBOLS(HCL__GPU_FIELD, HCL__GPU_FIELD, HCL__GPU_FIELD_OR, HCL__GPU_FIELD, HCL__GPU_FIELD)
#undef HCL__GPU_FIELD
#undef HCL__GPU_FIELD_OR
} hcl__gpu_symbols;

/* The run-time compiler's (NVRTC, hiprtc), opened on first use only (rtc.c). */
typedef struct hcl__gpu_rtc_symbols {
#define HCL__GPU_RTC_FIELD(ret, name, params) ret(*name) params;
    HCL_GPU_RTC_SYMBOLS(HCL__GPU_RTC_FIELD)
#undef HCL__GPU_RTC_FIELD
} hcl__gpu_rtc_symbols;

extern hcl__gpu_symbols hcl__gpu;   /* filled at init; valid while the driver is initialised */
extern int hcl__gpu_driver_version; /* the runtime's version number; part of the compile-cache key */
extern int hcl__gpu_init_pid;       /* the process that initialised the runtime (0: none yet) */

/* The kit's services, under the names the shared host code uses. */
#define hcl__gpu_host hcl__kit_host
#define hcl__gpu_oom hcl__kit_oom                   /* "<backend>: out of host memory (<what>)" */
#define hcl__gpu_last_failure hcl__kit_last_failure /* the text of this thread's last failure */
#define HCL_GPU_LOG(...) HCL_KIT_LOG(__VA_ARGS__)

/* Resolve HCL_GPU_SYMBOLS from the opened runtime library (runtime.c, hcl__kit_resolve). On failure `reason` says
 * which entry point is missing. */
hcl_status hcl__gpu_resolve(void *library, char *reason, size_t reason_size);

/* ---- errors ---- */
/* Map a failed call to a status: out of memory -> HCL_ERROR_OUT_OF_MEMORY, image/JIT/no-binary failures ->
 * HCL_ERROR_BUILD, not found -> HCL_ERROR_NOT_FOUND, anything else -> HCL_ERROR_VENDOR (the map lists the codes;
 * runtime.c). */
hcl_status hcl__gpu_status(hcl_gpu_result r);
/* Set the thread's message to "<call>: <error name> (<code>); <detail>" (hcl__kit_vendor_fail: a _vN suffix of
 * `call` is dropped) and return the mapped status (hcl__gpu_error_name, hcl__gpu_status). runtime.c. */
hcl_status hcl__gpu_fail(hcl_gpu_result r, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The kit's error check on the runtime's `op` (a neutral name the map turns into the exported symbol: MemAlloc is
 * cuMemAlloc_v2 on CUDA and hipMalloc on HIP) called with `args`; on failure the message says the call, the
 * runtime's error name and code, and the detail (a printf format and its values).
 *   HCL_GPU_CHECK(MemAlloc, (&ptr, size), "size=%zu", size);          sets `status`, jumps to `cleanup`
 *   st = HCL_GPU(MemAlloc, (&ptr, size), "size=%zu", size);           the same check as a value
 * HCL_GPU_CALL is HCL_GPU for a symbol named directly (vendor-specific code in driver.c). */
#define HCL_GPU_CHECK(op, args, ...) HCL__GPU_CHECK(HCL_GPU_SYM_##op, args, __VA_ARGS__)
#define HCL__GPU_CHECK(sym, args, ...)                                                                                 \
    HCL_KIT_CHECK(hcl_gpu_result, hcl__gpu.sym args, HCL_GPU_SUCCESS, hcl__gpu_fail, #sym, __VA_ARGS__)
#define HCL_GPU(op, args, ...) HCL_GPU_CALL(HCL_GPU_SYM_##op, args, __VA_ARGS__)
#define HCL_GPU_CALL(sym, args, ...) HCL__GPU_CALL(sym, args, __VA_ARGS__)
#define HCL__GPU_CALL(sym, args, ...)                                                                                  \
    HCL_KIT_STATUS(hcl_gpu_result, hcl__gpu.sym args, HCL_GPU_SUCCESS, hcl__gpu_fail, #sym, __VA_ARGS__)

/* ---- devices (device.c; the vendor parts in driver.c, hooks.h) ---- */
/* What the kit lists of a device (devices.h). */
typedef struct hcl__gpu_device_entry {
    hcl_gpu_device dev;
    hcl_device_info info;
#if HCL_GPU_CUDA
    int cc_major, cc_minor; /* compute capability */
#else
    char arch[256];    /* gcnArchName, "" if unknown; "sm_90" on HIP's NVIDIA platform (driver.c) */
    unsigned int wave; /* 64 or 32 */
#endif
} hcl__gpu_device_entry;

/* ---- devices (driver.c) ---- */
/* Runtime events the device's pool keeps for reuse at most: enough for the commands the tracer may hold unread (4096
 * commands of two events each), so that timing every command of a long submission creates no event once warm (an H200:
 * with a pool of 64, a traced 1000-launch submission created about two events a launch, 2.3 us a launch of HCL's own
 * over the vendor's timing calls). The pool grows to it as events come back. */
#define HCL_GPU_EVENT_POOL 8192
#define HCL_GPU_MAX_PEERS 64 /* peers whose access is remembered; beyond, peer_access asks the runtime each time */

/* An opened device: what launches and the helper kernels need. */
typedef struct hcl__gpu_device {
    uint32_t index;
    hcl_gpu_device dev;
#if HCL_GPU_CUDA
    CUcontext ctx;          /* the primary context, retained in device_open */
    int cc_major, cc_minor; /* compute capability */
#else
    char arch[256];    /* the target ID, "gfx90a:sramecc+:xnack-" (gcnArchName), or "sm_90" on HIP's NVIDIA platform
                          (hiprtc is NVRTC there); "" if unknown */
#endif
    char name[HCL_NAME_MAX];
    unsigned int wave; /* threads per warp (NVIDIA: 32) or wavefront (AMD: 64 on gfx9, 32 on gfx10+) */
    int sm_count;      /* SMs / compute units */
    int max_grid[3], max_block[3];
    int smem_default;         /* shared memory per block without opting in (CUDA: 48 KiB; AMD: 64 KiB) */
    int smem_optin;           /* the most a kernel may opt in to (H100: 227 KiB; AMD: smem_default) */
    pthread_mutex_t lock;     /* guards the lazy helper module and the event pool */
    hcl_gpu_module helpers;   /* the helper kernels (helpers.c); NULL until first needed */
    const char *helpers_from; /* "fatbin" / "code-object bundle", or the run-time compiler's name */
    hcl_gpu_function fill;    /* hcl_fill_u64 of `helpers` */
    hcl_gpu_event *pool;      /* pool_count events kept for reuse, room for pool_cap (grown up to HCL_GPU_EVENT_POOL) */
    uint32_t pool_count, pool_cap;
    signed char peer[HCL_GPU_MAX_PEERS]; /* by the peer's ordinal: 0 not asked yet, 1 direct access, -1 none (peer.c) */
} hcl__gpu_device;

#include "hooks.h"

/* Evaluate `expr` (a status) with device `d` current on this thread (hcl__gpu_enter, then hcl__gpu_leave); the
 * status of entering when that fails, and then `expr` is not evaluated. */
#define HCL_GPU_ON(d, expr)                                                                                            \
    __extension__({                                                                                                    \
        hcl__gpu_scope hcl_gpu_scope_;                                                                                 \
        hcl_status hcl_gpu_st_ = hcl__gpu_enter((d), &hcl_gpu_scope_);                                                 \
        if (hcl_gpu_st_ == HCL_SUCCESS) {                                                                              \
            hcl_gpu_st_ = (expr);                                                                                      \
            hcl__gpu_leave(&hcl_gpu_scope_);                                                                           \
        }                                                                                                              \
        hcl_gpu_st_;                                                                                                   \
    })

/* The runtime's device attribute `attr` (a neutral HCL_GPU_ATTR_* name), 0 when it cannot say (device.c). */
int hcl__gpu_attr(hcl_gpu_device dev, hcl_gpu_attribute attr);
/* List the runtime's `count` devices with the kit (hcl__gpu_start calls it; device.c). */
hcl_status hcl__gpu_discover(int count);

/* ---- queues, events and commands (queue.c) ---- */
typedef struct hcl__gpu_queue {
    hcl__gpu_device *dev;
    hcl_gpu_stream stream; /* non-blocking: never serialises with the legacy default (null) stream */
} hcl__gpu_queue;

/* begin == end for a marker. Elapsed time is end.end - start.begin. */
typedef struct hcl__gpu_event {
    hcl__gpu_device *dev;
    hcl_gpu_event begin;
    hcl_gpu_event end;
} hcl__gpu_event;

/* One HCL command on a queue: hcl__gpu_cmd_begin enters the device, makes the stream wait for the wait list and
 * records the begin event if an event is wanted; the caller enqueues its work (status in `st`); hcl__gpu_cmd_end
 * records the end event, synchronises when blocking, hands the event out on success (frees it on failure) and
 * leaves the device. Always call hcl__gpu_cmd_end after a successful hcl__gpu_cmd_begin. */
typedef struct hcl__gpu_cmd {
    hcl__gpu_queue *q;
    hcl__gpu_scope scope;
    hcl__gpu_event *ev;
} hcl__gpu_cmd;
hcl_status hcl__gpu_cmd_begin(hcl__gpu_cmd *cmd, hcl__gpu_queue *q, uint32_t num_wait, void *const *wait,
                              void **out_event);
hcl_status hcl__gpu_cmd_end(hcl__gpu_cmd *cmd, hcl_status st, int blocking, const char *what, void **out_event);

void hcl__gpu_event_pool_drain(hcl__gpu_device *d); /* device current */

/* ---- the run-time compiler (rtc.c): no runtime call in that file, so the CI tests link it alone ---- */
/* What to compile. headers/include_names: sources offered to #include (may be 0). driver_version: for the cache
 * key (0 if none). */
typedef struct hcl__gpu_rtc_job {
    const char *source;
    size_t source_size;
    const char *name; /* program name shown in the log */
    int num_headers;
    const char *const *headers;
    const char *const *include_names;
    const char *options; /* whitespace-separated user options, may be NULL */
#if HCL_GPU_CUDA
    int arch; /* compute capability as major*10+minor */
#else
    const char *arch;  /* the target ID ("gfx90a:sramecc+:xnack-", or "sm_90" on HIP's NVIDIA platform); NULL or "":
                          the user's --offload-arch */
#endif
    int driver_version;
    int from_cache;   /* out: hcl__gpu_rtc_compile took the image from the disk cache */
    int evict_cached; /* in: drop the cached image (it failed to load) and compile afresh */
} hcl__gpu_rtc_job;
/* Load the compiler on first use (gpu_map_*.h: HCL_GPU_RTC_ENV, then the library names it lists); it stays
 * loaded until the process ends. HCL_ERROR_UNSUPPORTED with the dlerror texts and the paths tried when it is
 * absent (tried once). Thread-safe. */
hcl_status hcl__gpu_rtc_open(void);
/* Compile through the disk cache. CUDA: CUBIN for an architecture NVRTC knows, else PTX for the newest virtual
 * architecture it has that the device can run (*out_is_binary 0, NUL-terminated). HIP: a code object for
 * job->arch (*out_is_binary 1), which on HIP's NVIDIA platform is PTX for its compute_XY. *out_image is malloc'd.
 * HCL_ERROR_BUILD with the compiler's log on an error. job->from_cache says whether the image came from the cache;
 * job->evict_cached drops the cached one first. */
hcl_status hcl__gpu_rtc_compile(hcl__gpu_rtc_job *job, void **out_image, size_t *out_size, int *out_is_binary);
/* Why the compiler could not be loaded ("" if it was, or was not tried yet). */
const char *hcl__gpu_rtc_reason(void);
/* "NVRTC 13.0" / "hiprtc 9.0" once loaded, else "" */
const char *hcl__gpu_rtc_version(void);

/* ---- modules (module.c) ---- */
/* Load a binary image into the current device. CUDA: fatbin, cubin or NUL-terminated PTX, a JIT failure gives
 * HCL_ERROR_BUILD with the JIT log. HIP: a code object or an offload bundle holding one for the device. */
hcl_status hcl__gpu_module_load(const void *image, const char *what, hcl_gpu_module *out_module);
/* The run-time compiler's job for this device's architecture. */
void hcl__gpu_rtc_job_target(const hcl__gpu_device *d, hcl__gpu_rtc_job *job);
/* Compile `job` (source, name, options, headers set) for the device with the run-time compiler, and load it. With
 * out_image, the caller also gets the image that was loaded (malloc'd, the caller frees it) on success. */
hcl_status hcl__gpu_rtc_build(hcl__gpu_device *d, hcl__gpu_rtc_job *job, hcl_gpu_module *out_module, void **out_image,
                              size_t *out_image_size);

/* ---- the driver's helper kernels (helpers.c, sources.c) ---- */
/* fill.cu as one program for the run-time compiler, with the CUDA/HIP name map as its header (sources.c). Fills
 * source, name and headers; the caller sets the rest. */
void hcl__gpu_helpers_job(hcl__gpu_rtc_job *job);
hcl_status hcl__gpu_helpers_get(hcl__gpu_device *d); /* device current; loads the module on first use */
void hcl__gpu_helpers_release(hcl__gpu_device *d);   /* device current */
/* Load the helpers on first use. Call it before a command's begin event, so one-time work never counts in a
 * command's device time. */
hcl_status hcl__gpu_helpers_prepare(hcl__gpu_queue *q);
/* Enqueue the fill kernel (patterns of 8..128 bytes) on the command's stream. */
hcl_status hcl__gpu_fill_kernel(hcl__gpu_queue *q, hcl_gpu_dptr dst, size_t size, const void *pattern,
                                size_t pattern_size);

/* ---- driver entry points (device.c, queue.c, memory.c, module.c) ---- */
HCL_KIT_DECLARE_ENTRIES(hcl__gpu)
/* kernel_params (optional entry), module.c. */
hcl_status hcl__gpu_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                  uint32_t *out_flags);
#if HCL_GPU_CUDA
/* kernel_wait_in_device (optional entry), module.c: CUDA only (HIP has no programmatic dependent launch). */
hcl_status hcl__gpu_kernel_wait_in_device(void *kernel);
/* kernel_max_clusters (optional entry), module.c: CUDA only (HIP has no thread-block clusters). */
hcl_status hcl__gpu_kernel_max_clusters(void *kernel, uint32_t cluster_blocks, uint32_t threads, size_t shared_bytes,
                                        uint32_t *out_count);
#endif
hcl_status hcl__gpu_device_open(uint32_t index, void **out_device);
void hcl__gpu_device_close(void *device);
hcl_status hcl__gpu_host_alloc(void *device, size_t size, void **out_ptr);
void hcl__gpu_host_free(void *device, void *ptr);
/* host_register / host_unregister (optional entry): cuMemHostRegister / hipHostRegister, portable. */
hcl_status hcl__gpu_host_register(void *device, void *ptr, size_t size);
/* event_query (optional entry): cuEventQuery / hipEventQuery (queue.c). */
hcl_status hcl__gpu_event_query(void *event, int *out_done);
void hcl__gpu_host_unregister(void *device, void *ptr);
hcl_status hcl__gpu_get_native(hcl_native_kind kind, void *object, void **out_native);
/* buffer_wrap (optional entry): a device pointer of the application's, checked with the runtime's pointer
 * attributes where it has them (memory.c). */
hcl_status hcl__gpu_buffer_wrap(void *device, void *native, size_t size, void **out_mem);
/* peer_access and buffer_copy_peer (optional entry), peer.c. */
hcl_status hcl__gpu_peer_access(void *device, void *peer, int *out_direct);
hcl_status hcl__gpu_buffer_copy_peer(void *queue, void *dst_device, void *dst, size_t dst_offset, void *src_device,
                                     void *src, size_t src_offset, size_t size, int blocking, uint32_t num_wait,
                                     void *const *wait, void **out_event);

/* ---- device addresses ---- */
/* A buffer's native object is its device address: CUdeviceptr (an integer) or hipDeviceptr_t (a pointer). The
 * arithmetic is done on integers either way (HCL_GPU_DPTR_ADD). */
static inline hcl_gpu_dptr hcl__gpu_ptr(const void *mem) { return HCL_GPU_DPTR(mem); }
static inline hcl_gpu_dptr hcl__gpu_ptr_at(const void *mem, size_t offset) {
    return HCL_GPU_DPTR_ADD(HCL_GPU_DPTR(mem), offset);
}

#endif /* HCL_CUDAHIP_GPU_H */
