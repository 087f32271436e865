/* Buffers: device memory from cuMemAlloc; transfers and fills as stream-ordered commands.
 *
 * The API has no page-locked host allocation yet, so host memory is pageable: CUDA stages a pageable
 * host-to-device copy and returns once the source has been consumed, and a device-to-host copy into pageable
 * memory returns only when it is done. The *_async forms are therefore correct but do not overlap with host work
 * the way copies from pinned memory would. */
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
