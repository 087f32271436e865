/* Vulkan baseline: vkCmdCopyBuffer between HCL's own VkBuffers on HCL's VkDevice and VkQueue (the interop calls),
 * in a command buffer of bench's own, timed by two timestamp queries around the copy. The queue family of HCL's queue
 * is found as the driver picks it (the first family with compute and without graphics, else the first with compute;
 * drivers/vulkan/driver.c) on the physical device whose deviceUUID is the HCL device's, through an instance of bench's
 * own. libvulkan.so.1 is opened with dlopen (HCL_VULKAN_LIBRARY names another); prototypes come from vulkan_core.h
 * through __typeof__. Compiled only with BENCH_HAVE_VULKAN. The raw launch: bench's empty kernel (its Vulkan SPIR-V,
 * bench_vulkan_source) in a compute pipeline of bench's own, one command buffer recorded once with vkCmdDispatch and
 * submitted by vkQueueSubmit for each launch (the least a Vulkan application pays per separately submitted launch); a
 * launch with sync waits for the queue (vkQueueWaitIdle). */
#define _POSIX_C_SOURCE 200809L

#include "vendor.h"

#include <vulkan/vulkan.h>

#include <stdlib.h>
#include <string.h>

#define BENCH_VK_INSTANCE_SYMS(X)                                                                                      \
    X(vkDestroyInstance)                                                                                               \
    X(vkEnumeratePhysicalDevices)                                                                                      \
    X(vkGetPhysicalDeviceProperties2)                                                                                  \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                        \
    X(vkGetDeviceProcAddr)
#define BENCH_VK_DEVICE_SYMS(X)                                                                                        \
    X(vkCreateCommandPool)                                                                                             \
    X(vkDestroyCommandPool)                                                                                            \
    X(vkAllocateCommandBuffers)                                                                                        \
    X(vkBeginCommandBuffer)                                                                                            \
    X(vkEndCommandBuffer)                                                                                              \
    X(vkResetCommandBuffer)                                                                                            \
    X(vkCmdCopyBuffer)                                                                                                 \
    X(vkCmdResetQueryPool)                                                                                             \
    X(vkCmdWriteTimestamp)                                                                                             \
    X(vkCreateQueryPool)                                                                                               \
    X(vkDestroyQueryPool)                                                                                              \
    X(vkGetQueryPoolResults)                                                                                           \
    X(vkCreateFence)                                                                                                   \
    X(vkDestroyFence)                                                                                                  \
    X(vkResetFences)                                                                                                   \
    X(vkWaitForFences)                                                                                                 \
    X(vkQueueSubmit)                                                                                                   \
    X(vkQueueWaitIdle)                                                                                                 \
    X(vkCreateShaderModule)                                                                                            \
    X(vkDestroyShaderModule)                                                                                           \
    X(vkCreatePipelineLayout)                                                                                          \
    X(vkDestroyPipelineLayout)                                                                                         \
    X(vkCreateComputePipelines)                                                                                        \
    X(vkDestroyPipeline)                                                                                               \
    X(vkCmdBindPipeline)                                                                                               \
    X(vkCmdDispatch)
#define DECLARE(name) __typeof__(name) *name;
static struct {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    PFN_vkCreateInstance vkCreateInstance;
    BENCH_VK_INSTANCE_SYMS(DECLARE)
    BENCH_VK_DEVICE_SYMS(DECLARE)
    int ok;
    char reason[1200];
} vk;
#undef DECLARE
static lib lib_vk;

/* The copy's state on the device bench has open (one at a time). */
static struct {
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cb;
    VkQueryPool queries;
    VkFence fence;
    double ns_per_tick;
    uint64_t mask;
} cp;

static void vulkan_load(void) {
    static const char *const cands[] = {"libvulkan.so.1", "libvulkan.so", NULL};
    if (!lib_open(&lib_vk, "HCL_VULKAN_LIBRARY", cands)) return;
    char missing[256] = "";
    vk.vkGetInstanceProcAddr =
        (PFN_vkGetInstanceProcAddr)lib_sym(&lib_vk, "vkGetInstanceProcAddr", missing, sizeof missing);
    vk.ok = lib_ready(&lib_vk, "libvulkan", missing, vk.reason, sizeof vk.reason);
    if (vk.ok) vk.vkCreateInstance = (PFN_vkCreateInstance)vk.vkGetInstanceProcAddr(NULL, "vkCreateInstance");
    if (vk.ok && !vk.vkCreateInstance) {
        vk.ok = 0;
        snprintf(vk.reason, sizeof vk.reason, "%s gives no vkCreateInstance", lib_vk.path);
    }
}

