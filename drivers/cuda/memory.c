/* Buffers: device memory from cuMemAlloc; transfers and fills as stream-ordered commands.
 *
 * Host memory from hcl_host_alloc is page-locked (cuMemHostAlloc), and the *_async transfers from and to it run
 * asynchronously. Pageable host memory works too, but CUDA stages a pageable host-to-device copy and returns once
 * the source has been consumed, and a device-to-host copy into pageable memory returns only when it is done. */
#include "internal.h"

#include <string.h>

hcl_status hcl__cu_buffer_alloc(void *device, size_t size, void **out_mem) {
    hcl__cu_device *d = device;
    hcl__cu_scope scope;
    hcl_status st = hcl__cu_enter(d, &scope);
    if (st != HCL_SUCCESS) return st;
    CUdeviceptr p = 0;
    st = HCL_CU(cuMemAlloc_v2, (&p, size), "size=%zu on device %u '%s'", size, d->index, d->name);
    hcl__cu_leave(&scope);
    if (st != HCL_SUCCESS) return st;
    *out_mem = (void *)(uintptr_t)p;
    return HCL_SUCCESS;
}

/* Portable: usable by every context, so the block can serve several devices' queues. */
hcl_status hcl__cu_host_alloc(void *device, size_t size, void **out_ptr) {
    hcl__cu_device *d = device;
    hcl__cu_scope scope;
    hcl_status st = hcl__cu_enter(d, &scope);
    if (st != HCL_SUCCESS) return st;
    void *p = NULL;
    st = HCL_CU(cuMemHostAlloc, (&p, size, CU_MEMHOSTALLOC_PORTABLE), "page-locked host memory, size=%zu", size);
    hcl__cu_leave(&scope);
    if (st != HCL_SUCCESS) return st;
    *out_ptr = p;
    return HCL_SUCCESS;
}

void hcl__cu_host_free(void *device, void *ptr) {
    hcl__cu_device *d = device;
    hcl__cu_scope scope;
    if (hcl__cu_enter(d, &scope) != HCL_SUCCESS) return;
    hcl__cu.cuMemFreeHost(ptr);
    hcl__cu_leave(&scope);
}

hcl_status hcl__cu_get_native(hcl_native_kind kind, void *object, void **out_native) {
    switch (kind) {
    case HCL_NATIVE_DEVICE: *out_native = (void *)((hcl__cu_device *)object)->ctx; return HCL_SUCCESS;
    case HCL_NATIVE_QUEUE: *out_native = (void *)((hcl__cu_queue *)object)->stream; return HCL_SUCCESS;
    case HCL_NATIVE_BUFFER: *out_native = object; return HCL_SUCCESS; /* the CUdeviceptr value */
    }
    return hcl__cu_host->set_message(HCL_ERROR_INVALID_ARGUMENT, "cuda: native kind %d unknown", (int)kind);
}

void hcl__cu_buffer_free(void *device, void *mem) {
    hcl__cu_device *d = device;
    hcl__cu_scope scope;
    if (hcl__cu_enter(d, &scope) != HCL_SUCCESS) return;
    hcl__cu.cuMemFree_v2(hcl__cu_ptr(mem));
    hcl__cu_leave(&scope);
}

hcl_status hcl__cu_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__cu_cmd cmd;
    hcl_status st = hcl__cu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0)
        st = HCL_CU(cuMemcpyHtoDAsync_v2, (hcl__cu_ptr(mem) + offset, src, size, cmd.q->stream),
                    "host to device, offset=%zu size=%zu", offset, size);
    return hcl__cu_cmd_end(&cmd, st, blocking, "a buffer write", out_event);
}

hcl_status hcl__cu_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                               uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__cu_cmd cmd;
    hcl_status st = hcl__cu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0)
        st = HCL_CU(cuMemcpyDtoHAsync_v2, (dst, hcl__cu_ptr(mem) + offset, size, cmd.q->stream),
                    "device to host, offset=%zu size=%zu", offset, size);
    return hcl__cu_cmd_end(&cmd, st, blocking, "a buffer read", out_event);
}

hcl_status hcl__cu_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                               int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__cu_cmd cmd;
    hcl_status st = hcl__cu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0)
        st = HCL_CU(cuMemcpyDtoDAsync_v2,
                    (hcl__cu_ptr(dst) + dst_offset, hcl__cu_ptr(src) + src_offset, size, cmd.q->stream),
                    "device to device, dst_offset=%zu src_offset=%zu size=%zu", dst_offset, src_offset, size);
    return hcl__cu_cmd_end(&cmd, st, blocking, "a buffer copy", out_event);
}

/* Patterns of 1, 2 and 4 bytes go to cuMemsetD8/D16/D32Async (offset and size are multiples of the pattern, and
 * allocations are 256-byte aligned, so the D16/D32 alignment rules hold); 8..128 bytes to the fill kernel. */
hcl_status hcl__cu_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                               void **out_event) {
    hcl__cu_cmd cmd;
    hcl_status st = HCL_SUCCESS;
    if (pattern_size > 4 && size > 0 && (st = hcl__cu_builtins_prepare(queue, 0)) != HCL_SUCCESS) return st;
    st = hcl__cu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    CUdeviceptr p = hcl__cu_ptr(mem) + offset;
    CUstream s = cmd.q->stream;
    if (size == 0) {
        /* nothing to write */
    } else if (pattern_size == 1) {
        unsigned char v;
        memcpy(&v, pattern, 1);
        st = HCL_CU(cuMemsetD8Async, (p, v, size, s), "offset=%zu size=%zu", offset, size);
    } else if (pattern_size == 2) {
        unsigned short v;
        memcpy(&v, pattern, 2);
        st = HCL_CU(cuMemsetD16Async, (p, v, size / 2, s), "offset=%zu size=%zu", offset, size);
    } else if (pattern_size == 4) {
        unsigned int v;
        memcpy(&v, pattern, 4);
        st = HCL_CU(cuMemsetD32Async, (p, v, size / 4, s), "offset=%zu size=%zu", offset, size);
    } else {
        st = hcl__cu_fill_kernel(cmd.q, p, size, pattern, pattern_size);
    }
    return hcl__cu_cmd_end(&cmd, st, blocking, "a buffer fill", out_event);
}
