/* The Vulkan driver: its devices (every physical device with a compute queue, Vulkan 1.2 and push descriptors),
 * device_open/close and the driver table. Built on the driver kit (drivers/common/kit.h). */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *vendor_name(uint32_t id) {
    switch (id) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x10005: return "Mesa";
    default: return NULL;
    }
}

/* Whether the device offers extension `name`: 1 or 0; -1 when the host is out of memory (the caller's start then fails
 * with HCL_ERROR_OUT_OF_MEMORY, which the core tries again later, rather than describe the device without it). */
static int has_extension(VkPhysicalDevice phys, const char *name) {
    uint32_t n = 0;
    if (hcl__vk.vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
    VkExtensionProperties *ext = calloc(n, sizeof *ext);
    if (!ext) return -1;
    int found = 0;
    if (hcl__vk.vkEnumerateDeviceExtensionProperties(phys, NULL, &n, ext) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(ext[i].extensionName, name) == 0;
    free(ext);
    return found;
}

/* The input types (HCL_TYPE_BIT of f16 and bf16) the device multiplies as kernels/gemm/gemm_coop.comp does
 * (internal.h's coop_types says what that takes); 0 for none, -1 out of host memory. */
static int coop_matrix_types(VkPhysicalDevice phys) {
    const int khr = has_extension(phys, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    const int bf = has_extension(phys, VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
    if (khr < 0 || bf < 0) return -1;
    if (!khr) return 0;
    VkPhysicalDeviceShaderBfloat16FeaturesKHR fb = {.sType =
                                                        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR, .pNext = bf ? &fb : NULL};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &cm};
    hcl__vk.vkGetPhysicalDeviceFeatures2(phys, &f2);
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR props =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)hcl__vk.vkGetInstanceProcAddr(
            hcl__vk_instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    uint32_t n = 0;
    if (!cm.cooperativeMatrix || !props || props(phys, &n, NULL) != VK_SUCCESS || n == 0) return 0;
    VkCooperativeMatrixPropertiesKHR *p = calloc(n, sizeof *p);
    if (!p) return -1;
    int types = 0;
    for (uint32_t i = 0; i < n; i++) p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
    if (props(phys, &n, p) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) {
            if (p[i].MSize != 16 || p[i].NSize != 16 || p[i].KSize != 16 || p[i].AType != p[i].BType ||
                p[i].CType != VK_COMPONENT_TYPE_FLOAT32_KHR || p[i].ResultType != VK_COMPONENT_TYPE_FLOAT32_KHR ||
                p[i].scope != VK_SCOPE_SUBGROUP_KHR)
                continue;
            if (p[i].AType == VK_COMPONENT_TYPE_FLOAT16_KHR) types |= HCL_TYPE_BIT(HCL_DTYPE_F16);
            if (p[i].AType == VK_COMPONENT_TYPE_BFLOAT16_KHR && fb.shaderBFloat16Type &&
                fb.shaderBFloat16CooperativeMatrix)
                types |= HCL_TYPE_BIT(HCL_DTYPE_BF16);
        }
    free(p);
    return types;
}

/* Fill a device entry; HCL_ERROR_UNSUPPORTED (with the message) for a device HCL cannot use. */
static hcl_status describe_device(hcl__vk_device_entry *e) {
    hcl_device_info *info = &e->info;
    const int nv_sm = has_extension(e->phys, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    const int push = has_extension(e->phys, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (nv_sm < 0 || push < 0) return hcl__kit_oom("device extensions");
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                              .pNext = nv_sm ? &sm : NULL};
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, .pNext = &sub};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
    hcl__vk.vkGetPhysicalDeviceProperties2(e->phys, &p2);
    const VkPhysicalDeviceProperties *p = &p2.properties;
    const VkPhysicalDeviceLimits *lim = &p->limits;
    snprintf(info->name, sizeof info->name, "%s", p->deviceName);
    if (p->apiVersion < VK_API_VERSION_1_2)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: device '%s' offers Vulkan %u.%u; HCL needs 1.2", info->name,
                            VK_API_VERSION_MAJOR(p->apiVersion), VK_API_VERSION_MINOR(p->apiVersion));
    if (!push)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: device '%s' lacks %s (the driver binds buffers with it)",
                            info->name, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                            .pNext = &f12};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    hcl__vk.vkGetPhysicalDeviceFeatures2(e->phys, &f2);
    if (!f12.timelineSemaphore)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: device '%s' lacks timeline semaphores", info->name);
    /* the built-in kernels fold with sub-group operations (kernels/<op>/<op>.comp): a device without them in compute
     * shaders could build none of them */
    const VkSubgroupFeatureFlags need =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    if (!(sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) || (sub.supportedOperations & need) != need)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                            "vulkan: device '%s' lacks sub-group basic, arithmetic and shuffle operations in compute "
                            "shaders (the built-in kernels use them)",
                            info->name);
    e->has_16bit_storage = f11.storageBuffer16BitAccess;
    e->has_int16 = f2.features.shaderInt16;
    e->has_float16 = f12.shaderFloat16;

    uint32_t nq = 0;
    hcl__vk.vkGetPhysicalDeviceQueueFamilyProperties(e->phys, &nq, NULL);
    VkQueueFamilyProperties *qf = calloc(nq ? nq : 1, sizeof *qf);
    if (!qf) return hcl__kit_oom("queue families");
    hcl__vk.vkGetPhysicalDeviceQueueFamilyProperties(e->phys, &nq, qf);
    uint32_t family = UINT32_MAX;
    /* a family with compute and without graphics first (NVIDIA's async compute family), else any with compute */
    for (uint32_t i = 0; i < nq && family == UINT32_MAX; i++)
        if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) family = i;
    for (uint32_t i = 0; i < nq && family == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = i;
    if (family != UINT32_MAX) e->timestamp_bits = qf[family].timestampValidBits;
    free(qf);
    if (family == UINT32_MAX)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: device '%s' has no compute queue (%u families)", info->name,
                            nq);
    e->queue_family = family;

    e->vendor_id = p->vendorID;
    e->device_id = p->deviceID;
    e->driver_version = p->driverVersion;
    e->api_version = p->apiVersion;
    memcpy(e->cache_uuid, p->pipelineCacheUUID, VK_UUID_SIZE);
    const char *vn = vendor_name(p->vendorID);
    if (vn)
        snprintf(info->vendor, sizeof info->vendor, "%s", vn);
    else
        snprintf(info->vendor, sizeof info->vendor, "0x%04x", p->vendorID);
    snprintf(info->driver_version, sizeof info->driver_version, "Vulkan %u.%u.%u, driver 0x%08x",
             VK_API_VERSION_MAJOR(p->apiVersion), VK_API_VERSION_MINOR(p->apiVersion),
             VK_API_VERSION_PATCH(p->apiVersion), p->driverVersion);
    info->type = p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? HCL_DEVICE_TYPE_CPU
                 : p->deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
                         p->deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
                         p->deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU
                     ? HCL_DEVICE_TYPE_GPU
                     : HCL_DEVICE_TYPE_OTHER;
    VkPhysicalDeviceMemoryProperties mp;
    hcl__vk.vkGetPhysicalDeviceMemoryProperties(e->phys, &mp);
    for (uint32_t i = 0; i < mp.memoryHeapCount; i++)
        if (mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) info->global_mem_bytes += mp.memoryHeaps[i].size;
    info->max_alloc_bytes = lim->maxStorageBufferRange; /* the most one storage-buffer binding reaches */
    info->max_work_group_size = lim->maxComputeWorkGroupInvocations;
    info->local_mem_bytes = lim->maxComputeSharedMemorySize;
    for (int d = 0; d < 3; d++) {
        info->max_work_item_sizes[d] = lim->maxComputeWorkGroupSize[d];
        info->max_grid_size[d] = lim->maxComputeWorkGroupCount[d];
        e->limits.max_groups[d] = lim->maxComputeWorkGroupCount[d];
    }
    info->arg_offset_alignment = lim->minStorageBufferOffsetAlignment ? lim->minStorageBufferOffsetAlignment : 1;
    /* Vulkan core states no count of compute units: NVIDIA's SMs come from VK_NV_shader_sm_builtins, a CPU device's
     * cores are the host's (lavapipe runs on them); elsewhere 0, unknown */
    if (nv_sm)
        info->compute_units = sm.shaderSMCount;
    else if (info->type == HCL_DEVICE_TYPE_CPU) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        info->compute_units = cpus > 0 ? (uint32_t)cpus : 0;
    }
    /* hcl_device_info's rule: 1 on a CPU device (lavapipe's sub-groups of 8 are SIMD lanes of one core, and its
     * work-groups run as loops), as OpenCL's and the host's CPU devices report it */
    info->subgroup_size = info->type == HCL_DEVICE_TYPE_CPU ? 1 : sub.subgroupSize;
    e->limits.subgroup_width = info->subgroup_size;
    info->has_fp16 = e->has_float16 && e->has_16bit_storage;
    /* the hardware fact; the plans decide what uses it (kernels/plan_types.c) */
    const int coop =
        info->has_fp16 && sub.subgroupSize == 32 && info->type == HCL_DEVICE_TYPE_GPU && f12.vulkanMemoryModel
            ? coop_matrix_types(e->phys)
            : 0;
    if (coop < 0) return hcl__kit_oom("cooperative-matrix properties");
    e->coop_types = (uint32_t)coop;
    if (e->coop_types) info->matrix_unit = HCL_MATRIX_UNIT_TENSOR_CORE;
    info->matrix_types = e->coop_types;
    info->native_types = HCL_TYPE_BIT(HCL_DTYPE_F32);
    e->ns_per_tick = lim->timestampPeriod;
    e->max_push_bytes = lim->maxPushConstantsSize;
    if (id.deviceUUID[0] || memcmp(id.deviceUUID, id.deviceUUID + 1, VK_UUID_SIZE - 1) != 0)
        hcl__kit_device_uuid(info, id.deviceUUID);
    return HCL_SUCCESS;
}

