/* Shared declarations of the Vulkan driver: the symbol table, the native objects behind the core's handles, the one
 * error macro used at every Vulkan call site, and the entry points by file. Built on the driver kit
 * (drivers/common/kit.h). docs/backends.md ("Vulkan") says how HCL's objects map onto Vulkan's. */
#ifndef HCL_VULKAN_INTERNAL_H
#define HCL_VULKAN_INTERNAL_H

#include "hcl/hcl_driver.h"
#include "ext_types.h"
#include "kit.h"
#include "spirv_reflect.h"
#include "symbols.h"
#include "table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#define HCL_VK_NAME "vulkan"

/* ---- the symbol table (runtime.c) ---- */
typedef struct hcl__vk_symbols {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    HCL_VK_GLOBAL_SYMBOLS(HCL_KIT_SYMBOL_FIELD)
    HCL_VK_SYMBOLS(HCL_KIT_SYMBOL_FIELD)
} hcl__vk_symbols;
extern hcl__vk_symbols hcl__vk;
/* The one instance of the process (made by start, never destroyed: the devices' entries refer to it). */
extern VkInstance hcl__vk_instance;

/* ---- loading and errors (runtime.c) ---- */
/* Open the loader (HCL_VULKAN_LIBRARY alone when set, else libvulkan.so.1, libvulkan.so), create the instance
 * (Vulkan 1.2 at least: timeline semaphores) and resolve the table; on failure `reason` says why. */
hcl_status hcl__vk_load(char *reason, size_t reason_size, char *version, size_t version_size);
/* "VK_ERROR_OUT_OF_DEVICE_MEMORY" for -2; "VK_RESULT_UNKNOWN_CODE" for a code not in the table. */
const char *hcl__vk_result_name(VkResult r);
/* Set the thread's message to "<fn>: <VkResult name> (<code>); <detail>" and return the mapped status: out of host or
 * device memory -> HCL_ERROR_OUT_OF_MEMORY, VK_ERROR_INVALID_SHADER_NV -> HCL_ERROR_BUILD, feature or extension not
 * present -> HCL_ERROR_UNSUPPORTED, anything else -> HCL_ERROR_VENDOR. */
