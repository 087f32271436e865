/* Buffers: a native buffer is a device allocation (zeMemAllocDevice), so an offset is plain pointer arithmetic.
 * Transfers are memory copies and fills on the queue's command list; the core has checked every range. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 128: float4 loads of kernels want 16, and fills of 128-byte patterns are aligned to the pattern. */
#define HCL_ZE_ALLOC_ALIGNMENT 128

hcl_status hcl__ze_device_alloc(hcl__ze_device *dev, size_t size, const char *what, void **out_ptr) {
    hcl_status status = HCL_SUCCESS;
    ze_device_mem_alloc_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    desc.ordinal = 0;
    void *ptr = NULL;
    HCL_ZE_CHECK(zeMemAllocDevice, (dev->context, &desc, size, HCL_ZE_ALLOC_ALIGNMENT, dev->device, &ptr),
                 "%s: %zu bytes on '%s' (max single allocation %llu)", what, size, dev->entry->info.name,
                 (unsigned long long)dev->entry->info.max_alloc_bytes);
    hcl__ze_live(dev, 1);
    *out_ptr = ptr;
cleanup:
    return status;
}

void hcl__ze_device_free(hcl__ze_device *dev, void *ptr) {
    if (!ptr) return;
    ze_result_t r = hcl__ze.zeMemFree(dev->context, ptr);
    if (r == ZE_RESULT_SUCCESS)
        hcl__ze_live(dev, -1);
    else
        HCL_KIT_WARN("zeMemFree: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
}

hcl_status hcl__ze_buffer_alloc(void *device, size_t size, void **out_mem) {
    return hcl__ze_device_alloc(device, size, "buffer", out_mem);
}

void hcl__ze_buffer_free(void *device, void *mem) { hcl__ze_device_free(device, mem); }

/* The application's USM as a buffer, as zeMemAllocDevice's would be: a device or shared allocation of this device in
 * the device's context (hcl_device_get_native), with size bytes from the pointer inside it. */
hcl_status hcl__ze_buffer_wrap(void *device, void *native, size_t size, void **out_mem) {
    hcl__ze_device *dev = device;
    hcl_status status = HCL_SUCCESS;
    ze_memory_allocation_properties_t props;
    memset(&props, 0, sizeof props);
    props.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
    ze_device_handle_t owner = NULL;
    HCL_ZE_CHECK(zeMemGetAllocProperties, (dev->context, native, &props, &owner), "buffer_wrap of %p", native);
    if (props.type != ZE_MEMORY_TYPE_DEVICE && props.type != ZE_MEMORY_TYPE_SHARED)
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                            "levelzero: %p is not a device or shared allocation of the device's context (memory type "
                            "%d)",
                            native, (int)props.type);
    if (owner && owner != dev->device)
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "levelzero: %p is memory of another device than '%s'", native,
                            dev->entry->info.name);
    void *base = NULL;
    size_t range = 0;
    HCL_ZE_CHECK(zeMemGetAddressRange, (dev->context, native, &base, &range), "buffer_wrap of %p", native);
    uintptr_t at = (uintptr_t)native, from = (uintptr_t)base;
    if (range != 0 && (at < from || at - from > range || range - (at - from) < size))
        return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                            "levelzero: %zu bytes from %p run past the end of its allocation (%zu bytes from %p)", size,
                            native, range, base);
    *out_mem = native;
cleanup:
    return status;
}

/* hcl_host_alloc: host memory the device reaches directly (zeMemAllocHost), so transfers from and to it need no
 * staging in the runtime. */
hcl_status hcl__ze_host_alloc(void *device, size_t size, void **out_ptr) {
    hcl__ze_device *dev = device;
    hcl_status status = HCL_SUCCESS;
    ze_host_mem_alloc_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    void *ptr = NULL;
    HCL_ZE_CHECK(zeMemAllocHost, (dev->context, &desc, size, 64, &ptr), "%zu bytes of host memory for '%s'", size,
                 dev->entry->info.name);
    hcl__ze_live(dev, 1);
    *out_ptr = ptr;
cleanup:
    return status;
}

void hcl__ze_host_free(void *device, void *ptr) { hcl__ze_device_free(device, ptr); }