/* The kit's start: the loader and instance, then every physical device HCL can use, in the loader's order. */
static hcl_status start(char *reason, size_t reason_size, char *version, size_t version_size) {
    hcl_status status = hcl__vk_load(reason, reason_size, version, version_size);
    if (status != HCL_SUCCESS) return status;
    uint32_t n = 0;
    VkResult r = hcl__vk.vkEnumeratePhysicalDevices(hcl__vk_instance, &n, NULL);
    if (r != VK_SUCCESS || n == 0) {
        snprintf(reason, reason_size, "vkEnumeratePhysicalDevices: %s",
                 r != VK_SUCCESS ? hcl__vk_result_name(r) : "no device");
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    VkPhysicalDevice *phys = calloc(n, sizeof *phys);
    if (!phys) {
        snprintf(reason, reason_size, "out of host memory listing %u devices", n);
        return HCL_ERROR_OUT_OF_MEMORY;
    }
    r = hcl__vk.vkEnumeratePhysicalDevices(hcl__vk_instance, &n, phys);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        snprintf(reason, reason_size, "vkEnumeratePhysicalDevices: %s (%d)", hcl__vk_result_name(r), (int)r);
        free(phys);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    for (uint32_t i = 0; i < n; i++) {
        hcl__vk_device_entry *e = hcl__kit_device_add();
        if (!e) {
            snprintf(reason, reason_size, "out of host memory listing device %u", i);
            free(phys);
            return HCL_ERROR_OUT_OF_MEMORY;
        }
        e->phys = phys[i];
        const hcl_status described = describe_device(e);
        if (described == HCL_ERROR_OUT_OF_MEMORY) { /* the start fails, and the core tries it again later */
            snprintf(reason, reason_size, "out of host memory describing device %u", i);
            free(phys);
            return HCL_ERROR_OUT_OF_MEMORY;
        }
        if (described != HCL_SUCCESS) { /* not kept: the next add takes its place */
            HCL_KIT_WARN("physical device %u skipped: %s", i, hcl__kit_last_failure());
            continue;
        }
        hcl__kit_device_keep();
        HCL_KIT_LOG("device %u: %s (%s), queue family %u, sub-groups of %u, 16-bit storage %u, float16 %u, "
                    "cooperative matrices (KHR) of types 0x%x, %s",
                    e->info.index, e->info.name, e->info.vendor, e->queue_family, e->info.subgroup_size,
                    e->has_16bit_storage, e->has_float16, e->coop_types, e->info.identity);
    }
    free(phys);
    return HCL_SUCCESS;
}

HCL_KIT_DRIVER(HCL_VK_NAME, hcl__vk_device_entry, start);

/* The first memory type in `bits` with all of `want`, or UINT32_MAX. */
static uint32_t memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
}

