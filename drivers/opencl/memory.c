/* Buffers: a native buffer is a cl_mem. Transfers take offsets directly; the core has checked every range. */
#include "internal.h"

#include <stdlib.h>

hcl_status hcl__ocl_buffer_alloc(void *device, size_t size, void **out_mem) {
    hcl__ocl_device *dev = device;
    hcl_status status = HCL_SUCCESS;
    cl_int err = CL_SUCCESS;
    cl_mem mem = hcl__cl.clCreateBuffer(dev->context, CL_MEM_READ_WRITE, size, NULL, &err);
    HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateBuffer", "size %zu bytes on '%s' (max single allocation %llu)", size,
                  dev->entry->info.name, (unsigned long long)dev->entry->info.max_alloc_bytes);
    *out_mem = mem;
cleanup:
    return status;
}

void hcl__ocl_buffer_free(void *device, void *mem) {
    (void)device;
    if (mem) hcl__cl.clReleaseMemObject((cl_mem)mem);
}

/* A transfer of size 0 does nothing; its event, if asked for, is a marker after the wait list. */
static hcl_status empty_transfer(hcl__ocl_queue *q, uint32_t num_wait, void *const *wait, void **out_event) {
    if (!out_event) return HCL_SUCCESS;
    return hcl__ocl_queue_marker(q, num_wait, wait, out_event);
}

/* The common tail of every enqueue: if blocking, wait for the command (its event, else the whole queue, which is in
 * order), then wrap its event if asked for. */
static hcl_status finish_command(hcl__ocl_queue *q, cl_event ev, int blocking, void **out_event) {
    hcl_status status = HCL_SUCCESS;
    if (blocking) {
        status = hcl__ocl_complete(q, ev);
        if (status != HCL_SUCCESS) {
            if (ev) hcl__cl.clReleaseEvent(ev);
            return status;
        }
    }
    if (out_event) return hcl__ocl_event_wrap(ev, ev, 0, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__ocl_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                 uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ocl_queue *q = queue;
    if (size == 0) return empty_transfer(q, num_wait, wait, out_event);
    hcl_status status = HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL, ev = NULL;
    status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    /* Not OpenCL's blocking flag: a blocking clEnqueueWriteBuffer only promises that `src` may be reused when it
     * returns, not that the write is done, and Intel's CPU runtime returns before the bytes land (a read on another
     * queue then saw the old ones: peer2::host_opencl). Enqueued without it and waited for as the fill and the copy are,
     * the write is complete. */
    HCL_OCL_CHECK(hcl__cl.clEnqueueWriteBuffer(q->queue, (cl_mem)mem, CL_FALSE, offset, size, src, num_wait, list,
                                               out_event ? &ev : NULL),
                  HCL_OCL_CALL, "clEnqueueWriteBuffer", "offset %zu, size %zu bytes", offset, size);
    status = finish_command(q, ev, blocking, out_event);
cleanup:
    free(heap);
    return status;
}

hcl_status hcl__ocl_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ocl_queue *q = queue;
    if (size == 0) return empty_transfer(q, num_wait, wait, out_event);
    hcl_status status = HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL, ev = NULL;
    status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    HCL_OCL_CHECK(hcl__cl.clEnqueueReadBuffer(q->queue, (cl_mem)mem, blocking ? CL_TRUE : CL_FALSE, offset, size, dst,
                                              num_wait, list, out_event ? &ev : NULL),
                  HCL_OCL_CALL, "clEnqueueReadBuffer", "offset %zu, size %zu bytes", offset, size);
    status = finish_command(q, ev, 0, out_event); /* a blocking read is complete when it returns */
cleanup:
    free(heap);
    return status;
}

hcl_status hcl__ocl_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                                int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ocl_queue *q = queue;
    if (size == 0) return empty_transfer(q, num_wait, wait, out_event);
    hcl_status status = HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL, ev = NULL;
    status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    HCL_OCL_CHECK(hcl__cl.clEnqueueCopyBuffer(q->queue, (cl_mem)src, (cl_mem)dst, src_offset, dst_offset, size,
                                              num_wait, list, out_event ? &ev : NULL),
                  HCL_OCL_CALL, "clEnqueueCopyBuffer", "src offset %zu, dst offset %zu, size %zu bytes", src_offset,
                  dst_offset, size);
    status = finish_command(q, ev, blocking, out_event);
cleanup:
    free(heap);
    return status;
}

hcl_status hcl__ocl_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                                size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                                void **out_event) {
    hcl__ocl_queue *q = queue;
    if (size == 0) return empty_transfer(q, num_wait, wait, out_event);
    hcl_status status = HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL, ev = NULL;
    status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    HCL_OCL_CHECK(hcl__cl.clEnqueueFillBuffer(q->queue, (cl_mem)mem, pattern, pattern_size, offset, size, num_wait,
                                              list, out_event ? &ev : NULL),
                  HCL_OCL_CALL, "clEnqueueFillBuffer", "offset %zu, size %zu bytes, pattern of %zu bytes", offset, size,
                  pattern_size);
    status = finish_command(q, ev, blocking, out_event);
cleanup:
    free(heap);
    return status;
}
