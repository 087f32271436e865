/* Modules, kernels and launches of the Vulkan driver, and the pipeline cache.
 *
 * A module is a VkShaderModule made from Vulkan SPIR-V (HCL_SOURCE_SPIRV_VULKAN); a kernel is one of its GLCompute
 * entry points, reflected (spirv_reflect.h) into a descriptor-set layout of push descriptors (one storage buffer per
 * binding of set 0) and a pipeline layout with its push-constant block; its pipelines are made per work-group size on
 * first launch (the size goes in as specialisation constants 0, 1, 2, GLSL's local_size_x_id = 0 ..., and the launch's
 * dynamic shared memory in bytes as specialisation constant 3, which a shader may size a shared array by).
 *
 * The launch ABI (docs/backends.md): the launch's BUFFER arguments, in order, bind to the shader's storage buffers in
 * ascending binding order; its VALUE arguments, in order, fill the push-constant block's members in offset order. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hcl__vk_module {
    hcl__vk_device *dev;
    VkShaderModule shader;
    uint32_t *words;
    size_t size;
    int glsl; /* from GLSL: one shader, entry point "main", whatever name its kernel is given */
} hcl__vk_module;

typedef struct hcl__vk_pipeline {
    uint32_t block[4]; /* x, y, z, dynamic shared bytes: the specialisation constants 0-3 */
    VkPipeline pipeline;
} hcl__vk_pipeline;

typedef struct hcl__vk_kernel {
    hcl__vk_module *module;
    char name[128];  /* for messages */
    char entry[128]; /* the entry point: the name, or "main" in a module from GLSL */
    hcl__vk_reflect refl;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    pthread_mutex_t lock;        /* the pipelines */
    hcl__vk_pipeline *pipelines; /* one per launch shape seen, kept until the kernel goes (a launch recorded on
                                  * another thread may still use any of them) */
    uint32_t num_pipelines, cap_pipelines;
} hcl__vk_kernel;

/* ---- the pipeline cache, in the core's disk cache under a key of the device and its driver ---- */
static char *cache_key(hcl__vk_device *dev, size_t *out_size) {
    const hcl__vk_device_entry *e = dev->entry;
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; i++) snprintf(uuid + 2 * i, 3, "%02x", e->cache_uuid[i]);
    return hcl__kit_cache_key("", 0, out_size, "vulkan pipeline cache\nvendor %04x device %04x driver %08x\nuuid %s\n",
                              e->vendor_id, e->device_id, e->driver_version, uuid);
}

void hcl__vk_pipeline_cache_open(hcl__vk_device *dev) {
    size_t key_size = 0, data_size = 0;
    char *key = cache_key(dev, &key_size);
    void *data = key ? hcl__kit_host->cache_load(HCL_VK_NAME, key, key_size, &data_size) : NULL;
    VkPipelineCacheCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, .initialDataSize = data_size, .pInitialData = data};
    VkResult r = hcl__vk.vkCreatePipelineCache(dev->device, &ci, NULL, &dev->pipeline_cache);
    if (r != VK_SUCCESS && data) { /* a cache the driver refuses: start empty */
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        data_size = 0;
        r = hcl__vk.vkCreatePipelineCache(dev->device, &ci, NULL, &dev->pipeline_cache);
    }
    if (r != VK_SUCCESS) dev->pipeline_cache = VK_NULL_HANDLE;
    dev->cache_size_loaded = data_size;
    HCL_KIT_LOG("pipeline cache: %zu bytes loaded", data_size);
    free(data);
    free(key);
}

void hcl__vk_pipeline_cache_close(hcl__vk_device *dev) {
    if (!dev->pipeline_cache) return;
    size_t size = 0;
    if (hcl__vk.vkGetPipelineCacheData(dev->device, dev->pipeline_cache, &size, NULL) == VK_SUCCESS &&
        size > dev->cache_size_loaded) {
        void *data = malloc(size);
        size_t key_size = 0;
        char *key = cache_key(dev, &key_size);
        if (data && key && hcl__vk.vkGetPipelineCacheData(dev->device, dev->pipeline_cache, &size, data) == VK_SUCCESS)
            hcl__kit_host->cache_store(HCL_VK_NAME, key, key_size, data, size);
        free(key);
        free(data);
    }
    hcl__vk.vkDestroyPipelineCache(dev->device, dev->pipeline_cache, NULL);
    dev->pipeline_cache = VK_NULL_HANDLE;
}