/* Small blocking transfers go through host memory the device can reach (zeMemAllocHost), which Level Zero
 * requires of the host side of a copy; larger and asynchronous ones copy from the caller's memory directly,
 * which implementations accept for system memory (Intel's compute runtime stages it itself). NULL when the
 * transfer does not qualify or the staging memory cannot be had (then the direct path is taken). */
static void *staging_for(hcl__ze_queue *q, size_t size, int blocking) {
    if (!blocking || size > HCL_ZE_STAGING_BYTES) return NULL;
    if (!q->staging) {
        ze_host_mem_alloc_desc_t desc;
        memset(&desc, 0, sizeof desc);
        desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
        void *p = NULL;
        ze_result_t r = hcl__ze.zeMemAllocHost(q->dev->context, &desc, HCL_ZE_STAGING_BYTES, 64, &p);
        if (r != ZE_RESULT_SUCCESS || !p) {
            HCL_ZE_LOG("zeMemAllocHost of %zu bytes for staging: %s (0x%08x); copying directly", HCL_ZE_STAGING_BYTES,
                       hcl__ze_result_name(r), (unsigned)r);
            return NULL;
        }
        hcl__ze_live(q->dev, 1);
        q->staging = p;
    }
    return q->staging;
}

/* One memory command: a copy of `size` bytes from `src` to `dst` or, when `pattern_size` is not 0, a fill of them
 * with the pattern of that many bytes at `src`. `after_dst`: where to copy `dst` (the staging memory of a staged read)
 * once the command is done, else NULL. */
static hcl_status memory_command(hcl__ze_queue *q, void *dst, const void *src, size_t size, size_t pattern_size,
                                 int blocking, uint32_t num_wait, void *const *wait, void **out_event, const char *what,
                                 void *after_dst) {
    hcl__ze_cmd cmd;
    hcl_status status = hcl__ze_cmd_begin(&cmd, q, 1, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    ze_event_handle_t signal = NULL;
    status = hcl__ze_cmd_part(&cmd, &signal);
    if (status != HCL_SUCCESS) goto cleanup;
    if (pattern_size == 0)
        HCL_ZE_CHECK(zeCommandListAppendMemoryCopy, (q->list, dst, src, size, signal, 0, NULL), "%s of %zu bytes", what,
                     size);
    else
        HCL_ZE_CHECK(zeCommandListAppendMemoryFill, (q->list, dst, src, pattern_size, size, signal, 0, NULL),
                     "%s, size %zu bytes, pattern of %zu bytes", what, size, pattern_size);
    hcl__ze_cmd_appended(&cmd);
cleanup:
    status = hcl__ze_cmd_end(&cmd, status, blocking, what, out_event);
    if (status == HCL_SUCCESS && after_dst) memcpy(after_dst, dst, size);
    return status;
}

hcl_status hcl__ze_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ze_queue *q = queue;
    void *staging = staging_for(q, size, blocking);
    if (staging) {
        memcpy(staging, src, size);
        src = staging;
    }
    return memory_command(q, (char *)mem + offset, src, size, 0, blocking, num_wait, wait, out_event, "buffer write",
                          NULL);
}

hcl_status hcl__ze_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                               uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ze_queue *q = queue;
    void *staging = staging_for(q, size, blocking);
    if (staging)
        return memory_command(q, staging, (char *)mem + offset, size, 0, blocking, num_wait, wait, out_event,
                              "buffer read", dst);
    return memory_command(q, dst, (char *)mem + offset, size, 0, blocking, num_wait, wait, out_event, "buffer read",
                          NULL);
}

hcl_status hcl__ze_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                               int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    return memory_command(queue, (char *)dst + dst_offset, (char *)src + src_offset, size, 0, blocking, num_wait, wait,
                          out_event, "buffer copy", NULL);
}

/* The runtime's fill takes patterns up to the compute group's maxMemoryFillPatternSize; longer ones (and every
 * one where the runtime gives 0) take the fill kernel. */
hcl_status hcl__ze_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                               void **out_event) {
    hcl__ze_queue *q = queue;
    if (pattern_size > q->dev->entry->max_fill_pattern)
        return hcl__ze_fill_kernel(q, mem, offset, size, pattern, pattern_size, num_wait, wait, blocking, 0, out_event);
    char what[64];
    snprintf(what, sizeof what, "buffer fill at offset %zu", offset);
    return memory_command(q, (char *)mem + offset, pattern, size, pattern_size, blocking, num_wait, wait, out_event,
                          what, NULL);
}