/* The memory types of buffers (device-local first) and of staging (host-visible, coherent), from the types a storage
 * buffer may take. */
static hcl_status choose_memory(hcl__vk_device *dev) {
    hcl_status status = HCL_SUCCESS;
    VkBuffer probe = VK_NULL_HANDLE;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = 256,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    HCL_VK_CHECK(vkCreateBuffer, (dev->device, &bi, NULL, &probe), "a 256-byte probe buffer");
    VkMemoryRequirements req;
    hcl__vk.vkGetBufferMemoryRequirements(dev->device, probe, &req);
    hcl__vk.vkDestroyBuffer(dev->device, probe, NULL);
    VkPhysicalDeviceMemoryProperties mp;
    hcl__vk.vkGetPhysicalDeviceMemoryProperties(dev->entry->phys, &mp);
    dev->buffer_type = memory_type(&mp, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (dev->buffer_type == UINT32_MAX) dev->buffer_type = memory_type(&mp, req.memoryTypeBits, 0);
    /* host-cached where there is such a type: reads out of the staging from uncached (write-combined) memory crawl */
    dev->staging_type = memory_type(&mp, req.memoryTypeBits,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (dev->staging_type == UINT32_MAX)
        dev->staging_type = memory_type(&mp, req.memoryTypeBits,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (dev->buffer_type == UINT32_MAX || dev->staging_type == UINT32_MAX)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: device '%s' has no %s memory type for storage buffers",
                            dev->entry->info.name, dev->buffer_type == UINT32_MAX ? "" : "host-visible coherent");
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    /* such buffers are mapped and read and written with memcpy (memory.c); HCL_VULKAN_MAPPED=0 keeps them on the
     * staging path a discrete GPU takes (a test setting: both paths run on lavapipe) */
    const char *mapped = getenv("HCL_VULKAN_MAPPED");
    dev->buffers_mapped =
        (mp.memoryTypes[dev->buffer_type].propertyFlags & host) == host && !(mapped && strcmp(mapped, "0") == 0);
cleanup:
    return status;
}

/* The VkDevice is made here, never at init: a process that forks after init must not inherit one. */
static hcl_status vk_device_open(uint32_t index, void **out_device) {
    hcl__vk_device_entry *e = NULL;
    hcl__vk_device *dev = NULL;
    hcl_status status = hcl__kit_device_new(index, sizeof *dev, (void **)&e, (void **)&dev);
    if (status != HCL_SUCCESS) return status;
    dev->entry = e;
    atomic_init(&dev->live, 0);
    pthread_mutex_init(&dev->submit_lock, NULL);
    pthread_mutex_init(&dev->queues_lock, NULL);
    hcl__vk_submitter_init(dev);
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = e->queue_family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    const int coop = e->coop_types != 0, bf16 = (e->coop_types & HCL_TYPE_BIT(HCL_DTYPE_BF16)) != 0;
    VkPhysicalDeviceShaderBfloat16FeaturesKHR fb = {.sType =
                                                        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR,
                                                    .shaderBFloat16Type = VK_TRUE,
                                                    .shaderBFloat16CooperativeMatrix = VK_TRUE};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .pNext = bf16 ? &fb : NULL,
        .cooperativeMatrix = VK_TRUE};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = coop ? &cm : NULL,
                                            .timelineSemaphore = VK_TRUE,
                                            /* glslang's cooperative-matrix modules use the Vulkan memory model */
                                            .vulkanMemoryModel = coop ? VK_TRUE : VK_FALSE,
                                            .shaderFloat16 = e->has_float16 ? VK_TRUE : VK_FALSE};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                            .pNext = &f12,
                                            .storageBuffer16BitAccess = e->has_16bit_storage ? VK_TRUE : VK_FALSE};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    f2.features.shaderInt16 = e->has_int16 ? VK_TRUE : VK_FALSE;
    const char *ext[3] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME,
                          VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .pNext = &f2,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi,
                             .enabledExtensionCount = 1u + (coop ? 1u : 0u) + (bf16 ? 1u : 0u),
                             .ppEnabledExtensionNames = ext};
    HCL_VK_CHECK(vkCreateDevice, (e->phys, &di, NULL, &dev->device), "device %u '%s'", index, e->info.name);
    hcl__vk.vkGetDeviceQueue(dev->device, e->queue_family, 0, &dev->queue);
    dev->push_descriptors =
        (PFN_vkCmdPushDescriptorSetKHR)hcl__vk.vkGetDeviceProcAddr(dev->device, "vkCmdPushDescriptorSetKHR");
    if (!dev->push_descriptors) {
        status = HCL_KIT_FAIL(HCL_ERROR_BACKEND_UNAVAILABLE, "vulkan: device '%s' gives no vkCmdPushDescriptorSetKHR",
                              e->info.name);
        goto cleanup;
    }
    status = choose_memory(dev);
    if (status != HCL_SUCCESS) goto cleanup;
    hcl__vk_pipeline_cache_open(dev);
    HCL_KIT_LOG("device %u '%s' opened: buffers in memory type %u%s, staging in %u", index, e->info.name,
                dev->buffer_type, dev->buffers_mapped ? " (host-visible: mapped, read and written by memcpy)" : "",
                dev->staging_type);
    *out_device = dev;
    return HCL_SUCCESS;
