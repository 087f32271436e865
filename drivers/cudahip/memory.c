/* Buffers: device memory from cuMemAlloc / hipMalloc; transfers and fills as stream-ordered commands. Shared by
 * the CUDA and HIP drivers (gpu.h).
 *
 * Host memory from hcl_host_alloc is page-locked (cuMemHostAlloc / hipHostMalloc), and the *_async transfers from
 * and to it run asynchronously. Pageable host memory works too, but the runtime stages a pageable host-to-device
 * copy and returns once the source has been consumed, and a device-to-host copy into pageable memory returns only
 * when it is done. */
#include "gpu.h"

#include <string.h>

hcl_status hcl__gpu_buffer_alloc(void *device, size_t size, void **out_mem) {
    hcl__gpu_device *d = device;
    hcl_gpu_dptr p = 0;
    hcl_status st = HCL_GPU_ON(d, HCL_GPU(MemAlloc, (&p, size), "size=%zu on device %u '%s'", size, d->index, d->name));
    if (st == HCL_SUCCESS) *out_mem = (void *)(uintptr_t)p;
    return st;
}

/* Portable: usable by every context / device, so the block can serve several devices' queues. */
hcl_status hcl__gpu_host_alloc(void *device, size_t size, void **out_ptr) {
    void *p = NULL;
    hcl_status st = HCL_GPU_ON(device, HCL_GPU(MemHostAlloc, (&p, size, HCL_GPU_HOST_ALLOC_PORTABLE),
                                               "page-locked host memory, size=%zu", size));
    if (st == HCL_SUCCESS) *out_ptr = p;
    return st;
}

/* A free reports nothing (the table's entry returns nothing): the runtime's result is not a message. */
void hcl__gpu_host_free(void *device, void *ptr) {
    (void)HCL_GPU_ON((hcl__gpu_device *)device, (hcl__gpu.HCL_GPU_SYM_MemFreeHost(ptr), HCL_SUCCESS));
}

/* Memory mapped by the caller, page-locked for every device (portable); the optional symbols may be missing. */
hcl_status hcl__gpu_host_register(void *device, void *ptr, size_t size) {
    hcl__gpu_device *d = device;
    if (!hcl__gpu.HCL_GPU_SYM_MemHostRegister || !hcl__gpu.HCL_GPU_SYM_MemHostUnregister)
        return hcl__gpu_host->set_message(HCL_ERROR_UNSUPPORTED, "this %s driver lacks host memory registration",
                                          HCL_GPU_NAME);
    return HCL_GPU_ON(d, HCL_GPU(MemHostRegister, (ptr, size, HCL_GPU_HOST_REGISTER_PORTABLE),
                                 "size=%zu on device %u '%s'", size, d->index, d->name));
}

void hcl__gpu_host_unregister(void *device, void *ptr) {
    (void)HCL_GPU_ON((hcl__gpu_device *)device, ((void)hcl__gpu.HCL_GPU_SYM_MemHostUnregister(ptr), HCL_SUCCESS));
}

/* CUDA: device -> CUcontext (the primary context), queue -> CUstream, buffer -> CUdeviceptr (cast).
 * HIP has no context object: device -> a pointer to its hipDevice_t (the ordinal, an int, for hipSetDevice),
 * queue -> hipStream_t, buffer -> hipDeviceptr_t. */
hcl_status hcl__gpu_get_native(hcl_native_kind kind, void *object, void **out_native) {
    switch (kind) {
#if HCL_GPU_CUDA
    case HCL_NATIVE_DEVICE: *out_native = (void *)((hcl__gpu_device *)object)->ctx; return HCL_SUCCESS;
#else
    case HCL_NATIVE_DEVICE: *out_native = &((hcl__gpu_device *)object)->dev; return HCL_SUCCESS;
#endif
    case HCL_NATIVE_QUEUE: *out_native = (void *)((hcl__gpu_queue *)object)->stream; return HCL_SUCCESS;
    case HCL_NATIVE_BUFFER: *out_native = object; return HCL_SUCCESS; /* the device address */
    }
    return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT, "%s: native kind %d unknown", HCL_GPU_NAME, (int)kind);
}

#define HCL__GPU_STR(x) #x
#define HCL__GPU_XSTR(x) HCL__GPU_STR(x) /* the runtime's name of a neutral operation, for messages */

/* One pointer attribute of `p`; the runtime's failure is the caller's to report. */
static hcl_gpu_result pointer_attr(void *data, int attr, hcl_gpu_dptr p) {
    return hcl__gpu.HCL_GPU_SYM_PointerGetAttribute(data, attr, p);
}

/* The application's device memory as a buffer: the device address itself, as buffer_alloc gives it. Where the runtime
 * has pointer attributes, the pointer must be its memory, of this device, with size bytes from it inside one
 * allocation; a runtime without them lets the pointer through unchecked (logged). */
