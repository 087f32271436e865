/* The transfers of the Vulkan driver (its buffers' allocation: alloc.c): reads and writes of a buffer the host maps (a
 * CPU or integrated device's, alloc.c) are memcpy once the queue's commands before them completed; others go through
 * the queue's host-visible staging buffer (in parts of HCL_VK_STAGING_BYTES, each waited for, so the staging can be
 * reused); copies are vkCmdCopyBuffer, fills vkCmdFillBuffer where the pattern is a 4-byte word over 4-byte aligned
 * bytes, else copies of the pattern repeated in the staging. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* A transfer between host memory and a buffer the host maps, as a command of two parts: the first (its wait list, the
 * barrier that orders it after the queue's commands before, the event's start timestamp) submitted and waited for,
 * then memcpy under the queue's lock, then, when an event is wanted, the second (the event's end timestamp) submitted
 * and waited for. So the bytes read are those the commands before it left (a batch ends with a barrier making their
 * writes visible to the host), the commands after it see the bytes written (host writes before vkQueueSubmit are
 * visible to the commands it submits), and the event's device time holds the memcpy. */
static hcl_status transfer_mapped(hcl__vk_queue *q, hcl__vk_buffer *b, size_t offset, size_t size, void *host,
                                  int to_device, uint32_t num_wait, void *const *wait, void **out_event) {
    const int timed = out_event != NULL;
    hcl__vk_cmd cmd;
    hcl_status status = hcl__vk_cmd_begin(&cmd, q, num_wait, wait, timed);
    if (status != HCL_SUCCESS) return status;
    status = hcl__vk_cmd_submit(&cmd, !timed, HCL_VK_WAITED);
    if (status == HCL_SUCCESS && size > 0) {
        if (to_device)
            memcpy((char *)b->mapped + offset, host, size);
        else
            memcpy(host, (const char *)b->mapped + offset, size);
    }
    if (status == HCL_SUCCESS && timed) status = hcl__vk_cmd_next(&cmd);
    if (status == HCL_SUCCESS && timed) status = hcl__vk_cmd_submit(&cmd, 1, HCL_VK_WAITED);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}

/* A transfer between host memory and a buffer: directly where the host maps it, else through the staging, in parts. */
static hcl_status transfer(hcl__vk_queue *q, hcl__vk_buffer *b, size_t offset, size_t size, void *host, int to_device,
                           uint32_t num_wait, void *const *wait, void **out_event) {
    if (b->mapped) return transfer_mapped(q, b, offset, size, host, to_device, num_wait, wait, out_event);
    hcl__vk_cmd cmd;
    hcl_status status = hcl__vk_cmd_begin(&cmd, q, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    size_t done = 0;
    do {
        const size_t part = size - done < HCL_VK_STAGING_BYTES ? size - done : HCL_VK_STAGING_BYTES;
        if (done > 0) status = hcl__vk_cmd_next(&cmd);
        if (status != HCL_SUCCESS) break;
        VkBufferCopy region = {.size = part};
        if (to_device) {
            memcpy(q->staging.mapped, (const char *)host + done, part);
            region.dstOffset = offset + done;
            hcl__vk.vkCmdCopyBuffer(cmd.cb, q->staging.buffer, b->buffer, 1, &region);
        } else {
            region.srcOffset = offset + done;
            hcl__vk.vkCmdCopyBuffer(cmd.cb, b->buffer, q->staging.buffer, 1, &region);
        }
        status = hcl__vk_cmd_submit(&cmd, done + part == size, HCL_VK_WAITED);
        if (status != HCL_SUCCESS) break;
        if (!to_device) memcpy((char *)host + done, q->staging.mapped, part);
        done += part;
    } while (done < size);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}

/* Writes and reads complete before they return whatever `blocking` says (the API allows it): the staging is reused by
 * the next part and the next command (a later version can keep several stagings in flight), and a mapped buffer's
 * memcpy is the host's. */
hcl_status hcl__vk_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event) {
    (void)blocking;
    return transfer(queue, mem, offset, size, (void *)src, 1, num_wait, wait, out_event);
}

hcl_status hcl__vk_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                               uint32_t num_wait, void *const *wait, void **out_event) {
    (void)blocking;
    return transfer(queue, mem, offset, size, dst, 0, num_wait, wait, out_event);
}

hcl_status hcl__vk_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                               int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__vk_cmd cmd;
    hcl_status status = hcl__vk_cmd_begin(&cmd, queue, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    VkBufferCopy region = {.srcOffset = src_offset, .dstOffset = dst_offset, .size = size};
    hcl__vk.vkCmdCopyBuffer(cmd.cb, ((hcl__vk_buffer *)src)->buffer, ((hcl__vk_buffer *)dst)->buffer, 1, &region);
    status = hcl__vk_cmd_submit(&cmd, 1, blocking ? HCL_VK_WAITED : HCL_VK_BATCHED);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}

/* The pattern as one 4-byte word when it repeats every 1, 2 or 4 bytes, for vkCmdFillBuffer. */
static int word_of(const void *pattern, size_t pattern_size, uint32_t *out) {
    const unsigned char *p = pattern;
    unsigned char w[4];
    if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4) return 0;
    for (int i = 0; i < 4; i++) w[i] = p[(size_t)i % pattern_size];
    memcpy(out, w, 4);
    return 1;
}

hcl_status hcl__vk_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                               void **out_event) {
    hcl__vk_queue *q = queue;
    hcl__vk_buffer *b = mem;
    hcl__vk_cmd cmd;
    uint32_t word = 0;
    const int by_word = word_of(pattern, pattern_size, &word) && offset % 4 == 0 && size % 4 == 0;
    hcl_status status = hcl__vk_cmd_begin(&cmd, q, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    if (by_word) {
        hcl__vk.vkCmdFillBuffer(cmd.cb, b->buffer, offset, size, word);
        status = hcl__vk_cmd_submit(&cmd, 1, blocking ? HCL_VK_WAITED : HCL_VK_BATCHED);
        return hcl__vk_cmd_finish(&cmd, status, out_event);
    }
    /* the pattern repeated over the staging (the core checked that offset and size are multiples of its size), then
     * copied over the range; waited for, since the staging is reused */
    const size_t span = HCL_VK_STAGING_BYTES / pattern_size * pattern_size;
    const size_t fill = size < span ? size : span;
    for (size_t i = 0; i < fill; i += pattern_size) memcpy((char *)q->staging.mapped + i, pattern, pattern_size);
    for (size_t done = 0; done < size;) {
        const size_t part = size - done < fill ? size - done : fill;
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = offset + done, .size = part};
        hcl__vk.vkCmdCopyBuffer(cmd.cb, q->staging.buffer, b->buffer, 1, &region);
        done += part;
    }
    status = hcl__vk_cmd_submit(&cmd, 1, HCL_VK_WAITED);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}
