/* Buffers: every offset and size is checked here, against the buffer, before a driver sees it. A buffer holds a
 * reference on its device. */
#include "core.h"

#include <stddef.h>
#include <stdlib.h>

/* Free the memory and drop the device reference: a release, or a create that could not register its handle. */
static void buffer_destroy(void *object) {
    hcl__buffer *buf = object;
    if (!buf->wrapped) buf->dev->drv->buffer_free(buf->dev->native, buf->native);
    hcl__device_unref(buf->dev);
    free(buf);
}

static hcl_status buffer_create(hcl_device device, size_t size, uint32_t flags, hcl_buffer *out_buffer) {
    static const char fn[] = "hcl_buffer_create";
    hcl__device *dev;
    hcl_status st = hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_buffer, fn, "device", "out_buffer");
    if (st != HCL_SUCCESS) return st;
    if (size == 0) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: size is 0", fn);
    if (flags != 0)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x (must be 0)", fn, flags);
    if (dev->info.max_alloc_bytes && size > dev->info.max_alloc_bytes)
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: size %zu exceeds the device's max_alloc_bytes %llu", fn,
                                size, (unsigned long long)dev->info.max_alloc_bytes);
    hcl__buffer *buf = calloc(1, sizeof *buf);
    if (!buf) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if ((st = dev->drv->buffer_alloc(dev->native, size, &buf->native)) != HCL_SUCCESS) {
        free(buf);
        return hcl__prefix_message(st, fn);
    }
    buf->dev = dev;
    buf->size = size;
    hcl__device_ref(dev);
    return hcl__publish(HCL__H_BUFFER, buf, buffer_destroy, (void **)out_buffer, fn);
}

HCL_API hcl_status hcl_buffer_create(hcl_device device, size_t size, uint32_t flags, hcl_buffer *out_buffer) {
    HCL__TRACED("hcl_buffer_create", buffer_create(device, size, flags, out_buffer), NULL, NULL, "size", size);
}

/* A buffer over the application's memory: checked here, the pointer's device and extent by the driver (buffer_wrap),
 * and marked so that its release never frees what HCL did not allocate. */
static hcl_status buffer_wrap_native(hcl_device device, void *native, size_t size, uint32_t flags,
                                     hcl_buffer *out_buffer) {
    static const char fn[] = "hcl_buffer_wrap_native";
    hcl__device *dev;
    hcl_status st = hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_buffer, fn, "device", "out_buffer");
    if (st != HCL_SUCCESS) return st;
    if (!native) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: native is NULL", fn);
    if (size == 0) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: size is 0", fn);
    if (flags != 0)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x (must be 0)", fn, flags);
    if (!HCL_DRIVER_HAS(dev->drv, buffer_wrap))
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "%s: the %s driver cannot wrap memory it did not allocate", fn,
                                dev->backend->name);
    hcl__buffer *buf = calloc(1, sizeof *buf);
    if (!buf) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if ((st = dev->drv->buffer_wrap(dev->native, native, size, &buf->native)) != HCL_SUCCESS) {
        free(buf);
        return hcl__prefix_message(st, fn);
    }
    buf->dev = dev;
    buf->size = size;
    buf->wrapped = 1;
    hcl__device_ref(dev);
    return hcl__publish(HCL__H_BUFFER, buf, buffer_destroy, (void **)out_buffer, fn);
}

HCL_API hcl_status hcl_buffer_wrap_native(hcl_device device, void *native, size_t size, uint32_t flags,
                                          hcl_buffer *out_buffer) {
    HCL__TRACED("hcl_buffer_wrap_native", buffer_wrap_native(device, native, size, flags, out_buffer), NULL, NULL,
                "size", size);
}

HCL_API hcl_status hcl_buffer_release(hcl_buffer buffer) {
    return hcl__release(buffer, HCL__H_BUFFER, buffer_destroy, "hcl_buffer_release", "buffer");
}

HCL_API hcl_status hcl_buffer_size(hcl_buffer buffer, size_t *out_size) {
    return hcl__get(buffer, HCL__H_BUFFER, offsetof(hcl__buffer, size), sizeof *out_size, out_size, "hcl_buffer_size",
                    "buffer", "out_size");
}

typedef enum xfer_kind { XFER_WRITE, XFER_READ, XFER_COPY, XFER_FILL } xfer_kind;

/* What a transfer moves: the buffers and ranges its kind names (the others stay zero). */
typedef struct xfer {
    hcl_buffer dst, src; /* dst: the buffer written (write, copy, fill); src: read and copy */
    size_t dst_offset, src_offset, size;
    const void *host_src; /* write; fill pattern */
    void *host_dst;       /* read */
    size_t pattern_size;
} xfer;

/* How it is ordered: a blocking form completes it before returning and takes no wait list or event. */
typedef struct xfer_order {
    int blocking;
    uint32_t num_wait;
    const hcl_event *wait_list;
    hcl_event *out_event;
} xfer_order;

static const xfer_order blocking = {.blocking = 1};