cleanup:
    if (dev->device) hcl__vk.vkDestroyDevice(dev->device, NULL);
    hcl__vk_submitter_end(dev);
    pthread_mutex_destroy(&dev->submit_lock);
    pthread_mutex_destroy(&dev->queues_lock);
    free(dev);
    return status;
}

static void vk_device_close(void *device) {
    hcl__vk_device *dev = device;
    if (!dev) return;
    hcl__vk_submitter_end(dev); /* the queues are gone: it holds nothing */
    hcl__vk.vkDeviceWaitIdle(dev->device);
    hcl__vk_pipeline_cache_close(dev);
    long live = atomic_load(&dev->live);
    if (live != 0)
        HCL_KIT_WARN("device '%s' closed with %ld Vulkan object(s) not destroyed (a driver bug)", dev->entry->info.name,
                     live);
    hcl__vk.vkDestroyDevice(dev->device, NULL);
    pthread_mutex_destroy(&dev->submit_lock);
    pthread_mutex_destroy(&dev->queues_lock);
    free(dev);
}

/* Interop: device -> VkDevice, queue -> the device's one VkQueue (every HCL queue of the device submits to it, the
 * driver's submitter thread too while a queue holds a batch back; a caller that submits to it too must hold no HCL
 * call on the device meanwhile and have finished its queues), buffer -> VkBuffer. HCL keeps ownership of all three. */