/* ---- modules ---- */
hcl_status hcl__vk_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out_module) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_device *dev = device;
    const hcl_module_source *s =
        hcl__kit_source_pick(sources, count, HCL_KIT_KIND(HCL_SOURCE_SPIRV_VULKAN) | HCL_KIT_KIND(HCL_SOURCE_GLSL));
    if (!s)
        return hcl__kit_source_unsupported(count, "Vulkan SPIR-V (HCL_SOURCE_SPIRV_VULKAN) or GLSL (HCL_SOURCE_GLSL)");
    uint32_t *words = NULL;
    size_t size = 0;
    if (s->kind == HCL_SOURCE_GLSL) {
        status = hcl__vk_glsl_compile(s->data, s->size, s->options, &words, &size);
        if (status != HCL_SUCCESS) return status;
    } else if (!hcl__vk_spirv_is_shader(s->data, s->size)) {
        return HCL_KIT_FAIL(HCL_ERROR_BUILD,
                            "vulkan: the %zu bytes given are not a Vulkan SPIR-V module (the magic number and the "
                            "Shader capability; OpenCL SPIR-V declares Kernel)",
                            s->size);
    } else {
        words = malloc(s->size);
        if (!words) return hcl__kit_oom("module words");
        memcpy(words, s->data, s->size);
        size = s->size;
    }
    hcl__vk_module *m = calloc(1, sizeof *m);
    if (!m) {
        free(words);
        return hcl__kit_oom("module");
    }
    m->dev = dev;
    m->size = size;
    m->words = words;
    m->glsl = s->kind == HCL_SOURCE_GLSL;
    VkShaderModuleCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = m->size, .pCode = m->words};
    HCL_VK_CHECK(vkCreateShaderModule, (dev->device, &ci, NULL, &m->shader), "%zu bytes of SPIR-V", m->size);
    hcl__vk_live(dev, 1);
    *out_module = m;
    return HCL_SUCCESS;
cleanup:
    free(m->words);
    free(m);
    return status;
}

void hcl__vk_module_destroy(void *module) {
    hcl__vk_module *m = module;
    if (!m) return;
    hcl__vk.vkDestroyShaderModule(m->dev->device, m->shader, NULL);
    hcl__vk_live(m->dev, -1);
    free(m->words);
    free(m);
}

/* ---- kernels ---- */
hcl_status hcl__vk_kernel_create(void *module, const char *name, void **out_kernel) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_module *m = module;
    hcl__vk_device *dev = m->dev;
    const hcl__vk_device_entry *e = dev->entry;
    char why[256];
    hcl__vk_kernel *k = calloc(1, sizeof *k);
    if (!k) return hcl__kit_oom("kernel");
    k->module = m;
    pthread_mutex_init(&k->lock, NULL);
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->entry, sizeof k->entry, "%s", m->glsl ? "main" : name);
    if (!hcl__vk_spirv_reflect(m->words, m->size, k->entry, &k->refl, why, sizeof why)) {
        status = HCL_KIT_FAIL(strncmp(why, "no GLCompute", 12) == 0 ? HCL_ERROR_NOT_FOUND : HCL_ERROR_UNSUPPORTED,
                              "vulkan: kernel '%s': %s", name, why);
        goto cleanup;
    }
    if (k->refl.cap_16bit_storage && !e->has_16bit_storage) {
        status = HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                              "vulkan: kernel '%s' reads or writes 16-bit values in buffers; device '%s' lacks "
                              "storageBuffer16BitAccess",
                              name, e->info.name);
        goto cleanup;
    }
    if ((k->refl.cap_float16 && !e->has_float16) || (k->refl.cap_int16 && !e->has_int16)) {
        status = HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: kernel '%s' computes in %s; device '%s' lacks it", name,
                              k->refl.cap_float16 ? "float16 (shaderFloat16)" : "int16 (shaderInt16)", e->info.name);
        goto cleanup;
    }
    if (k->refl.push_bytes > e->max_push_bytes) {
        status = HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                              "vulkan: kernel '%s' has %u bytes of push constants; device '%s' "
                              "takes %u",
                              name, k->refl.push_bytes, e->info.name, e->max_push_bytes);
        goto cleanup;
    }
    VkDescriptorSetLayoutBinding b[HCL_VK_MAX_BINDINGS];
    for (uint32_t i = 0; i < k->refl.num_bindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = k->refl.bindings[i],
                                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo si = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                          .bindingCount = k->refl.num_bindings,
                                          .pBindings = b};
    HCL_VK_CHECK(vkCreateDescriptorSetLayout, (dev->device, &si, NULL, &k->set_layout), "kernel '%s'", name);
    hcl__vk_live(dev, 1);
    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = k->refl.push_bytes};
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &k->set_layout,
                                     .pushConstantRangeCount = k->refl.push_bytes ? 1 : 0,
                                     .pPushConstantRanges = &pr};
    HCL_VK_CHECK(vkCreatePipelineLayout, (dev->device, &li, NULL, &k->layout), "kernel '%s'", name);
    hcl__vk_live(dev, 1);
    *out_kernel = k;
    return HCL_SUCCESS;
