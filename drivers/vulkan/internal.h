/* Shared declarations of the Vulkan driver: the symbol table, the native objects behind the core's handles, the one
 * error macro used at every Vulkan call site, and the entry points by file. Built on the driver kit
 * (drivers/common/kit.h). docs/backends.md ("Vulkan") says how HCL's objects map onto Vulkan's. */
#ifndef HCL_VULKAN_INTERNAL_H
#define HCL_VULKAN_INTERNAL_H

#include "hcl/hcl_driver.h"
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
    /* VK_NV_cooperative_matrix with its cooperativeMatrix feature and 16 x 16 x 16 f16 x f16 + f32 on sub-groups of 32
     * (what kernels/gemm/gemm_coop.comp multiplies), shaderFloat16, 16-bit storage and vulkanMemoryModel: the device is
     * made with the extension and those features on, and reports matrix_unit HCL_MATRIX_UNIT_TENSOR_CORE */
    uint32_t has_coop_matrix;
    uint8_t cache_uuid[VK_UUID_SIZE];
    uint32_t vendor_id, device_id, driver_version;
} hcl__vk_device_entry;

/* An opened device: a VkDevice with one compute queue (several HCL queues submit to it, under `submit_lock`), the
 * memory type its buffers take, a staging one, and the pipeline cache (kept in the core's disk cache). */
typedef struct hcl__vk_device {
    const hcl__vk_device_entry *entry;
    VkDevice device;
    VkQueue queue;
    pthread_mutex_t submit_lock; /* vkQueueSubmit on `queue` is externally synchronised */
    uint32_t buffer_type;        /* memory type of buffers: device-local first */
    uint32_t staging_type;       /* memory type of staging: host-visible and coherent */
    int buffers_mapped;          /* buffer_type is host-visible too (a CPU or integrated device) */
    VkPipelineCache pipeline_cache;
    size_t cache_size_loaded; /* bytes of the pipeline cache loaded at open (stored again at close when it grew) */
    PFN_vkCmdPushDescriptorSetKHR push_descriptors;
    atomic_long live; /* Vulkan objects not yet destroyed (checked at close) */
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

/* A command buffer submitted and the timeline value that says it completed. */
typedef struct hcl__vk_inflight {
    VkCommandBuffer cb;
    uint64_t value;
} hcl__vk_inflight;

typedef struct hcl__vk_queue {
    hcl__vk_device *dev;
    pthread_mutex_t lock;      /* the pool, the in-flight list and the staging */
    VkCommandPool pool;        /* command buffers of this queue, reset one by one */
    VkSemaphore timeline;      /* signalled to `submitted` by the last submission */
    uint64_t submitted;        /* the value of the last submission */
    hcl__vk_inflight *flights; /* command buffers: in flight (value > completed) or free to reuse */
    uint32_t flight_count, flight_capacity;
    hcl__vk_buffer staging; /* HCL_VK_STAGING_BYTES host-visible, for reads and writes */
    int refs; /* the HCL queue's own, and one for each of its events alive (an event may outlive its queue: its
               * timeline semaphore stays until the last of them is released) */
} hcl__vk_queue;

/* An event: the timeline value of its command's last submission, and a query pool of two timestamps (the start of
 * the command's first submission and the end of its last) when the queue family has timestamps. */
typedef struct hcl__vk_event {
    hcl__vk_queue *q;
    VkSemaphore timeline;
    uint64_t value;
    VkQueryPool queries; /* VK_NULL_HANDLE without timestamps */
    int marker;          /* a marker is one instant: its start timestamp stands for its end */
} hcl__vk_event;

/* One HCL command recorded into one or more command buffers (a transfer larger than the staging is several): begin
 * (with the wait list before the first), record into cmd->cb, end (submit; wait when blocking or not last). */
typedef struct hcl__vk_cmd {
    hcl__vk_queue *q;
    VkCommandBuffer cb;
    hcl__vk_event *ev; /* when an event is wanted */
    uint32_t num_wait;
    void *const *wait;
    int first;  /* the part being recorded is the command's first */
    int marker; /* a marker: one timestamp */
} hcl__vk_cmd;
/* Lock the queue, take a command buffer and begin it (a barrier orders it after everything submitted before; the
 * first part writes the start timestamp). On failure the queue is unlocked again. */
hcl_status hcl__vk_cmd_begin(hcl__vk_cmd *cmd, hcl__vk_queue *q, uint32_t num_wait, void *const *wait, int want_event);
/* End and submit the part recorded (the last part writes the end timestamp, `last`), waiting for the wait list before
 * the first; wait for it when `wait_done`. The queue stays locked (hcl__vk_cmd_finish unlocks). */
hcl_status hcl__vk_cmd_submit(hcl__vk_cmd *cmd, int last, int wait_done);
/* Begin the next part of a command after hcl__vk_cmd_submit (the queue still locked). */
hcl_status hcl__vk_cmd_next(hcl__vk_cmd *cmd);
/* Unlock the queue; on success hand the event out, else free it. Returns `status`. */
hcl_status hcl__vk_cmd_finish(hcl__vk_cmd *cmd, hcl_status status, void **out_event);
/* Wait until the queue's timeline reaches `value`. */
hcl_status hcl__vk_wait_value(hcl__vk_device *dev, VkSemaphore timeline, uint64_t value, const char *what);

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
