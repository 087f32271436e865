/* Library-internal declarations shared by the core's files. Never included by drivers or users. */
#ifndef HCL_CORE_H
#define HCL_CORE_H

#include "hcl/hcl.h"
#include "hcl/hcl_driver.h"
#include "hcl_plan.h"
#include "trace.h"

#include <pthread.h>
#include <stdatomic.h>

#define HCL__HIDDEN __attribute__((visibility("hidden")))

/* ---- messages and logging (status.c, log.c) ---- */
HCL__HIDDEN hcl_status hcl__set_message(hcl_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix the current thread message with "<fn>: " (used after a driver failure). Returns status; HCL_SUCCESS changes
 * nothing, so `return hcl__prefix_message(driver_status, fn);` ends a call. */
HCL__HIDDEN hcl_status hcl__prefix_message(hcl_status status, const char *fn);
HCL__HIDDEN void hcl__log(hcl_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
HCL__HIDDEN void hcl__vlog(hcl_log_level level, const char *component, const char *fmt, va_list ap);

/* ---- the on-disk cache (cache.c) ---- */
HCL__HIDDEN void *hcl__cache_load(const char *driver, const void *key, size_t key_size, size_t *out_size);
/* The on-disk cache offered to drivers (hcl_driver_host.cache_load/cache_store/cache_evict): a load gives a malloc'd
 * copy of the payload stored under exactly (driver, key), or NULL on a miss (no entry, or one that is not a regular
 * file, truncated, corrupted or holding another key: logged at warn); a store writes a temporary and renames it into
 * place (failures logged, never fatal); an evict removes the entry. */
HCL__HIDDEN void hcl__cache_store(const char *driver, const void *key, size_t key_size, const void *data, size_t size);
HCL__HIDDEN void hcl__cache_evict(const char *driver, const void *key, size_t key_size);

/* ---- backends and the loader (loader.c) ---- */
/* A backend's part in the default choice (hcl_device_open(NULL) without HCL_BACKEND), from the build's list. */
typedef enum hcl__default_role {
    HCL__DEFAULT_NONE = 0,    /* never the default (HCL_EXTRA_DRIVERS names) */
    HCL__DEFAULT_GPU = 1,     /* its first GPU, tried in list order */
    HCL__DEFAULT_FALLBACK = 2 /* the default when no GPU backend has a GPU */
} hcl__default_role;

typedef struct hcl__backend {
    char name[32];
    hcl_driver_entry_fn embedded; /* the table of a backend compiled into libhcl; NULL: a module */
    hcl__default_role default_role;
    int loaded;    /* load was attempted */
    int available; /* driver initialised */
    int retry;     /* the last load failed for want of host memory: the next load tries again */
    const hcl_driver_table *drv;
    void *dl; /* dlopen handle of the module (NULL when embedded) */
    uint32_t device_count;
    char module_path[HCL_NAME_MAX];
    char version[HCL_NAME_MAX];
    char reason[HCL_REASON_MAX];
} hcl__backend;

/* The backend list, built once: the build's list (HCL_BACKENDS in the root CMakeLists.txt, through the generated
 * hcl_backends.h), then the HCL_EXTRA_DRIVERS names. */
HCL__HIDDEN uint32_t hcl__backend_total(void);
HCL__HIDDEN hcl__backend *hcl__backend_at(uint32_t index);
HCL__HIDDEN hcl__backend *hcl__backend_find(const char *name, size_t name_len);
/* Load (once) and return the backend; check ->available. */
HCL__HIDDEN hcl__backend *hcl__backend_load(hcl__backend *backend);
/* "cuda, hip, levelzero, opencl, vulkan, host" plus extras, into buf. */
HCL__HIDDEN void hcl__backend_names(char *buf, size_t size);
HCL__HIDDEN const hcl_driver_host *hcl__driver_host(void);
/* Resolve a selector (NULL/"": the environment) to a backend and device index (select.c). */
HCL__HIDDEN hcl_status hcl__select(const char *selector, hcl__backend **out_backend, uint32_t *out_index);

/* ---- handles (handles.c) ---- */
/* The handle types, X(ID, name in messages), one list: HCL__H_<ID> numbered from 1 in this order (0 is no type). */
#define HCL__HTYPES(X)                                                                                                 \
    X(DEVICE, "device")                                                                                                \
    X(QUEUE, "queue") X(BUFFER, "buffer") X(EVENT, "event") X(MODULE, "module") X(KERNEL, "kernel") X(COMM, "comm")
typedef enum hcl__htype {
    HCL__H_NONE = 0,
#define HCL__HTYPE_ENUM(id, name) HCL__H_##id,
    HCL__HTYPES(HCL__HTYPE_ENUM)
#undef HCL__HTYPE_ENUM
} hcl__htype;

/* ---- the objects behind handles: one file each (device.c, queue.c, buffer.c, event.c, module.c) ----
 * Their structs are here so that any core file may read an object's dev, native, size and info (a transfer
 * passes its buffers' natives to the driver). Only the object's own file creates, changes or frees one; a field
 * marked with a file name is touched by that file alone, and other files use the hcl__ functions below. */
typedef struct hcl__device {
    hcl__backend *backend;
    const hcl_driver_table *drv;
    uint32_t index;
    void *native;
    hcl_device_info info;
    atomic_int refs;                        /* lifetime.c: the handle's + every live child object's (host blocks too) */
    void (*close)(struct hcl__device *dev); /* device.c: what the last unref runs (undoes the open, frees) */
    pthread_mutex_t host_lock;              /* host_memory.c: guards host_blocks */
    struct hcl__host_block *host_blocks;    /* host_memory.c: live hcl_host_alloc blocks, to check hcl_host_free */
    _Atomic(struct hcl__builtins *) builtins; /* builtin_runner.c: built-in programs and kernels, made on first use */
    pthread_mutex_t peer_lock;                /* peer.c: guards the fields below; held for the whole of a staged copy */
    void *stage; /* peer.c: staging host memory of copies between devices (grown on demand), or NULL */
    size_t stage_size;
    int stage_from_driver; /* peer.c: 1: drv->host_free (page-locked); 0: free() */
    void *peer_queue;      /* peer.c: the native queue staged copies use on this device, made on first use */
} hcl__device;

typedef struct hcl__queue {
    hcl__device *dev;
    void *native;
    void *scratch; /* the built-ins' scratch memory (native), made and grown on demand */
    size_t scratch_size;
    /* bytes from the scratch's start that hold zeros (the built-ins that needed zeros left them so) */
    size_t scratch_zeros;
    _Atomic(struct hcl__trace_queue *) trace; /* trace.c: the tracer's state of the queue, while tracing */
} hcl__queue;

typedef struct hcl__buffer {
    hcl__device *dev;
    void *native;
    size_t size;
    int wrapped; /* hcl_buffer_wrap_native: the memory is the application's, never given to buffer_free */
} hcl__buffer;

/* One API call's commands: a call the core runs as several device commands (a built-in of two launches) is one
 * event, so it keeps both ends of its group. */
typedef struct hcl__event {
    hcl__device *dev;
    void *native;    /* the last command's native event: what a wait (or a wait list) waits on */
    void *first;     /* NULL, or the first command's native event: where hcl_event_elapsed starts timing */
    atomic_int refs; /* lifetime.c: the handle's + the tracer's (it reads the times of a command after its call) */
} hcl__event;

typedef struct hcl__module {
    hcl__device *dev;
    void *native;
    atomic_int refs; /* module.c: the handle + every live kernel */
} hcl__module;

/* A kernel's declared parameters as its driver reported them (kernel_params): what hcl_kernel_launch checks the
 * arguments against. */
typedef struct hcl__kernel_params {
    int known;                /* the driver gave at least the count */
    uint32_t count;           /* parameters the kernel declares */
    uint32_t flags;           /* HCL_DRIVER_PARAMS_* */
    hcl_driver_param *params; /* the first min(count, HCL__MAX_PARAMS) of them (malloc'd), or NULL */
    char kernel_name[64];     /* for messages */
} hcl__kernel_params;
#define HCL__MAX_PARAMS 65 /* a launch's 64 arguments + the dynamic local memory parameter */

typedef struct hcl__kernel {
    hcl__module *module;
    void *native;
    pthread_mutex_t lock;      /* module.c: held from setting a launch's arguments until it is enqueued */
    hcl_driver_limits limits;  /* the device's launch limits, asked once when the kernel is made (0: unknown) */
    uint64_t max_group;        /* the most work-items a group of this kernel may have (0: unknown) */
    char *name;                /* module.c: the name it was created with */
    hcl__kernel_params params; /* its declared parameters, asked once when the kernel is made (kernel_args.c) */
} hcl__kernel;

/* The handle table (handles.c). Register an object; returns its handle value or NULL if the table cannot grow. */
HCL__HIDDEN void *hcl__handle_add(hcl__htype type, void *object);
/* The table's slots, in chunks that never move once made (handles.c adds and removes under its lock; a lookup reads
 * them without it, inlined into every call's checks). A handle's 64 bits: slot index + 1 (bits 0-31), the slot's
 * generation (32-55), the object type (56-63). */
#define HCL__HANDLE_CHUNK_BITS 12
#define HCL__HANDLE_CHUNK_SLOTS (1u << HCL__HANDLE_CHUNK_BITS)
#define HCL__HANDLE_MAX_CHUNKS 4096u /* 2^24 slots: live handles at once */
typedef struct hcl__slot {
    _Atomic(void *) object; /* NULL when free */
    atomic_uint gen;        /* bumped on every removal */
    atomic_uint type;
    uint32_t next_free; /* under the lock */
} hcl__slot;
extern HCL__HIDDEN _Atomic(hcl__slot *) hcl__handle_chunks[HCL__HANDLE_MAX_CHUNKS];

/* Slot `index` (below HCL__HANDLE_MAX_CHUNKS * HCL__HANDLE_CHUNK_SLOTS), or NULL when its chunk is not made yet. */
static inline hcl__slot *hcl__handle_slot(uint32_t index) {
    hcl__slot *chunk = atomic_load_explicit(&hcl__handle_chunks[index >> HCL__HANDLE_CHUNK_BITS], memory_order_acquire);
    return chunk ? &chunk[index & (HCL__HANDLE_CHUNK_SLOTS - 1)] : NULL;
}

/* The slot of a handle that matches a live slot of `type` (its object in *object), or NULL. Without the lock: a slot
 * removed meanwhile shows a NULL object or a new generation. */
static inline hcl__slot *hcl__handle_decode(const void *handle, hcl__htype type, void **object) {
    const uint64_t v = (uint64_t)(uintptr_t)handle;
    const uint32_t low = (uint32_t)v;
    if (low == 0 || low > HCL__HANDLE_MAX_CHUNKS * HCL__HANDLE_CHUNK_SLOTS || (uint8_t)(v >> 56) != (uint8_t)type)
        return NULL;
    hcl__slot *s = hcl__handle_slot(low - 1);
    if (!s) return NULL;
    void *o = atomic_load_explicit(&s->object, memory_order_acquire);
    if (!o || ((v >> 32) & 0xFFFFFFu) != (atomic_load_explicit(&s->gen, memory_order_acquire) & 0xFFFFFFu) ||
        atomic_load_explicit(&s->type, memory_order_relaxed) != (uint8_t)type)
        return NULL;
    *object = o;
    return s;
}

/* The object behind a handle of that type, or NULL (NULL, released, or wrong type). */
static inline void *hcl__handle_get(const void *handle, hcl__htype type) {
    void *object = NULL;
    return hcl__handle_decode(handle, type, &object) ? object : NULL;
}
/* Remove a handle; returns the object or NULL if the handle was not valid. */
HCL__HIDDEN void *hcl__handle_remove(const void *handle, hcl__htype type);

/* ---- lifetimes (lifetime.c): below every object file and the tracer ---- */
/* Device references: every child object takes one; the last unref runs dev->close. */
HCL__HIDDEN void hcl__device_ref(hcl__device *dev);
HCL__HIDDEN void hcl__device_unref(hcl__device *dev);
/* References on an event object (the handle's, the tracer's): the last unref releases its natives and its device
 * reference. */
HCL__HIDDEN void hcl__event_ref(hcl__event *ev);
HCL__HIDDEN void hcl__event_unref(hcl__event *ev);
/* Release an event's natives of dev: first and last, each when not NULL. */
HCL__HIDDEN void hcl__event_natives_release(hcl__device *dev, void *first, void *last);

/* The device's list of host allocations (host_memory.c): set up when the device opens, torn down at its close. */
HCL__HIDDEN void hcl__host_memory_init(hcl__device *dev);
HCL__HIDDEN void hcl__host_memory_fini(hcl__device *dev);

/* Copies between buffers of two devices (peer.c): set up when the device opens, torn down (staging memory freed,
 * internal queue finished and destroyed) before its close. */
HCL__HIDDEN void hcl__peer_init(hcl__device *dev);
HCL__HIDDEN void hcl__peer_fini(hcl__device *dev);
/* A validated copy of size > 0 between dst and src of two devices, the queue's device being one of them; wait holds
 * the queue device's natives of the wait list. The vendor's peer copy on q where the driver has direct access, else
 * staged through host memory (then complete on return, out_event a marker on q). */
HCL__HIDDEN hcl_status hcl__peer_copy(const char *fn, hcl__queue *q, hcl__buffer *dst, size_t dst_offset,
                                      hcl__buffer *src, size_t src_offset, size_t size, int blocking, uint32_t num_wait,
                                      void **wait, hcl_event *out_event);

/* ---- shared validation helpers (validate.c) ---- */
/* Look up a handle into *out, or fail with HCL_ERROR_INVALID_HANDLE and a message "<fn>: <what> is NULL/not a valid
 * ..." (*out NULL then). */
HCL__HIDDEN hcl_status hcl__lookup(const void *handle, hcl__htype type, void **out, const char *fn, const char *what);
/* hcl__lookup's failure alone, for a hot path that looked the handle up itself (hcl__handle_get) and found nothing:
 * HCL_ERROR_INVALID_HANDLE with hcl__lookup's message. */
HCL__HIDDEN hcl_status hcl__lookup_failed(const void *handle, hcl__htype type, const char *fn, const char *what);
/* hcl__lookup, then the call's out-parameter `out` (named `out_name`) must not be NULL. */
HCL__HIDDEN hcl_status hcl__lookup_out(const void *handle, hcl__htype type, void **object, const void *out,
                                       const char *fn, const char *what, const char *out_name);
/* A get call: hcl__lookup_out, then copy the object's field (at field_offset, `size` bytes) to out. */
HCL__HIDDEN hcl_status hcl__get(const void *handle, hcl__htype type, size_t field_offset, size_t size, void *out,
                                const char *fn, const char *what, const char *out_name);
/* Remove the handle of a release call and give its object, or fail as hcl__lookup does. */
HCL__HIDDEN hcl_status hcl__take(const void *handle, hcl__htype type, void **out, const char *fn, const char *what);
/* A release call: remove the handle and destroy(object), or fail as hcl__lookup does. */
HCL__HIDDEN hcl_status hcl__release(const void *handle, hcl__htype type, void (*destroy)(void *object), const char *fn,
                                    const char *what);
/* Register a new object and give its handle; when the table cannot grow, destroy(object) undoes its creation and
 * the call fails with HCL_ERROR_OUT_OF_MEMORY ("<fn>: handle table full (out of host memory growing it)"). */
HCL__HIDDEN hcl_status hcl__publish(hcl__htype type, void *object, void (*destroy)(void *object), void **out_handle,
                                    const char *fn);
/* Check a launch's shape before any driver sees it (HCL_ERROR_INVALID_ARGUMENT, the limit named in the message): no
 * zero dimension; the block's work-items (64-bit products, overflow checked) within the device's
 * max_work_group_size and the kernel's max_group (when known); each grid dimension within limits->max_groups (when
 * known); all the launch's work-items below HCL__LAUNCH_MAX_ITEMS; shared_bytes within local_mem_bytes. */
#define HCL__LAUNCH_MAX_ITEMS ((uint64_t)1 << 63)
HCL__HIDDEN hcl_status hcl__check_launch(const char *fn, const hcl_device_info *info, const hcl_driver_limits *limits,
                                         uint64_t kernel_max_group, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes);
/* Ask the driver for a kernel's parameters (kernel_params) into *out; unknown (known 0) when the driver has no such
 * entry, fails, or host memory runs out. Free with hcl__kernel_params_free. */
HCL__HIDDEN void hcl__kernel_params_get(const hcl_driver_table *drv, void *native_kernel, const char *name,
                                        hcl__kernel_params *out);
HCL__HIDDEN void hcl__kernel_params_free(hcl__kernel_params *params);
/* Check a launch's arguments (kinds already checked to be BUFFER or VALUE) against the kernel's declared parameters:
 * their count (with the dynamic local memory parameter where the backend passes shared_bytes as one), each kind,
 * and each value's size where known. HCL_ERROR_INVALID_ARGUMENT naming the parameter (index, name and type where
 * known); HCL_SUCCESS when they match or the parameters are not known. */
HCL__HIDDEN hcl_status hcl__check_args(const char *fn, const hcl__kernel_params *params, size_t shared_bytes,
                                       uint32_t num_args, const hcl_arg *args);
/* Look up a buffer of `dev` holding at least `elems` elements of `type` (a valid hcl_dtype); elems_ok 0 means the
 * caller's element count overflowed. HCL_ERROR_INVALID_HANDLE, HCL_ERROR_DEVICE_MISMATCH, HCL_ERROR_OUT_OF_RANGE
 * (the sizes named). */
HCL__HIDDEN hcl_status hcl__lookup_elems(const char *fn, const hcl__device *dev, hcl_buffer handle, const char *what,
                                         hcl_dtype type, size_t elems, int elems_ok, hcl__buffer **out);
/* Check [offset, offset+size) inside a buffer of buf_size bytes. */
HCL__HIDDEN hcl_status hcl__check_range(const char *fn, const char *what, size_t offset, size_t size, size_t buf_size);
/* Resolve a wait list to native events of `dev`; *out_native is a malloc'd array (or NULL when num_wait is 0). */
HCL__HIDDEN hcl_status hcl__resolve_wait(const char *fn, hcl__device *dev, uint32_t num_wait,
                                         const hcl_event *wait_list, void ***out_native);

/* ---- events (event.c) ---- */
/* Wrap the native event of a command just queued on q into an event handle stored in *out_event (if out_event is
 * not NULL); while tracing, the tracer gets the command too (native is not NULL then: HCL__WANT_EVENT). On failure
 * the native event is released. */
HCL__HIDDEN hcl_status hcl__wrap_event(const char *fn, hcl__queue *q, void *native, hcl_event *out_event);
/* The same for a group of commands run as one call: `first` (NULL, or equal to `last`, for a group of one) and
 * `last` become one event that waits on `last` and times from `first`. When out_event is NULL (and the tracer does
 * not take them) both natives are released and it returns HCL_SUCCESS; on failure both are released. */
HCL__HIDDEN hcl_status hcl__wrap_event_span(const char *fn, hcl__queue *q, void *first, void *last,
                                            hcl_event *out_event);

/* ---- built-in kernels (builtin_runner.c) ---- */
/* One built-in call, validated: the op, its shape, and the native memory of each slot (A, B, C). */
typedef struct hcl__builtin_call {
    hcl_kop op;
    hcl_dtype type; /* vecadd, softmax, reduce: the elements' type (gemm: in .gemm) */
    size_t n, rows, cols;
    hcl_reduce_op reduce_op;
    hcl_kgemm gemm;
    void *mem[HCL_KSLOT_COUNT];
} hcl__builtin_call;
/* Run a built-in call on the queue as launches of the device's built-in programs; one event spans them all. */
HCL__HIDDEN hcl_status hcl__builtin_run(const char *fn, hcl__queue *q, const hcl__builtin_call *call,
                                        hcl_event *out_event);
/* Whether dev can run the call (its program builds, a plan exists), without running it: HCL_SUCCESS, or the status
 * and message hcl__builtin_run would give (HCL_ERROR_UNSUPPORTED for a type the device's kernels lack). */
HCL__HIDDEN hcl_status hcl__builtin_check(const char *fn, hcl__device *dev, const hcl__builtin_call *call);
/* Release a device's built-in programs and kernels (when the device goes). */
HCL__HIDDEN void hcl__builtins_release(hcl__device *dev);
/* Release a queue's built-in scratch (after the queue finished, before it is destroyed). */
HCL__HIDDEN void hcl__builtins_queue_release(hcl__queue *q);

#endif /* HCL_CORE_H */