static int is_pattern_size(size_t s) {
    return s == 1 || s == 2 || s == 4 || s == 8 || s == 16 || s == 32 || s == 64 || s == 128;
}

HCL__TRACED_BODY hcl_status xfer_checked(const char *fn, xfer_kind kind, hcl_queue queue, const xfer *x,
                                         const xfer_order *o) {
    hcl__queue *q;
    hcl__buffer *dst = NULL, *src = NULL;
    hcl_status st = hcl__lookup(queue, HCL__H_QUEUE, (void **)&q, fn, "queue");
    if (st != HCL_SUCCESS) return st;
    if (kind != XFER_READ && (st = hcl__lookup(x->dst, HCL__H_BUFFER, (void **)&dst, fn,
                                               kind == XFER_FILL ? "buffer" : "dst")) != HCL_SUCCESS)
        return st;
    if ((kind == XFER_READ || kind == XFER_COPY) &&
        (st = hcl__lookup(x->src, HCL__H_BUFFER, (void **)&src, fn, "src")) != HCL_SUCCESS)
        return st;
    if (kind == XFER_COPY && dst->dev != src->dev) { /* a copy between devices: the queue is one of theirs */
        if (q->dev != dst->dev && q->dev != src->dev)
            return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH,
                                    "%s: the queue's device (%s:%u) is neither dst's (%s:%u) nor src's (%s:%u)", fn,
                                    q->dev->backend->name, q->dev->index, dst->dev->backend->name, dst->dev->index,
                                    src->dev->backend->name, src->dev->index);
    } else if ((dst && dst->dev != q->dev) || (src && src->dev != q->dev)) {
        return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH, "%s: the buffer belongs to another device than the queue",
                                fn);
    }
    if (!o->blocking && o->num_wait > 0 && !o->wait_list)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: wait_list is NULL with num_wait %u", fn, o->num_wait);
    switch (kind) {
    case XFER_WRITE:
        if (!x->host_src && x->size)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: src is NULL with size %zu", fn, x->size);
        st = hcl__check_range(fn, "dst", x->dst_offset, x->size, dst->size);
        break;
    case XFER_READ:
        if (!x->host_dst && x->size)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: dst is NULL with size %zu", fn, x->size);
        st = hcl__check_range(fn, "src", x->src_offset, x->size, src->size);
        break;
    case XFER_COPY:
        if ((st = hcl__check_range(fn, "dst", x->dst_offset, x->size, dst->size)) != HCL_SUCCESS) return st;
        if ((st = hcl__check_range(fn, "src", x->src_offset, x->size, src->size)) != HCL_SUCCESS) return st;
        if (dst == src && x->size && x->dst_offset < x->src_offset + x->size && x->src_offset < x->dst_offset + x->size)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: ranges [%zu, +%zu) and [%zu, +%zu) of one buffer overlap", fn, x->src_offset,
                                    x->size, x->dst_offset, x->size);
        break;
    case XFER_FILL:
        if (!x->host_src) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: pattern is NULL", fn);
        if (!is_pattern_size(x->pattern_size))
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: pattern_size %zu is not one of 1, 2, 4, 8, 16, 32, 64, 128", fn,
                                    x->pattern_size);
        if (x->dst_offset % x->pattern_size || x->size % x->pattern_size)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: offset %zu and size %zu must be multiples of pattern_size %zu", fn,
                                    x->dst_offset, x->size, x->pattern_size);
        st = hcl__check_range(fn, "buffer", x->dst_offset, x->size, dst->size);
        break;
    }
    if (st != HCL_SUCCESS) return st;
    void **wait = NULL;
    uint32_t nw = o->blocking ? 0 : o->num_wait;
    if ((st = hcl__resolve_wait(fn, q->dev, nw, o->wait_list, &wait)) != HCL_SUCCESS) return st;
    if (kind == XFER_COPY && x->size && dst->dev != src->dev) {
        st =
            hcl__peer_copy(fn, q, dst, x->dst_offset, src, x->src_offset, x->size, o->blocking, nw, wait, o->out_event);
        free(wait);
        return st;
    }
    const hcl_driver_table *d = q->dev->drv;
    void *native = NULL, **evp = HCL__WANT_EVENT(o->out_event) ? &native : NULL;
    if (x->size == 0) /* nothing to move: honour the wait list and the event with a marker */
        st = (evp || nw) ? d->queue_marker(q->native, nw, wait, evp ? evp : &native) : HCL_SUCCESS;
    else if (kind == XFER_WRITE)
        st = d->buffer_write(q->native, dst->native, x->dst_offset, x->size, x->host_src, o->blocking, nw, wait, evp);
    else if (kind == XFER_READ)
        st = d->buffer_read(q->native, src->native, x->src_offset, x->size, x->host_dst, o->blocking, nw, wait, evp);
    else if (kind == XFER_COPY)
        st = d->buffer_copy(q->native, dst->native, x->dst_offset, src->native, x->src_offset, x->size, o->blocking, nw,
                            wait, evp);
    else
        st = d->buffer_fill(q->native, dst->native, x->dst_offset, x->size, x->host_src, x->pattern_size, o->blocking,
                            nw, wait, evp);
    free(wait);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    /* with no out_event this releases the marker made only to honour the wait list */
    return hcl__wrap_event(fn, q, native, o->out_event);
}