cleanup:
    hcl__vk_kernel_destroy(k);
    return status;
}

void hcl__vk_kernel_destroy(void *kernel) {
    hcl__vk_kernel *k = kernel;
    if (!k) return;
    hcl__vk_device *dev = k->module->dev;
    if (k->num_pipelines) hcl__vk_device_drain(dev); /* launches recorded or running may use its pipelines */
    for (uint32_t i = 0; i < k->num_pipelines; i++) {
        hcl__vk.vkDestroyPipeline(dev->device, k->pipelines[i].pipeline, NULL);
        hcl__vk_live(dev, -1);
    }
    free(k->pipelines);
    if (k->layout) {
        hcl__vk.vkDestroyPipelineLayout(dev->device, k->layout, NULL);
        hcl__vk_live(dev, -1);
    }
    if (k->set_layout) {
        hcl__vk.vkDestroyDescriptorSetLayout(dev->device, k->set_layout, NULL);
        hcl__vk_live(dev, -1);
    }
    pthread_mutex_destroy(&k->lock);
    free(k);
}

hcl_status hcl__vk_kernel_max_group(void *kernel, uint64_t *out_max) {
    const hcl__vk_kernel *k = kernel;
    *out_max = k->refl.size_from_spec ? k->module->dev->entry->info.max_work_group_size
                                      : (uint64_t)k->refl.local_size[0] * k->refl.local_size[1] * k->refl.local_size[2];
    return HCL_SUCCESS;
}

hcl_status hcl__vk_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                 uint32_t *out_flags) {
    const hcl__vk_kernel *k = kernel;
    const hcl__vk_reflect *r = &k->refl;
    uint32_t n = 0;
    (void)out_flags;
    for (uint32_t i = 0; i < r->num_bindings; i++, n++)
        if (n < max) {
            char name[32];
            snprintf(name, sizeof name, "binding %u", r->bindings[i]);
            hcl__kit_param_set(&out[n], HCL_DRIVER_PARAM_BUFFER, 0, name, strlen(name), "buffer", 6);
        }
    for (uint32_t i = 0; i < r->num_push; i++, n++)
        if (n < max) {
            char name[32];
            snprintf(name, sizeof name, "push constant at %u", r->push_offset[i]);
            hcl__kit_param_set(&out[n], r->push_size[i] ? HCL_DRIVER_PARAM_VALUE : HCL_DRIVER_PARAM_UNKNOWN,
                               r->push_size[i], name, strlen(name), r->push_type[i], strlen(r->push_type[i]));
        }
    *out_count = n;
    return HCL_SUCCESS;
}

/* The kernel's pipeline for work-groups of block[0..2] with block[3] bytes of dynamic shared memory (kernel locked):
 * made on first use, kept until the kernel is destroyed. */
static hcl_status pipeline_for(hcl__vk_kernel *k, const uint32_t block[4], VkPipeline *out) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_device *dev = k->module->dev;
    for (uint32_t i = 0; i < k->num_pipelines; i++)
        if (!memcmp(k->pipelines[i].block, block, sizeof k->pipelines[i].block)) {
            *out = k->pipelines[i].pipeline;
            return HCL_SUCCESS;
        }
    const VkSpecializationMapEntry map[4] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}, {3, 12, 4}};
    VkSpecializationInfo spec = {.mapEntryCount = 4, .pMapEntries = map, .dataSize = 16, .pData = block};
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                                .module = k->module->shader,
                                                .pName = k->entry,
                                                .pSpecializationInfo = &spec},
                                      .layout = k->layout};
    VkPipeline p = VK_NULL_HANDLE;
    if (k->num_pipelines == k->cap_pipelines) {
        const uint32_t cap = k->cap_pipelines ? 2 * k->cap_pipelines : 4;
        hcl__vk_pipeline *grown = realloc(k->pipelines, cap * sizeof *grown);
        if (!grown) return hcl__kit_oom("pipeline list");
        k->pipelines = grown;
        k->cap_pipelines = cap;
    }
    HCL_VK_CHECK(vkCreateComputePipelines, (dev->device, dev->pipeline_cache, 1, &ci, NULL, &p),
                 "kernel '%s', work-groups of %u x %u x %u, %u bytes of shared memory", k->name, block[0], block[1],
                 block[2], block[3]);
    hcl__vk_live(dev, 1);
    const uint32_t slot = k->num_pipelines++;
    memcpy(k->pipelines[slot].block, block, sizeof k->pipelines[slot].block);
    k->pipelines[slot].pipeline = p;
    *out = p;
