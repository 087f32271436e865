/* Shared declarations of the Level Zero driver: the symbol table, the native objects behind the core's handles,
 * the one error macro used at every Level Zero call site, and the entry points by file. Built on the driver kit
 * (drivers/common/kit.h). */
#ifndef HCL_LEVELZERO_INTERNAL_H
#define HCL_LEVELZERO_INTERNAL_H

#include "hcl/hcl_driver.h"
#include "kit.h"
#include "plan.h"
#include "symbols.h"
#include "table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <ze_api.h>

#define HCL_ZE_NAME "levelzero"

/* ---- the symbol table (filled by runtime.c from libze_loader, hcl__kit_resolve) ---- */
typedef struct hcl__ze_symbols {
    HCL_ZE_SYMBOLS(HCL_KIT_SYMBOL_FIELD)
} hcl__ze_symbols;

extern hcl__ze_symbols hcl__ze;
/* The core's services are the kit's; the name stays for the built-in code (kernels.c). */
#define hcl__ze_host hcl__kit_host

#define HCL_ZE_LOG(...) HCL_KIT_LOG(__VA_ARGS__)

/* ---- loading and errors (runtime.c) ---- */
/* Open libze_loader (HCL_LEVELZERO_LIBRARY alone when it is set) and resolve hcl__ze; on failure `reason` says why. */
hcl_status hcl__ze_load(char *reason, size_t reason_size);
/* "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY" for 0x70000003; "ZE_RESULT_UNKNOWN_CODE" for a code not in the table. */
const char *hcl__ze_result_name(ze_result_t r);
/* Set the thread's message to "<fn>: <ZE name> (0x<code>); <detail>" and return the mapped status: out of
 * memory -> HCL_ERROR_OUT_OF_MEMORY, module build/link and invalid native binary -> HCL_ERROR_BUILD, invalid
 * kernel name -> HCL_ERROR_NOT_FOUND, anything else -> HCL_ERROR_VENDOR. */
