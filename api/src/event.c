/* Events: the core's handle around the native events of one API call. Most calls are one device command; a
 * built-in the core runs as several device commands (two launches) is still one event to the caller, so an
 * event keeps the native event of its group's first command as well as its last: waiting needs only the last
 * (queues are in order), timing needs both ends. An event's references and its release are lifetime.c's. */
#include "core.h"

#include <stdlib.h>

hcl_status hcl__wrap_event_span(const char *fn, hcl__queue *q, void *first, void *last, hcl_event *out_event) {
    hcl__device *dev = q->dev;
    if (first == last) /* a group of one: keep a single native so it is released once */
        first = NULL;
    const int traced = last && hcl__trace_on();
    if (!out_event) { /* the tracer's alone, when tracing: no event object for it */
        if (traced)
            hcl__trace_command(q, NULL, first, last);
        else
            hcl__event_natives_release(dev, first, last);
        return HCL_SUCCESS;
    }
    hcl__event *ev = calloc(1, sizeof *ev);
    if (!ev) {
        /* The call reports failure, so its caller may free the buffers at once: the commands must be done. */
        if (last) dev->drv->event_wait(last);
        hcl__event_natives_release(dev, first, last);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory for the event", fn);
    }
    ev->dev = dev;
    ev->native = last;
    ev->first = first;
    atomic_init(&ev->refs, 1);
    hcl__device_ref(dev);
    if (traced) hcl__trace_command(q, ev, first, last); /* takes its own reference */
    void *h = hcl__handle_add(HCL__H_EVENT, ev);
    if (!h) {
        if (last) dev->drv->event_wait(last);
        hcl__event_unref(ev);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory for the event", fn);
    }
    *out_event = h;
    return HCL_SUCCESS;
}

hcl_status hcl__wrap_event(const char *fn, hcl__queue *q, void *native, hcl_event *out_event) {
    return hcl__wrap_event_span(fn, q, NULL, native, out_event);
}

HCL__TRACED_BODY hcl_status wait_body(hcl_event event) {
    hcl__event *ev;
    hcl_status st = hcl__lookup(event, HCL__H_EVENT, (void **)&ev, "hcl_event_wait", "event");
    return st == HCL_SUCCESS ? hcl__prefix_message(ev->dev->drv->event_wait(ev->native), "hcl_event_wait") : st;
}

HCL_API hcl_status hcl_event_wait(hcl_event event) {
    HCL__TRACED("hcl_event_wait", wait_body(event), NULL, NULL, NULL);
}

static void event_destroy(void *object) { hcl__event_unref(object); }

HCL_API hcl_status hcl_event_release(hcl_event event) {
    return hcl__release(event, HCL__H_EVENT, event_destroy, "hcl_event_release", "event");
}

HCL_API hcl_status hcl_event_elapsed(hcl_event start, hcl_event end, double *out_seconds) {
    static const char fn[] = "hcl_event_elapsed";
    hcl__event *a, *b;
    hcl_status st = hcl__lookup(start, HCL__H_EVENT, (void **)&a, fn, "start");
    if (st == HCL_SUCCESS) st = hcl__lookup_out(end, HCL__H_EVENT, (void **)&b, out_seconds, fn, "end", "out_seconds");
    if (st != HCL_SUCCESS) return st;
    if (a->dev != b->dev)
        return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH, "%s: start and end belong to different devices", fn);
    /* From the first command of start's group, so hcl_event_elapsed(e, e) times all of e's commands. */
    double s = 0;
    if ((st = a->dev->drv->event_elapsed(a->first ? a->first : a->native, b->native, &s)) != HCL_SUCCESS)
        return hcl__prefix_message(st, fn);
    *out_seconds = s;
    return HCL_SUCCESS;
}
