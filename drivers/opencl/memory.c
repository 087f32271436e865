/* Buffers: a native buffer is a cl_mem. Transfers take offsets directly; the core has checked every range. */
#include "internal.h"

#include <stdio.h>
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

/* One of the four transfers, with what its enqueue call takes. */
typedef enum transfer_kind { WRITE, READ, COPY, FILL } transfer_kind;
typedef struct transfer {
    transfer_kind kind;
    cl_mem mem; /* the destination (the source of a read) */
    size_t offset, size;
    const void *host_src; /* WRITE */
    void *host_dst;       /* READ */
    cl_mem src;           /* COPY */
    size_t src_offset;    /* COPY */
    const void *pattern;  /* FILL */
    size_t pattern_size;  /* FILL */
} transfer;

/* Each kind's call, for a failure's message (in transfer_kind's order). */
static const char *const calls[] = {"clEnqueueWriteBuffer", "clEnqueueReadBuffer", "clEnqueueCopyBuffer",
                                    "clEnqueueFillBuffer"};

/* The range of t, for a failure's message: written into what, which it returns. */
static const char *describe(const transfer *t, char *what, size_t what_size) {
    if (t->kind == COPY)
        snprintf(what, what_size, "src offset %zu, dst offset %zu, size %zu bytes", t->src_offset, t->offset, t->size);
    else if (t->kind == FILL)
        snprintf(what, what_size, "offset %zu, size %zu bytes, pattern of %zu bytes", t->offset, t->size,
                 t->pattern_size);
    else
        snprintf(what, what_size, "offset %zu, size %zu bytes", t->offset, t->size);
    return what;
}

/* Enqueue t after the wait list. Not OpenCL's blocking flag for a write: a blocking clEnqueueWriteBuffer only
 * promises that `src` may be reused when it returns, not that the write is done, and Intel's CPU runtime returns
 * before the bytes land (a read on another queue then saw the old ones: peer2::host_opencl). Enqueued without it and
 * waited for as the fill and the copy are, the write is complete. A blocking read is complete when it returns. */
static cl_int enqueue(const hcl__ocl_queue *q, const transfer *t, int blocking, cl_uint n, const cl_event *list,
                      cl_event *ev) {
    switch (t->kind) {
    case WRITE:
        return hcl__cl.clEnqueueWriteBuffer(q->queue, t->mem, CL_FALSE, t->offset, t->size, t->host_src, n, list, ev);
    case READ:
        return hcl__cl.clEnqueueReadBuffer(q->queue, t->mem, blocking ? CL_TRUE : CL_FALSE, t->offset, t->size,
                                           t->host_dst, n, list, ev);
    case COPY:
        return hcl__cl.clEnqueueCopyBuffer(q->queue, t->src, t->mem, t->src_offset, t->offset, t->size, n, list, ev);
    case FILL:
        return hcl__cl.clEnqueueFillBuffer(q->queue, t->mem, t->pattern, t->pattern_size, t->offset, t->size, n, list,
                                           ev);
    }
    return CL_INVALID_VALUE;
}

/* Every transfer: of size 0 nothing is enqueued (its event, if asked for, is a marker after the wait list); else the
 * command after the wait list; if blocking, wait for it (its event, else the whole queue, which is in order; a read
 * is complete when its blocking enqueue returns), then wrap its event if asked for. */
static hcl_status run_transfer(void *queue, const transfer *t, int blocking, uint32_t num_wait, void *const *wait,
                               void **out_event) {
    hcl__ocl_queue *q = queue;
    if (t->size == 0) return out_event ? hcl__ocl_queue_marker(q, num_wait, wait, out_event) : HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL, ev = NULL;
    hcl_status status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    char what[160]; /* written only on failure */
    HCL_OCL_CHECK(enqueue(q, t, blocking, num_wait, list, out_event ? &ev : NULL), HCL_OCL_CALL, calls[t->kind], "%s",
                  describe(t, what, sizeof what));
    if (blocking && t->kind != READ && (status = hcl__ocl_complete(q, ev)) != HCL_SUCCESS) {
        if (ev) hcl__cl.clReleaseEvent(ev);
        goto cleanup;
    }
    if (out_event) status = hcl__ocl_event_wrap(ev, ev, 0, out_event);
cleanup:
    free(heap);
    return status;
}

hcl_status hcl__ocl_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                 uint32_t num_wait, void *const *wait, void **out_event) {
    const transfer t = {.kind = WRITE, .mem = (cl_mem)mem, .offset = offset, .size = size, .host_src = src};
    return run_transfer(queue, &t, blocking, num_wait, wait, out_event);
}

hcl_status hcl__ocl_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event) {
    const transfer t = {.kind = READ, .mem = (cl_mem)mem, .offset = offset, .size = size, .host_dst = dst};
    return run_transfer(queue, &t, blocking, num_wait, wait, out_event);
}

hcl_status hcl__ocl_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                                int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    const transfer t = {.kind = COPY,
                        .mem = (cl_mem)dst,
                        .offset = dst_offset,
                        .size = size,
                        .src = (cl_mem)src,
                        .src_offset = src_offset};
    return run_transfer(queue, &t, blocking, num_wait, wait, out_event);
}

hcl_status hcl__ocl_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                                size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                                void **out_event) {
    const transfer t = {.kind = FILL,
                        .mem = (cl_mem)mem,
                        .offset = offset,
                        .size = size,
                        .pattern = pattern,
                        .pattern_size = pattern_size};
    return run_transfer(queue, &t, blocking, num_wait, wait, out_event);
}