cleanup:
    return status;
}

hcl_status hcl__vk_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                 uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                 void **out_event) {
    hcl__vk_queue *q = queue;
    hcl__vk_kernel *k = kernel;
    const hcl__vk_reflect *r = &k->refl;
    if (shared_bytes > k->module->dev->entry->info.local_mem_bytes)
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                            "vulkan: kernel '%s': %zu bytes of dynamic shared memory; the device has %llu", k->name,
                            shared_bytes, (unsigned long long)k->module->dev->entry->info.local_mem_bytes);
    const uint32_t bs[4] = {block.x, block.y, block.z, (uint32_t)shared_bytes};
    if (!r->size_from_spec && r->local_size[0] &&
        (bs[0] != r->local_size[0] || bs[1] != r->local_size[1] || bs[2] != r->local_size[2]))
        return HCL_KIT_FAIL(
            HCL_ERROR_INVALID_ARGUMENT,
            "vulkan: kernel '%s' has a fixed work-group size %u x %u x %u; the launch asks %u x %u x %u", k->name,
            r->local_size[0], r->local_size[1], r->local_size[2], bs[0], bs[1], bs[2]);
    VkWriteDescriptorSet writes[HCL_VK_MAX_BINDINGS];
    VkDescriptorBufferInfo infos[HCL_VK_MAX_BINDINGS];
    unsigned char push[256];
    uint32_t nb = 0, nv = 0;
    memset(push, 0, sizeof push);
    for (uint32_t i = 0; i < num_args; i++) {
        const hcl_driver_arg *a = &args[i];
        if (a->kind == HCL_DRIVER_ARG_BUFFER) {
            if (nb == r->num_bindings)
                return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                                    "vulkan: kernel '%s' binds %u storage buffer(s); "
                                    "argument %u is one more",
                                    k->name, r->num_bindings, i);
            const hcl__vk_buffer *b = a->mem;
            infos[nb] = (VkDescriptorBufferInfo){b->buffer, a->offset, VK_WHOLE_SIZE};
            writes[nb] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                                .dstBinding = r->bindings[nb],
                                                .descriptorCount = 1,
                                                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                .pBufferInfo = &infos[nb]};
            nb++;
        } else if (a->kind == HCL_DRIVER_ARG_VALUE) {
            if (nv == r->num_push)
                return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                                    "vulkan: kernel '%s' has %u push constant(s); "
                                    "argument %u is one more",
                                    k->name, r->num_push, i);
            const uint32_t off = r->push_offset[nv];
            const size_t room = r->push_size[nv] ? r->push_size[nv] : r->push_bytes - off;
            if (a->size > room || off + a->size > sizeof push)
                return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                                    "vulkan: kernel '%s': argument %u is %zu bytes; its "
                                    "push constant at offset %u takes %zu",
                                    k->name, i, a->size, off, room);
            memcpy(push + off, a->value, a->size);
            nv++;
        } else {
            return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "vulkan: kernel '%s': argument %u is a tensor map", k->name, i);
        }
    }
    if (nb != r->num_bindings || nv != r->num_push)
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                            "vulkan: kernel '%s' takes %u buffer(s) and %u value(s); the launch gives %u and %u",
                            k->name, r->num_bindings, r->num_push, nb, nv);
    VkPipeline pipeline = VK_NULL_HANDLE;
    pthread_mutex_lock(&k->lock);
    hcl_status status = pipeline_for(k, bs, &pipeline);
    pthread_mutex_unlock(&k->lock);
    if (status != HCL_SUCCESS) return status;
    hcl__vk_cmd cmd;
    status = hcl__vk_cmd_begin(&cmd, q, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    if (q->bound != pipeline) { /* still bound from the batch's previous launch otherwise */
        hcl__vk.vkCmdBindPipeline(cmd.cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        q->bound = pipeline;
    }
    if (nb) q->dev->push_descriptors(cmd.cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, nb, writes);
    if (r->push_bytes)
        hcl__vk.vkCmdPushConstants(cmd.cb, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, r->push_bytes, push);
    hcl__vk.vkCmdDispatch(cmd.cb, grid.x, grid.y, grid.z);
    status = hcl__vk_cmd_submit(&cmd, 1, HCL_VK_BATCHED);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}
