/* Buffers of the Vulkan driver: a VkBuffer bound to memory of a chosen type (device-local, or host-visible and mapped
 * for the queues' staging; a CPU or integrated device's buffers are both, and mapped for as long as they live, unless
 * HCL_VULKAN_MAPPED=0); memory.c's transfers and queue.c's staging use them. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

hcl_status hcl__vk_buffer_make(hcl__vk_device *dev, size_t size, uint32_t type, int map, hcl__vk_buffer *out) {
    hcl_status status = HCL_SUCCESS;
    memset(out, 0, sizeof *out);
    out->size = size;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    HCL_VK_CHECK(vkCreateBuffer, (dev->device, &bi, NULL, &out->buffer), "size %zu bytes", size);
    hcl__vk_live(dev, 1);
    VkMemoryRequirements req;
    hcl__vk.vkGetBufferMemoryRequirements(dev->device, out->buffer, &req);
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    HCL_VK_CHECK(vkAllocateMemory, (dev->device, &ai, NULL, &out->memory), "%zu bytes of memory type %u",
                 (size_t)req.size, type);
    hcl__vk_live(dev, 1);
    HCL_VK_CHECK(vkBindBufferMemory, (dev->device, out->buffer, out->memory, 0), "size %zu bytes", size);
    if (map)
        HCL_VK_CHECK(vkMapMemory, (dev->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped), "%zu bytes", size);
    return HCL_SUCCESS;
cleanup:
    hcl__vk_buffer_unmake(dev, out);
    return status;
}

void hcl__vk_buffer_unmake(hcl__vk_device *dev, hcl__vk_buffer *b) {
    if (b->mapped) hcl__vk.vkUnmapMemory(dev->device, b->memory);
    if (b->buffer) {
        hcl__vk.vkDestroyBuffer(dev->device, b->buffer, NULL);
        hcl__vk_live(dev, -1);
    }
    if (b->memory) {
        hcl__vk.vkFreeMemory(dev->device, b->memory, NULL);
        hcl__vk_live(dev, -1);
    }
    memset(b, 0, sizeof *b);
}

hcl_status hcl__vk_buffer_alloc(void *device, size_t size, void **out_mem) {
    hcl__vk_device *dev = device;
    hcl__vk_buffer *b = malloc(sizeof *b);
    if (!b) return hcl__kit_oom("buffer");
    return hcl__kit_give(hcl__vk_buffer_make(dev, size, dev->buffer_type, dev->buffers_mapped, b), b, out_mem);
}

void hcl__vk_buffer_free(void *device, void *mem) {
    if (!mem) return;
    hcl__vk_buffer_unmake(device, mem);
    free(mem);
}