/* Every transfer call, checked, run and (while tracing) traced. */
static hcl_status run_xfer(const char *fn, xfer_kind kind, hcl_queue queue, const xfer *x, const xfer_order *o) {
    HCL__TRACED(fn, xfer_checked(fn, kind, queue, x, o), NULL, NULL, "size,dst_offset,src_offset,blocking", x->size,
                x->dst_offset, x->src_offset, o->blocking);
}

static hcl_status write_xfer(const char *fn, hcl_queue queue, hcl_buffer dst, size_t offset, size_t size,
                             const void *src, const xfer_order *order) {
    xfer x = {.dst = dst, .dst_offset = offset, .size = size, .host_src = src};
    return run_xfer(fn, XFER_WRITE, queue, &x, order);
}

static hcl_status read_xfer(const char *fn, hcl_queue queue, hcl_buffer src, size_t offset, size_t size, void *dst,
                            const xfer_order *order) {
    xfer x = {.src = src, .src_offset = offset, .size = size, .host_dst = dst};
    return run_xfer(fn, XFER_READ, queue, &x, order);
}

static hcl_status copy_xfer(const char *fn, hcl_queue queue, hcl_buffer dst, size_t dst_offset, hcl_buffer src,
                            size_t src_offset, size_t size, const xfer_order *order) {
    xfer x = {.dst = dst, .src = src, .dst_offset = dst_offset, .src_offset = src_offset, .size = size};
    return run_xfer(fn, XFER_COPY, queue, &x, order);
}

static hcl_status fill_xfer(const char *fn, hcl_queue queue, hcl_buffer buffer, size_t offset, size_t size,
                            const void *pattern, size_t pattern_size, const xfer_order *order) {
    xfer x = {.dst = buffer, .dst_offset = offset, .size = size, .host_src = pattern, .pattern_size = pattern_size};
    return run_xfer(fn, XFER_FILL, queue, &x, order);
}

HCL_API hcl_status hcl_buffer_write(hcl_queue queue, hcl_buffer dst, size_t offset, size_t size, const void *src) {
    return write_xfer("hcl_buffer_write", queue, dst, offset, size, src, &blocking);
}

HCL_API hcl_status hcl_buffer_read(hcl_queue queue, hcl_buffer src, size_t offset, size_t size, void *dst) {
    return read_xfer("hcl_buffer_read", queue, src, offset, size, dst, &blocking);
}

HCL_API hcl_status hcl_buffer_copy(hcl_queue queue, hcl_buffer dst, size_t dst_offset, hcl_buffer src,
                                   size_t src_offset, size_t size) {
    return copy_xfer("hcl_buffer_copy", queue, dst, dst_offset, src, src_offset, size, &blocking);
}

HCL_API hcl_status hcl_buffer_fill(hcl_queue queue, hcl_buffer buffer, size_t offset, size_t size, const void *pattern,
                                   size_t pattern_size) {
    return fill_xfer("hcl_buffer_fill", queue, buffer, offset, size, pattern, pattern_size, &blocking);
}

HCL_API hcl_status hcl_buffer_write_async(hcl_queue queue, hcl_buffer dst, size_t offset, size_t size, const void *src,
                                          uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event) {
    xfer_order order = {0, num_wait, wait_list, out_event};
    return write_xfer("hcl_buffer_write_async", queue, dst, offset, size, src, &order);
}

HCL_API hcl_status hcl_buffer_read_async(hcl_queue queue, hcl_buffer src, size_t offset, size_t size, void *dst,
                                         uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event) {
    xfer_order order = {0, num_wait, wait_list, out_event};
    return read_xfer("hcl_buffer_read_async", queue, src, offset, size, dst, &order);
}

HCL_API hcl_status hcl_buffer_copy_async(hcl_queue queue, hcl_buffer dst, size_t dst_offset, hcl_buffer src,
                                         size_t src_offset, size_t size, uint32_t num_wait, const hcl_event *wait_list,
                                         hcl_event *out_event) {
    xfer_order order = {0, num_wait, wait_list, out_event};
    return copy_xfer("hcl_buffer_copy_async", queue, dst, dst_offset, src, src_offset, size, &order);
}

HCL_API hcl_status hcl_buffer_fill_async(hcl_queue queue, hcl_buffer buffer, size_t offset, size_t size,
                                         const void *pattern, size_t pattern_size, uint32_t num_wait,
                                         const hcl_event *wait_list, hcl_event *out_event) {
    xfer_order order = {0, num_wait, wait_list, out_event};
    return fill_xfer("hcl_buffer_fill_async", queue, buffer, offset, size, pattern, pattern_size, &order);
}