hcl_status hcl__ze_fail(ze_result_t r, const char *fn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The kit's error check for a Level Zero entry point called through the table; on failure `status` is set and the
 * code jumps to `cleanup`. Every Level Zero call site that can fail goes through it:
 *   HCL_ZE_CHECK(zeMemAllocDevice, (ctx, &desc, size, 128, dev, &ptr), "size %zu bytes", size); */
#define HCL_ZE_CHECK(fn, args, ...)                                                                                    \
    HCL_KIT_CHECK(ze_result_t, hcl__ze.fn args, ZE_RESULT_SUCCESS, hcl__ze_fail, #fn, __VA_ARGS__)

/* ---- devices (driver.c) ---- */
typedef struct hcl__ze_device_entry {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    hcl_device_info info;
    hcl__ze_limits limits;
    uint32_t api_version;    /* zeDriverGetApiVersion */
    uint32_t driver_version; /* ze_driver_properties_t.driverVersion */
    uint32_t vendor_id, device_id;
    uint32_t compute_ordinal;        /* the command queue group with compute */
    size_t max_fill_pattern;         /* of that group: larger patterns take the fill kernel */
    double ns_per_tick;              /* kernel timestamps: from timerResolution (0: the runtime did not say) */
    uint64_t timestamp_mask;         /* kernelTimestampValidBits */
    hcl_driver_limits driver_limits; /* device_limits */
} hcl__ze_device_entry;

/* Events come from pools of this many, made as needed, recycled after zeEventHostReset. Two kinds: the events of
 * commands, with kernel timestamps, and plain ones for the driver's own synchronisation (finish, waits). */
#define HCL_ZE_EVENTS_PER_POOL 64
enum { HCL_ZE_EVENTS_TIMED, HCL_ZE_EVENTS_PLAIN, HCL_ZE_EVENT_KINDS };

typedef struct hcl__ze_event_pools {
    ze_event_pool_handle_t *pools;
    uint32_t pool_count;
    uint32_t pool_used; /* events made from the last pool */
    ze_event_handle_t *free_events;
    uint32_t free_count, free_capacity;
} hcl__ze_event_pools;

typedef struct hcl__ze_helper {
    pthread_mutex_t lock;      /* guards the lazy build and each launch (zeKernelSetArgumentValue mutates a kernel) */
    ze_module_handle_t module; /* NULL until first use */
    ze_kernel_handle_t kernels[HCL_ZE_HELPER_MAX_KERNELS];
    hcl__ze_kernel_limits limits;
} hcl__ze_helper;

/* An opened device: one context for one device, created in device_open. */
typedef struct hcl__ze_device {
    const hcl__ze_device_entry *entry;
    ze_device_handle_t device;
    ze_context_handle_t context;
    atomic_long live; /* Level Zero objects of this device not yet destroyed (checked at close) */

    pthread_mutex_t event_lock; /* the event pools, and the waiter lists of events */
    hcl__ze_event_pools events[HCL_ZE_EVENT_KINDS];

    hcl__ze_helper helpers[HCL_ZE_HELPER_COUNT]; /* the driver's helper programs (helpers.c) */
} hcl__ze_device;

/* Count a Level Zero object made (+1) or destroyed (-1) for the device. */
static inline void hcl__ze_live(hcl__ze_device *dev, long delta) { atomic_fetch_add(&dev->live, delta); }

/* ---- queues (queue.c), events and commands (command.c) ---- */
#define HCL_ZE_STAGING_BYTES ((size_t)1 << 20)

typedef struct hcl__ze_queue {
    hcl__ze_device *dev;
    ze_command_list_handle_t list; /* immediate, asynchronous, on the compute group */
    ze_event_handle_t sync_event;  /* signalled by the barrier that queue_finish appends */
    int pending;                   /* commands appended since the last finish: the next one needs a barrier */
    void *marker_mem;              /* 4 bytes of device memory that markers fill */
    void *staging;                 /* HCL_ZE_STAGING_BYTES of host memory for small blocking transfers */
} hcl__ze_queue;

/* A barrier that waits for events (of other queues, or of this one) signals a plain event of its own, a waiter:
 * an event in a wait list must not be reset and reused until every barrier waiting for it has passed, since a
 * Level Zero wait reads the event when the barrier runs, not when it is appended. Shared by the events the barrier
 * waits for; freed by the last of them. */
typedef struct hcl__ze_waiter {
    ze_event_handle_t ev;
    uint32_t refs;
} hcl__ze_waiter;

/* An event: the first and the last Level Zero event of one HCL command (they differ when a command is several
 * parts), so elapsed time covers all of it. A marker is one instant: its end stands for its start. */
typedef struct hcl__ze_event {
    hcl__ze_device *dev;
    ze_event_handle_t first;
    ze_event_handle_t last; /* == first for a command of one part */
    int first_submitted;    /* a command that signals it was appended */
    int last_submitted;
    int marker;
    hcl__ze_waiter **waiters; /* barriers appended that wait for `last` (under the device's event_lock) */
    uint32_t waiter_count, waiter_capacity;
} hcl__ze_event;

/* One HCL command on a queue, appended in `parts` parts (launches or copies) that run one after another.
 * hcl__ze_cmd_begin takes the event (if one is wanted); before each part, hcl__ze_cmd_part appends the barrier
 * that keeps the queue in order (with the wait list, before the first part) and gives the event that part
 * signals (or NULL); hcl__ze_cmd_end waits when blocking, hands the event out on success, and recycles it on
 * failure. Always call hcl__ze_cmd_end after a successful hcl__ze_cmd_begin. */
typedef struct hcl__ze_cmd {
    hcl__ze_queue *q;
    hcl__ze_event *ev;
    uint32_t num_wait;
    void *const *wait;
    size_t parts;
    size_t next; /* the part about to be appended */
} hcl__ze_cmd;
hcl_status hcl__ze_cmd_begin(hcl__ze_cmd *cmd, hcl__ze_queue *q, size_t parts, uint32_t num_wait, void *const *wait,
                             int want_event);
hcl_status hcl__ze_cmd_part(hcl__ze_cmd *cmd, ze_event_handle_t *out_signal);
/* Record that the part just appended (with the signal from hcl__ze_cmd_part) was accepted. */
void hcl__ze_cmd_appended(hcl__ze_cmd *cmd);
hcl_status hcl__ze_cmd_end(hcl__ze_cmd *cmd, hcl_status status, int blocking, const char *what, void **out_event);

void hcl__ze_events_init(hcl__ze_device *dev);
void hcl__ze_events_release(hcl__ze_device *dev);
/* A Level Zero event of `kind` (HCL_ZE_EVENTS_TIMED or _PLAIN) from the device's pools, and back to them (`submitted`:
 * a command that signals it was appended, waited for first). hcl__ze_event_free gives back an HCL event's first and
 * last and frees it. */
hcl_status hcl__ze_event_take(hcl__ze_device *dev, int kind, ze_event_handle_t *out);
void hcl__ze_event_give(hcl__ze_device *dev, int kind, ze_event_handle_t ev, int submitted);
void hcl__ze_event_free(hcl__ze_event *ev);

/* ---- memory (memory.c) ---- */
/* Device memory for the driver's own use (markers): counted like buffers. hcl__ze_device_free also
 * frees host allocations (zeMemFree takes both). */
hcl_status hcl__ze_device_alloc(hcl__ze_device *dev, size_t size, const char *what, void **out_ptr);
void hcl__ze_device_free(hcl__ze_device *dev, void *ptr);

/* ---- modules (module.c) ---- */
/* Build a module from SPIR-V for the device, through the on-disk cache of native binaries. HCL_ERROR_BUILD with
 * the build log in the message when the module does not build. `what` names it in messages. */
hcl_status hcl__ze_module_build(hcl__ze_device *dev, const void *spirv, size_t size, const char *options,
                                const char *what, ze_module_handle_t *out_module);
/* Set one helper launch's group size and arguments on `kernel` and append it (the caller holds the kernel's
 * lock). */
hcl_status hcl__ze_append_launch(hcl__ze_cmd *cmd, ze_kernel_handle_t kernel, const char *name, hcl_dim3 grid,
                                 hcl_dim3 block, size_t shared_bytes, uint32_t num_args, const hcl_driver_arg *args);

/* ---- the driver's helper kernels (helpers.c) ---- */
void hcl__ze_helpers_init(hcl__ze_device *dev);
void hcl__ze_helpers_release(hcl__ze_device *dev);
/* Fill with the fill kernel (for patterns the runtime's fill does not take, and markers). */
hcl_status hcl__ze_fill_kernel(hcl__ze_queue *q, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, uint32_t num_wait, void *const *wait, int blocking, int marker,
                               void **out_event);

/* ---- driver entry points (queue.c, command.c, memory.c, module.c; driver.c's table) ---- */
HCL_KIT_DECLARE_ENTRIES(hcl__ze)
/* kernel_params (optional entry), module.c: from the module's SPIR-V. */
hcl_status hcl__ze_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                 uint32_t *out_flags);
hcl_status hcl__ze_host_alloc(void *device, size_t size, void **out_ptr);
/* buffer_wrap (optional entry): a device or shared USM pointer of the device's context, checked with
 * zeMemGetAllocProperties and zeMemGetAddressRange (memory.c). */
hcl_status hcl__ze_buffer_wrap(void *device, void *native, size_t size, void **out_mem);
/* event_query (optional entry): zeEventQueryStatus (queue.c). */
hcl_status hcl__ze_event_query(void *event, int *out_done);
void hcl__ze_host_free(void *device, void *ptr);

#endif /* HCL_LEVELZERO_INTERNAL_H */