hcl_status hcl__gpu_buffer_wrap(void *device, void *native, size_t size, void **out_mem) {
    hcl__gpu_device *d = device;
    if (!hcl__gpu.HCL_GPU_SYM_PointerGetAttribute) {
        HCL_GPU_LOG("buffer_wrap: no pointer attributes in this runtime; %p taken unchecked", native);
        *out_mem = native;
        return HCL_SUCCESS;
    }
    hcl_gpu_dptr p = hcl__gpu_ptr(native), start = 0;
    int ordinal = -1;
    size_t range = 0;
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(d, &scope);
    if (st != HCL_SUCCESS) return st;
    hcl_gpu_result r = pointer_attr(&ordinal, HCL_GPU_POINTER_DEVICE_ORDINAL, p);
    if (r == HCL_GPU_SUCCESS) r = pointer_attr(&start, HCL_GPU_POINTER_RANGE_START, p);
    if (r == HCL_GPU_SUCCESS) r = pointer_attr(&range, HCL_GPU_POINTER_RANGE_SIZE, p);
#if HCL_GPU_CUDA
    /* memory of another context of the device is not mapped in the primary context the driver's queues use (NULL:
     * memory of no one context, as the virtual memory management calls map it) */
    CUcontext owner = NULL;
    if (r == HCL_GPU_SUCCESS) r = pointer_attr(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p);
#endif
    hcl__gpu_leave(&scope);
    if (r != HCL_GPU_SUCCESS) {
        hcl__gpu_fail(r, HCL__GPU_XSTR(HCL_GPU_SYM_PointerGetAttribute), "%p", native);
        return hcl__gpu_host->set_message(HCL_ERROR_INVALID_ARGUMENT,
                                          "%s: %p is not device memory the %s runtime knows (%s)", HCL_GPU_NAME, native,
                                          HCL_GPU_API, hcl__gpu_last_failure());
    }
    if (ordinal != (int)d->index)
        return hcl__gpu_host->set_message(HCL_ERROR_INVALID_ARGUMENT,
                                          "%s: %p is memory of device %d, not of device %u '%s'", HCL_GPU_NAME, native,
                                          ordinal, d->index, d->name);
#if HCL_GPU_CUDA
    if (owner && owner != d->ctx)
        return hcl__gpu_host->set_message(HCL_ERROR_INVALID_ARGUMENT,
                                          "cuda: %p is memory of context %p, not of the primary context %p of device "
                                          "%u '%s' that HCL uses",
                                          native, (void *)owner, (void *)d->ctx, d->index, d->name);
#endif
    uintptr_t at = (uintptr_t)p, base = (uintptr_t)start;
    if (range != 0 && (at < base || at - base > range || range - (at - base) < size))
        return hcl__gpu_host->set_message(HCL_ERROR_INVALID_ARGUMENT,
                                          "%s: %zu bytes from %p run past the end of its allocation (%zu bytes from "
                                          "%#llx)",
                                          HCL_GPU_NAME, size, native, range, (unsigned long long)base);
    *out_mem = native;
    return HCL_SUCCESS;
}

void hcl__gpu_buffer_free(void *device, void *mem) {
    (void)HCL_GPU_ON((hcl__gpu_device *)device, (hcl__gpu.HCL_GPU_SYM_MemFree(hcl__gpu_ptr(mem)), HCL_SUCCESS));
}

hcl_status hcl__gpu_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                 uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = hcl__gpu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0)
        st = HCL_GPU(MemcpyHtoDAsync, (hcl__gpu_ptr_at(mem, offset), src, size, cmd.q->stream),
                     "host to device, offset=%zu size=%zu", offset, size);
    return hcl__gpu_cmd_end(&cmd, st, blocking, "a buffer write", out_event);
}

hcl_status hcl__gpu_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = hcl__gpu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0)
        st = HCL_GPU(MemcpyDtoHAsync, (dst, hcl__gpu_ptr_at(mem, offset), size, cmd.q->stream),
                     "device to host, offset=%zu size=%zu", offset, size);
    return hcl__gpu_cmd_end(&cmd, st, blocking, "a buffer read", out_event);
}

hcl_status hcl__gpu_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                                int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = hcl__gpu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0)
        st = HCL_GPU(MemcpyDtoDAsync,
                     (hcl__gpu_ptr_at(dst, dst_offset), hcl__gpu_ptr_at(src, src_offset), size, cmd.q->stream),
                     "device to device, dst_offset=%zu src_offset=%zu size=%zu", dst_offset, src_offset, size);
    return hcl__gpu_cmd_end(&cmd, st, blocking, "a buffer copy", out_event);
}

/* Patterns of 1, 2 and 4 bytes go to the runtime's MemsetD8/D16/D32Async (offset and size are multiples of the
 * pattern, and allocations are 256-byte aligned, so the D16/D32 alignment rules hold); 8..128 bytes to the fill
 * kernel. */
hcl_status hcl__gpu_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                                size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                                void **out_event) {
    hcl__gpu_cmd cmd;
    hcl_status st = HCL_SUCCESS;
    if (pattern_size > 4 && size > 0 && (st = hcl__gpu_helpers_prepare(queue)) != HCL_SUCCESS) return st;
    st = hcl__gpu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    hcl_gpu_dptr p = hcl__gpu_ptr_at(mem, offset);
    hcl_gpu_stream s = cmd.q->stream;
    if (size == 0) {
        /* nothing to write */
    } else if (pattern_size == 1) {
        unsigned char v;
        memcpy(&v, pattern, 1);
        st = HCL_GPU(MemsetD8Async, (p, v, size, s), "offset=%zu size=%zu", offset, size);
    } else if (pattern_size == 2) {
        unsigned short v;
        memcpy(&v, pattern, 2);
        st = HCL_GPU(MemsetD16Async, (p, v, size / 2, s), "offset=%zu size=%zu", offset, size);
    } else if (pattern_size == 4) {
        hcl_gpu_memset32_value v; /* unsigned int on CUDA, int on HIP: the same four bytes */
        memcpy(&v, pattern, 4);
        st = HCL_GPU(MemsetD32Async, (p, v, size / 4, s), "offset=%zu size=%zu", offset, size);
    } else {
        st = hcl__gpu_fill_kernel(cmd.q, p, size, pattern, pattern_size);
    }
    return hcl__gpu_cmd_end(&cmd, st, blocking, "a buffer fill", out_event);
}