hcl_status hcl__vk_fail(VkResult r, const char *fn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The kit's error check for a Vulkan call through the table; on failure `status` is set and the code jumps to
 * `cleanup`:  HCL_VK_CHECK(vkCreateBuffer, (dev->device, &info, NULL, &buf), "size %zu bytes", size); */
#define HCL_VK_CHECK(fn, args, ...) HCL_KIT_CHECK(VkResult, hcl__vk.fn args, VK_SUCCESS, hcl__vk_fail, #fn, __VA_ARGS__)
#define HCL_VK_STATUS(fn, args, ...)                                                                                   \
    HCL_KIT_STATUS(VkResult, hcl__vk.fn args, VK_SUCCESS, hcl__vk_fail, #fn, __VA_ARGS__)

/* ---- devices (driver.c) ---- */
typedef struct hcl__vk_device_entry {
    VkPhysicalDevice phys;
    hcl_device_info info;
    hcl_driver_limits limits;
    uint32_t queue_family;      /* the first family with compute */
    uint32_t timestamp_bits;    /* of that family: 0 means no timestamps (elapsed time then unsupported) */
    double ns_per_tick;         /* VkPhysicalDeviceLimits.timestampPeriod */
    uint32_t api_version;       /* of the device */
    uint32_t max_push_bytes;    /* maxPushConstantsSize */
    uint32_t has_16bit_storage; /* storageBuffer16BitAccess (f16/bf16 kernels read and write 16-bit elements) */
    uint32_t has_int16;         /* shaderInt16 */
    uint32_t has_float16;       /* shaderFloat16 (VkPhysicalDeviceShaderFloat16Int8Features) */
    /* HCL_TYPE_BIT of the input types (f16, bf16) the device multiplies as kernels/gemm/gemm_coop.comp does: through
     * VK_KHR_cooperative_matrix with its cooperativeMatrix feature, an entry of 16 x 16 x 16, that type x that type +
     * f32 on sub-groups of 32 (bf16 also needs VK_KHR_shader_bfloat16 with its type and cooperative matrices),
     * shaderFloat16, 16-bit storage and vulkanMemoryModel: the device is made with those extensions and features on,
     * and reports matrix_unit HCL_MATRIX_UNIT_TENSOR_CORE with these matrix_types */
    uint32_t coop_types;
    uint8_t cache_uuid[VK_UUID_SIZE];
    uint32_t vendor_id, device_id, driver_version;
} hcl__vk_device_entry;

struct hcl__vk_queue;

/* An opened device: a VkDevice with one compute queue (several HCL queues submit to it, under `submit_lock`), the
 * memory type its buffers take, a staging one, and the pipeline cache (kept in the core's disk cache). */
typedef struct hcl__vk_device {
    const hcl__vk_device_entry *entry;
    VkDevice device;
    VkQueue queue;
    pthread_mutex_t submit_lock;  /* vkQueueSubmit on `queue` is externally synchronised */
    pthread_mutex_t queues_lock;  /* `queues` (taken before any queue's lock, never while holding one) */
    struct hcl__vk_queue *queues; /* the HCL queues not yet destroyed, linked by their `next` */
    uint32_t buffer_type;         /* memory type of buffers: device-local first */
    uint32_t staging_type;        /* memory type of staging: host-visible and coherent */
    int buffers_mapped;           /* buffer_type is host-visible and coherent too (a CPU or integrated device): buffers
                                   * are mapped while they live, read and written by memcpy (HCL_VULKAN_MAPPED=0: not) */
    VkPipelineCache pipeline_cache;
    size_t cache_size_loaded; /* bytes of the pipeline cache loaded at open (stored again at close when it grew) */
    PFN_vkCmdPushDescriptorSetKHR push_descriptors;
    atomic_long live;     /* Vulkan objects not yet destroyed (checked at close) */
    uint64_t submissions; /* vkQueueSubmit calls on `queue` (under submit_lock): the order of the queues' last ones */
    /* The submitter (queue.c): a thread, started when a queue first holds a batch back, that submits each held batch
     * once the submission before it completed; told to stop and joined at close. */
    pthread_mutex_t held_lock; /* the three below (taken after a queue's lock, never before one) */
    pthread_cond_t held_cond;  /* signalled when `held_new` is set or the submitter is told to stop */
    int held_new;              /* a queue held a batch back since the submitter last looked */
    int submitter_state;       /* 0: no thread, 1: running, 2: told to stop */
    pthread_t submitter;
} hcl__vk_device;

static inline void hcl__vk_live(hcl__vk_device *dev, long delta) { atomic_fetch_add(&dev->live, delta); }

/* ---- memory (alloc.c) ---- */
typedef struct hcl__vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    size_t size;
    void *mapped; /* when the memory is host-visible (the staging, or buffers of a CPU device) */
} hcl__vk_buffer;
/* A buffer of `size` bytes of memory type `type` with every usage HCL needs (storage, transfer source and
 * destination); mapped when `map`. HCL_ERROR_OUT_OF_MEMORY or a vendor status with the message set. */
hcl_status hcl__vk_buffer_make(hcl__vk_device *dev, size_t size, uint32_t type, int map, hcl__vk_buffer *out);
void hcl__vk_buffer_unmake(hcl__vk_device *dev, hcl__vk_buffer *b);

/* ---- queues, commands and events (queue.c) ---- */
#define HCL_VK_STAGING_BYTES ((size_t)8 << 20)

/* Commands per submission at most, unless HCL_VULKAN_BATCH says otherwise (docs/backends.md, "Vulkan"). */
#define HCL_VK_BATCH_DEFAULT 32

/* A command buffer of the queue and the timeline value that says its submission completed (TAKEN: recording). */
typedef struct hcl__vk_inflight {
    VkCommandBuffer cb;
    uint64_t value;
} hcl__vk_inflight;

/* Commands whose submission failed: timeline values first..last never ran (the host signalled them instead); their
 * events report `result` of `fn`. */
typedef struct hcl__vk_failure {
    uint64_t first, last;
    VkResult result;
    const char *fn;
} hcl__vk_failure;

/* An HCL queue. Every command takes the next value of the timeline (`recorded`) and is recorded into the open batch,
 * a command buffer submitted as a whole (signalling its last command's value) when the GPU has finished what was
 * submitted before (at once by the caller, or later by the device's submitter thread), when it holds `batch_max`
 * commands, or when something must observe its commands (queue.c). */
typedef struct hcl__vk_queue {
    hcl__vk_device *dev;
    pthread_mutex_t lock;   /* everything below but `refs` and `next` */
    VkCommandPool pool;     /* command buffers of this queue, reset when begun again */
    VkSemaphore timeline;   /* signalled to `submitted` by the last submission */
    uint64_t recorded;      /* the value of the last command recorded (submitted or in the open batch) */
    uint64_t submitted;     /* the value the last submission signals; the open batch's commands are above it */
    uint64_t completed;     /* the timeline's value when it was last read */
    uint32_t batch_max;     /* HCL_VULKAN_BATCH: commands per submission at most (1: each its own) */
    int submit_when_idle;   /* HCL_VULKAN_BATCH_IDLE (default 1): submit at once when the GPU has finished */
    uint32_t batch;         /* the open batch: its index in `flights`; UINT32_MAX when none is open */
    uint32_t batch_count;   /* the commands (parts) in it */
    VkPipeline bound;       /* the pipeline bound in it (module.c binds only when another is wanted) */
    VkSemaphore *wait_sems; /* the timeline waits of the open batch (events of other queues its commands named) */
    uint64_t *wait_values;
    VkPipelineStageFlags *wait_stages;
    uint32_t num_wait, cap_wait;
    hcl__vk_inflight *flights; /* command buffers: in flight (value > completed), recording, or free to reuse */
    uint32_t flight_count, flight_capacity;
    hcl__vk_failure *failures; /* submissions that failed, in value order (adjacent ones of one result merged) */
    uint32_t num_failures;
    hcl__vk_failure late;   /* a batch the submitter failed to submit, not yet reported by a call (fn NULL: none) */
    int held;               /* the open batch waits for `submitted` to complete: the submitter watches the queue */
    uint64_t order;         /* dev->submissions at the queue's last submission (the submitter waits for the oldest) */
    hcl__vk_buffer staging; /* HCL_VK_STAGING_BYTES host-visible, for reads and writes */
    int refs; /* the HCL queue's own, and one for each of its events alive (an event may outlive its queue: its
               * timeline semaphore stays until the last of them is released) */
    struct hcl__vk_queue *next; /* in the device's list (under dev->queues_lock) */
} hcl__vk_queue;

/* An event: the timeline value of its command's last part, and a query pool of two timestamps (the start of the
 * command's first part and the end of its last) when the queue family has timestamps. */
typedef struct hcl__vk_event {
    hcl__vk_queue *q;
    VkSemaphore timeline;
    uint64_t value;
    VkQueryPool queries; /* VK_NULL_HANDLE without timestamps */
    int marker;          /* a marker is one instant: its start timestamp stands for its end */
} hcl__vk_event;

/* One HCL command recorded into the queue's open batch, in one or more parts (a transfer larger than the staging is
 * several, each submitted and waited for): begin (the wait list joins the batch), record into cmd->cb, end (each part
 * takes a timeline value), finish. */
typedef struct hcl__vk_cmd {
    hcl__vk_queue *q;
    VkCommandBuffer cb; /* the open batch's, while a part is being recorded */
    hcl__vk_event *ev;  /* when an event is wanted */
    int first;          /* the part being recorded is the command's first */
    int marker;         /* a marker: one timestamp */
} hcl__vk_cmd;

/* When a command's part, once recorded, is submitted. */
typedef enum hcl__vk_when {
    HCL_VK_BATCHED, /* with its batch: at once when the GPU is idle, else when the batch is full or observed */
    HCL_VK_WAITED   /* its batch submitted now and waited for */
} hcl__vk_when;

/* Submit the open batches of the queues holding the wait list's events, lock the queue, open a batch if none is
 * (the wait list's events of other queues join its waits), and record the part's barrier (it orders the command after
 * everything recorded or submitted before on the device's VkQueue) and, first, the start timestamp. On failure the
 * queue is unlocked again. */
hcl_status hcl__vk_cmd_begin(hcl__vk_cmd *cmd, hcl__vk_queue *q, uint32_t num_wait, void *const *wait, int want_event);
/* End the part recorded (the last part writes the end timestamp, `last`): it takes the next timeline value, and its
 * batch is submitted as `when` says. The queue stays locked (hcl__vk_cmd_finish unlocks). A failed submission's status
 * is returned here (and by the events of every command in that batch). */
hcl_status hcl__vk_cmd_submit(hcl__vk_cmd *cmd, int last, hcl__vk_when when);
/* Begin the next part of a command after hcl__vk_cmd_submit (the queue still locked). */
hcl_status hcl__vk_cmd_next(hcl__vk_cmd *cmd);
/* Unlock the queue; on success hand the event out, else free it. Returns `status`. */
hcl_status hcl__vk_cmd_finish(hcl__vk_cmd *cmd, hcl_status status, void **out_event);
/* Wait until the queue's timeline reaches `value`. */
hcl_status hcl__vk_wait_value(hcl__vk_device *dev, VkSemaphore timeline, uint64_t value, const char *what);
/* Submit every queue's open batch and wait for all of them: before something their commands use is destroyed (a
 * kernel's pipelines). */
void hcl__vk_device_drain(hcl__vk_device *dev);
/* The submitter's lock and condition, at device open; stop and join its thread (when started) and destroy them, at
 * close (after the last queue is gone). */
void hcl__vk_submitter_init(hcl__vk_device *dev);
void hcl__vk_submitter_end(hcl__vk_device *dev);

/* ---- GLSL at run time (glsl.c) ---- */
/* Compile `size` bytes of GLSL (a trailing NUL is allowed) with build `options` (-DNAME[=VALUE], -O0, -O) into
 * SPIR-V for Vulkan 1.2, entry point "main": *out_words (malloc'd, free() it) of *out_size bytes. HCL_ERROR_BUILD with
 * the compiler's log, or for an unknown option; HCL_ERROR_UNSUPPORTED when there is no compiler to run (the reason
 * says what was tried). */
hcl_status hcl__vk_glsl_compile(const char *text, size_t size, const char *options, uint32_t **out_words,
                                size_t *out_size);

/* ---- modules (module.c) ---- */
/* The kernel-parameter and pipeline entries (module.c). */
hcl_status hcl__vk_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                 uint32_t *out_flags);
/* The pipeline cache: loaded from the core's disk cache at open, stored at close (module.c). */
void hcl__vk_pipeline_cache_open(hcl__vk_device *dev);
void hcl__vk_pipeline_cache_close(hcl__vk_device *dev);

/* ---- driver entry points (queue.c, memory.c, module.c; driver.c's table) ---- */
HCL_KIT_DECLARE_ENTRIES(hcl__vk)
hcl_status hcl__vk_event_query(void *event, int *out_done);

#endif /* HCL_VULKAN_INTERNAL_H */