static hcl_status vk_get_native(hcl_native_kind kind, void *object, void **out_native) {
    switch (kind) {
    case HCL_NATIVE_DEVICE: *out_native = (void *)((hcl__vk_device *)object)->device; return HCL_SUCCESS;
    case HCL_NATIVE_QUEUE: *out_native = (void *)((hcl__vk_queue *)object)->dev->queue; return HCL_SUCCESS;
    case HCL_NATIVE_BUFFER: *out_native = (void *)((hcl__vk_buffer *)object)->buffer; return HCL_SUCCESS;
    default: break;
    }
    return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "vulkan: native object kind %d", (int)kind);
}

hcl_status hcl__vk_device_limits(void *device, hcl_driver_limits *out) {
    *out = ((const hcl__vk_device *)device)->entry->limits;
    return HCL_SUCCESS;
}

static const hcl_driver_table g_table = {
    HCL_KIT_TABLE_HEAD(HCL_VK_NAME, vk_device_open, vk_device_close),
    HCL_KIT_TABLE_ENTRIES(hcl__vk) HCL_KIT_TABLE_NATIVE(NULL, NULL, vk_get_native),
    .kernel_params = hcl__vk_kernel_params,
    .event_query = hcl__vk_event_query,
};

HCL_KIT_DRIVER_ENTRY(g_table)