/* The queue family and timestamp period of the physical device with `uuid`, through an instance of bench's own. */
static int find_family(const uint8_t *uuid, uint32_t *out_family, double *out_period, uint32_t *out_bits, char *err,
                       size_t err_size) {
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance inst = VK_NULL_HANDLE;
    VkResult r = vk.vkCreateInstance(&ci, NULL, &inst);
    if (r != VK_SUCCESS) {
        snprintf(err, err_size, "vkCreateInstance: VkResult %d", (int)r);
        return 1;
    }
    int found = 0;
#define RESOLVE(name) vk.name = (__typeof__(vk.name))vk.vkGetInstanceProcAddr(inst, #name);
    BENCH_VK_INSTANCE_SYMS(RESOLVE)
#undef RESOLVE
    uint32_t n = 0;
    VkPhysicalDevice phys[16];
    n = 16;
    if (vk.vkEnumeratePhysicalDevices(inst, &n, phys) < 0) n = 0;
    for (uint32_t i = 0; i < n && !found; i++) {
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
        vk.vkGetPhysicalDeviceProperties2(phys[i], &p);
        if (memcmp(id.deviceUUID, uuid, VK_UUID_SIZE) != 0) continue;
        VkQueueFamilyProperties qf[32];
        uint32_t nq = 32;
        vk.vkGetPhysicalDeviceQueueFamilyProperties(phys[i], &nq, qf);
        uint32_t fam = UINT32_MAX;
        for (uint32_t q = 0; q < nq && fam == UINT32_MAX; q++)
            if ((qf[q].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(qf[q].queueFlags & VK_QUEUE_GRAPHICS_BIT)) fam = q;
        for (uint32_t q = 0; q < nq && fam == UINT32_MAX; q++)
            if (qf[q].queueFlags & VK_QUEUE_COMPUTE_BIT) fam = q;
        if (fam == UINT32_MAX) break;
        *out_family = fam;
        *out_period = p.properties.limits.timestampPeriod;
        *out_bits = qf[fam].timestampValidBits;
        found = 1;
    }
    vk.vkDestroyInstance(inst, NULL);
    if (!found) snprintf(err, err_size, "no physical device with the HCL device's UUID and a compute queue");
    return !found;
}

static void vulkan_open(bdev *b, struct baselines *bl) {
    base_info *c = &b->run->bases[BASE_COPY];
    set_base(c, "vkCmdCopyBuffer",
             "buffer copy of the same bytes on HCL's VkDevice and VkQueue, in a command buffer of bench's own, counted "
             "read + write as BabelStream's copy; timed by timestamp queries around it");
    vulkan_load();
    if (!vk.ok) {
        copy_text(c->reason, sizeof c->reason, vk.reason);
        return;
    }
    memset(&cp, 0, sizeof cp);
    void *dev = NULL, *queue = NULL;
    hcl_status st = hcl_device_get_native(b->device, &dev);
    if (st == HCL_SUCCESS) st = hcl_queue_get_native(b->queue, &queue);
    if (st != HCL_SUCCESS || !b->info.has_uuid) {
        if (st != HCL_SUCCESS)
            hcl_ts_status_text(c->reason, sizeof c->reason, st, "HCL interop");
        else
            copy_text(c->reason, sizeof c->reason, "the device has no UUID to find its queue family by");
        return;
    }
    uint32_t family = 0, bits = 0;
    if (find_family(b->info.uuid, &family, &cp.ns_per_tick, &bits, c->reason, sizeof c->reason)) return;
    if (!bits) {
        copy_text(c->reason, sizeof c->reason, "the compute queue has no timestamps (timestampValidBits 0)");
        return;
    }
    cp.mask = bits >= 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    cp.device = (VkDevice)dev;
    cp.queue = (VkQueue)queue;
    char missing[256] = "";
#define RESOLVE(name)                                                                                                  \
    if (!(vk.name = (__typeof__(vk.name))vk.vkGetDeviceProcAddr(cp.device, #name)))                                    \
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", #name);
    BENCH_VK_DEVICE_SYMS(RESOLVE)
#undef RESOLVE
    if (missing[0]) {
        snprintf(c->reason, sizeof c->reason, "the device lacks%s", missing);
        cp.device = VK_NULL_HANDLE;
        return;
    }
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = family};
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkResult r = vk.vkCreateCommandPool(cp.device, &pi, NULL, &cp.pool);
    ai.commandPool = cp.pool;
    if (r == VK_SUCCESS) r = vk.vkAllocateCommandBuffers(cp.device, &ai, &cp.cb);
    if (r == VK_SUCCESS) r = vk.vkCreateQueryPool(cp.device, &qi, NULL, &cp.queries);
    if (r == VK_SUCCESS) r = vk.vkCreateFence(cp.device, &fi, NULL, &cp.fence);
    if (r != VK_SUCCESS) {
        snprintf(c->reason, sizeof c->reason, "setting up the copy: VkResult %d", (int)r);
        return;
    }
    bl->ctx = dev;
    bl->queue = queue;
    c->available = 1;
    copy_text(c->library, sizeof c->library, lib_vk.path);
}

static void vulkan_close(struct baselines *bl) {
    (void)bl;
    if (!cp.device) return;
    if (cp.fence) vk.vkDestroyFence(cp.device, cp.fence, NULL);
    if (cp.queries) vk.vkDestroyQueryPool(cp.device, cp.queries, NULL);
    if (cp.pool) vk.vkDestroyCommandPool(cp.device, cp.pool, NULL);
    memset(&cp, 0, sizeof cp);
}

static VkBuffer vk_buf(hcl_buffer buf) {
    void *p = NULL;
    hcl_buffer_get_native(buf, &p);
    return (VkBuffer)p;
}

/* HCL's queue is drained first: bench submits to the same VkQueue, which must not see two submitters at once. */
static int vulkan_copy(struct baselines *bl, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, char *err,
                       size_t err_size) {
    (void)bl;
    VkResult r = VK_SUCCESS;
    const char *what = "vkBeginCommandBuffer";
    if (!cp.device) {
        copy_text(err, err_size, "the copy baseline is not set up");
        return 1;
    }
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vk.vkResetCommandBuffer(cp.cb, 0);
    if ((r = vk.vkBeginCommandBuffer(cp.cb, &bi)) != VK_SUCCESS) goto fail;
    vk.vkCmdResetQueryPool(cp.cb, cp.queries, 0, 2);
    vk.vkCmdWriteTimestamp(cp.cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, cp.queries, 0);
    VkBufferCopy region = {.size = bytes};
    vk.vkCmdCopyBuffer(cp.cb, vk_buf(src), vk_buf(dst), 1, &region);
    vk.vkCmdWriteTimestamp(cp.cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, cp.queries, 1);
    what = "vkEndCommandBuffer";
    if ((r = vk.vkEndCommandBuffer(cp.cb)) != VK_SUCCESS) goto fail;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cp.cb};
    what = "vkResetFences";
    if ((r = vk.vkResetFences(cp.device, 1, &cp.fence)) != VK_SUCCESS) goto fail;
    what = "vkQueueSubmit";
    if ((r = vk.vkQueueSubmit(cp.queue, 1, &si, cp.fence)) != VK_SUCCESS) goto fail;
    what = "vkWaitForFences";
    if ((r = vk.vkWaitForFences(cp.device, 1, &cp.fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS) goto fail;
    uint64_t t[2] = {0, 0};
    what = "vkGetQueryPoolResults";
    r = vk.vkGetQueryPoolResults(cp.device, cp.queries, 0, 2, sizeof t, t, sizeof t[0],
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) goto fail;
    *out_s = (double)((t[1] - t[0]) & cp.mask) * cp.ns_per_tick * 1e-9;
    return 0;
fail:
    snprintf(err, err_size, "%s: VkResult %d", what, (int)r);
    return 1;
}

/* The raw launch's objects (on the device bench has open). */
static struct {
    VkShaderModule shader;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkCommandBuffer cb;
} rl;

static int vk_launch_one(const launch_ctx *c, int sync, char *err, size_t err_size) {
    (void)c;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &rl.cb};
    VkResult r = vk.vkQueueSubmit(cp.queue, 1, &si, VK_NULL_HANDLE);
    if (r == VK_SUCCESS && sync) r = vk.vkQueueWaitIdle(cp.queue);
    if (r != VK_SUCCESS) {
        snprintf(err, err_size, "%s: VkResult %d", sync ? "vkQueueSubmit/vkQueueWaitIdle" : "vkQueueSubmit", (int)r);
        return 1;
    }
    return 0;
}

static void raw_free(void) {
    if (rl.pipeline) vk.vkDestroyPipeline(cp.device, rl.pipeline, NULL);
    if (rl.layout) vk.vkDestroyPipelineLayout(cp.device, rl.layout, NULL);
    if (rl.shader) vk.vkDestroyShaderModule(cp.device, rl.shader, NULL);
    memset(&rl, 0, sizeof rl); /* rl.cb goes with the copy's pool */
}

static void vulkan_launch(struct baselines *bl, int n_submit, int n_sync, launch_side *hcl, int nhcl, launch_cost *lc,
                          char *err, size_t err_size) {
    (void)bl;
    snprintf(lc->timed_reason, sizeof lc->timed_reason, "bench has no timed raw launch for vulkan (timestamp queries)");
    hcl_module_source src;
    if (!cp.device) {
        copy_text(err, err_size, vk.ok ? "the Vulkan baselines are not set up on this device" : vk.reason);
        return;
    }
    if (!bench_vulkan_source(&src)) {
        copy_text(err, err_size, "bench was built without the empty kernel's Vulkan SPIR-V (glslangValidator)");
        return;
    }
    double t0 = now_s();
    VkResult r;
    const char *what = "vkCreateShaderModule";
    VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = src.size, .pCode = src.data};
    if ((r = vk.vkCreateShaderModule(cp.device, &mi, NULL, &rl.shader)) != VK_SUCCESS) goto fail;
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    what = "vkCreatePipelineLayout";
    if ((r = vk.vkCreatePipelineLayout(cp.device, &li, NULL, &rl.layout)) != VK_SUCCESS) goto fail;
    static const uint32_t one[3] = {1, 1, 1};
    const VkSpecializationMapEntry map[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo spec = {.mapEntryCount = 3, .pMapEntries = map, .dataSize = sizeof one, .pData = one};
    VkComputePipelineCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                                .module = rl.shader,
                                                .pName = "hcl_bench_empty",
                                                .pSpecializationInfo = &spec},
                                      .layout = rl.layout};
    what = "vkCreateComputePipelines";
    if ((r = vk.vkCreateComputePipelines(cp.device, VK_NULL_HANDLE, 1, &pi, NULL, &rl.pipeline)) != VK_SUCCESS)
        goto fail;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = cp.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    what = "vkAllocateCommandBuffers";
    if ((r = vk.vkAllocateCommandBuffers(cp.device, &ai, &rl.cb)) != VK_SUCCESS) goto fail;
    /* recorded once, submitted for every launch (simultaneous use: several may be pending) */
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
    what = "vkBeginCommandBuffer";
    if ((r = vk.vkBeginCommandBuffer(rl.cb, &bi)) != VK_SUCCESS) goto fail;
    vk.vkCmdBindPipeline(rl.cb, VK_PIPELINE_BIND_POINT_COMPUTE, rl.pipeline);
    vk.vkCmdDispatch(rl.cb, 1, 1, 1);
    what = "vkEndCommandBuffer";
    if ((r = vk.vkEndCommandBuffer(rl.cb)) != VK_SUCCESS) goto fail;
    lc->vendor_module_s = now_s() - t0;
    const launch_side raw = {.fn = vk_launch_one, .err = err, .err_size = err_size};
    time_raw_beside(hcl, nhcl, &raw, NULL, n_submit, n_sync, lc);
    if (vk.vkQueueWaitIdle(cp.queue) != VK_SUCCESS) copy_text(err, err_size, "vkQueueWaitIdle after the launches");
    raw_free();
    return;
fail:
    snprintf(err, err_size, "%s: VkResult %d", what, (int)r);
    raw_free();
}

static void vulkan_print_libs(void) {
    vulkan_load();
    print_lib("libvulkan", &lib_vk, vk.ok, vk.reason, "");
}

const vendor_ops vulkan_ops = {vulkan_open, vulkan_close, NULL,          NULL,
                               vulkan_copy, NULL,         vulkan_launch, vulkan_print_libs};
