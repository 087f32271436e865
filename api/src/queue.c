/* Queues: in-order streams of commands on one device. A queue holds a reference on its device. */
#include "core.h"

#include <stdlib.h>

/* Destroy the native queue (the caller finished it) and drop the device reference. */
static void queue_destroy(void *object) {
    hcl__queue *q = object;
    hcl__trace_queue_release(q);
    hcl__builtins_queue_release(q);
    q->dev->drv->queue_destroy(q->native);
    hcl__device_unref(q->dev);
    free(q);
}

static hcl_status queue_create(hcl_device device, hcl_queue *out_queue) {
    hcl__device *dev;
    hcl_status st =
        hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_queue, "hcl_queue_create", "device", "out_queue");
    if (st != HCL_SUCCESS) return st;
    hcl__queue *q = calloc(1, sizeof *q);
    if (!q) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "hcl_queue_create: out of host memory");
    if ((st = dev->drv->queue_create(dev->native, &q->native)) != HCL_SUCCESS) {
        free(q);
        return hcl__prefix_message(st, "hcl_queue_create");
    }
    q->dev = dev;
    hcl__device_ref(dev);
    if (hcl__trace_on()) hcl__trace_queue_created(q);
    return hcl__publish(HCL__H_QUEUE, q, queue_destroy, (void **)out_queue, "hcl_queue_create");
}

HCL_API hcl_status hcl_queue_create(hcl_device device, hcl_queue *out_queue) {
    HCL__TRACED("hcl_queue_create", queue_create(device, out_queue), NULL, NULL, NULL);
}

/* Drain the queue; a driver failure is reported as the public call's. */
HCL__TRACED_BODY hcl_status finish(hcl__queue *q, const char *fn) {
    hcl_status st = q->dev->drv->queue_finish(q->native);
    if (st == HCL_SUCCESS && hcl__trace_on()) hcl__trace_queue_idle(q);
    return hcl__prefix_message(st, fn);
}

static hcl_status queue_release(hcl_queue queue) {
    hcl__queue *q;
    hcl_status st = hcl__take(queue, HCL__H_QUEUE, (void **)&q, "hcl_queue_release", "queue");
    if (st != HCL_SUCCESS) return st;
    st = finish(q, "hcl_queue_release");
    queue_destroy(q);
    return st;
}

HCL_API hcl_status hcl_queue_release(hcl_queue queue) {
    HCL__TRACED("hcl_queue_release", queue_release(queue), NULL, NULL, NULL);
}

HCL__TRACED_BODY hcl_status finish_body(hcl_queue queue) {
    hcl__queue *q;
    hcl_status st = hcl__lookup(queue, HCL__H_QUEUE, (void **)&q, "hcl_queue_finish", "queue");
    return st == HCL_SUCCESS ? finish(q, "hcl_queue_finish") : st;
}

HCL_API hcl_status hcl_queue_finish(hcl_queue queue) {
    HCL__TRACED("hcl_queue_finish", finish_body(queue), NULL, NULL, NULL);
}

static hcl_status marker_body(hcl_queue queue, hcl_event *out_event) {
    hcl__queue *q;
    hcl_status st =
        hcl__lookup_out(queue, HCL__H_QUEUE, (void **)&q, out_event, "hcl_queue_marker", "queue", "out_event");
    if (st != HCL_SUCCESS) return st;
    void *native = NULL;
    if ((st = q->dev->drv->queue_marker(q->native, 0, NULL, &native)) != HCL_SUCCESS)
        return hcl__prefix_message(st, "hcl_queue_marker");
    return hcl__wrap_event("hcl_queue_marker", q, native, out_event);
}

HCL_API hcl_status hcl_queue_marker(hcl_queue queue, hcl_event *out_event) {
    HCL__TRACED("hcl_queue_marker", marker_body(queue, out_event), NULL, NULL, NULL);
}
