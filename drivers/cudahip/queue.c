/* Queues (non-blocking streams), events (a begin/end pair of timing events per command) and the command bracket
 * every enqueueing entry point goes through. Shared by the CUDA and HIP drivers (gpu.h). */
#include "gpu.h"

#include <stdlib.h>

/* ---------------------------------------------------------------------------------------------------------
 * Event pool: runtime events are recycled per device, so timing every command does not cost an event creation.
 * ------------------------------------------------------------------------------------------------------- */
/* n runtime events (1 or 2) into out: from the pool under one lock, the rest created. On failure none is kept. */
static hcl_status events_take(hcl__gpu_device *d, uint32_t n, hcl_gpu_event *out) {
    uint32_t got = 0;
    pthread_mutex_lock(&d->lock);
    while (got < n && d->pool_count > 0) out[got++] = d->pool[--d->pool_count];
    pthread_mutex_unlock(&d->lock);
    for (; got < n; got++) {
        /* default flags: timing enabled, as elapsed time needs */
        hcl_status st = HCL_GPU(EventCreate, (&out[got], HCL_GPU_EVENT_TIMING), "timing event on device %u", d->index);
        if (st != HCL_SUCCESS) {
            while (got) hcl__gpu.HCL_GPU_SYM_EventDestroy(out[--got]);
            return st;
        }
    }
    return HCL_SUCCESS;
}

/* Put n runtime events (NULLs skipped) in the pool under one lock; those it takes are set to NULL in e, and whether any
 * is left (for the caller to destroy) is returned. No context is needed for this. Recording one again later is fine
 * even if it is still pending now: nothing else refers to it once released. */
static int events_pool(hcl__gpu_device *d, uint32_t n, hcl_gpu_event *e) {
    int left = 0;
    pthread_mutex_lock(&d->lock);
    if (d->pool_count + n > d->pool_cap && d->pool_cap < HCL_GPU_EVENT_POOL) { /* room for more, doubling */
        uint32_t cap = d->pool_cap ? 2 * d->pool_cap : 64;
        if (cap > HCL_GPU_EVENT_POOL) cap = HCL_GPU_EVENT_POOL;
        hcl_gpu_event *grown = realloc(d->pool, cap * sizeof *grown);
        if (grown) d->pool = grown, d->pool_cap = cap; /* else the events it has no room for are destroyed */
    }
    for (uint32_t i = 0; i < n; i++)
        if (e[i] && d->pool_count < d->pool_cap) {
            d->pool[d->pool_count++] = e[i];
            e[i] = NULL;
        } else if (e[i]) {
            left = 1;
        }
    pthread_mutex_unlock(&d->lock);
    return left;
}

void hcl__gpu_event_pool_drain(hcl__gpu_device *d) {
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 0; i < d->pool_count; i++) hcl__gpu.HCL_GPU_SYM_EventDestroy(d->pool[i]);
    free(d->pool);
    d->pool = NULL;
    d->pool_count = d->pool_cap = 0;
    pthread_mutex_unlock(&d->lock);
}

/* Free an event: its runtime events go back to the pool, which needs no context, so a release costs no context switch;
 * those the pool has no room for are destroyed in the device's context (entered here when `enter`; else the caller
 * has it current). */
static void event_free(hcl__gpu_event *ev, int enter) {
    if (!ev) return;
    hcl__gpu_device *d = ev->dev;
    hcl_gpu_event e[2] = {ev->begin, ev->end != ev->begin ? ev->end : NULL};
    free(ev);
    if (!events_pool(d, 2, e)) return;
    hcl__gpu_scope scope;
    const int entered = enter && hcl__gpu_enter(d, &scope) == HCL_SUCCESS;
    for (int i = 0; i < 2; i++)
        if (e[i]) hcl__gpu.HCL_GPU_SYM_EventDestroy(e[i]);
    if (entered) hcl__gpu_leave(&scope);
}

/* Make an event of one or two runtime events (one for a marker). */
static hcl_status event_new(hcl__gpu_device *d, int pair, hcl__gpu_event **out) {
    hcl__gpu_event *ev = calloc(1, sizeof *ev);
    if (!ev) return hcl__kit_oom("event");
    ev->dev = d;
    hcl_gpu_event e[2] = {NULL, NULL};
    hcl_status st = events_take(d, pair ? 2 : 1, e);
    if (st != HCL_SUCCESS) {
        free(ev);
        return st;
    }
    ev->begin = e[0];
    ev->end = pair ? e[1] : e[0];
    *out = ev;
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * Queues
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__gpu_queue_create(void *device, void **out_queue) {
    hcl__gpu_device *d = device;
    hcl__gpu_queue *q = calloc(1, sizeof *q);
    if (!q) return hcl__kit_oom("queue");
    q->dev = d;
    hcl_status st = HCL_GPU_ON(d, HCL_GPU(StreamCreate, (&q->stream, HCL_GPU_STREAM_NON_BLOCKING),
                                          "non-blocking stream on device %u '%s'", d->index, d->name));
    return hcl__kit_give(st, q, out_queue);
}

void hcl__gpu_queue_destroy(void *queue) {
    hcl__gpu_queue *q = queue;
    if (!q) return;
    hcl__gpu_scope scope;
    if (hcl__gpu_enter(q->dev, &scope) == HCL_SUCCESS) {
        /* the core finished the queue first; synchronise anyway, so nothing still runs on the stream destroyed */
        hcl__gpu.HCL_GPU_SYM_StreamSynchronize(q->stream);
        hcl__gpu.HCL_GPU_SYM_StreamDestroy(q->stream);
        hcl__gpu_leave(&scope);
    }
    free(q);
}

hcl_status hcl__gpu_queue_finish(void *queue) {
    hcl__gpu_queue *q = queue;
    return HCL_GPU_ON(q->dev, HCL_GPU(StreamSynchronize, (q->stream), "finishing a queue on device %u '%s'",
                                      q->dev->index, q->dev->name));
}

/* ---------------------------------------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__gpu_cmd_begin(hcl__gpu_cmd *cmd, hcl__gpu_queue *q, uint32_t num_wait, void *const *wait,
                              void **out_event) {
    cmd->q = q;
    cmd->ev = NULL;
    hcl_status st = hcl__gpu_enter(q->dev, &cmd->scope);
    if (st != HCL_SUCCESS) return st;
    for (uint32_t i = 0; i < num_wait; i++) {
        const hcl__gpu_event *w = wait[i];
        if ((st = HCL_GPU(StreamWaitEvent, (q->stream, w->end, 0), "wait list entry %u", i)) != HCL_SUCCESS) goto fail;
    }
    if (out_event) {
        if ((st = event_new(q->dev, 1, &cmd->ev)) != HCL_SUCCESS) goto fail;
        if ((st = HCL_GPU(EventRecord, (cmd->ev->begin, q->stream), "start of a command")) != HCL_SUCCESS) goto fail;
    }
    return HCL_SUCCESS;
fail:
    event_free(cmd->ev, 0);
    cmd->ev = NULL;
    hcl__gpu_leave(&cmd->scope);
    return st;
}

hcl_status hcl__gpu_cmd_end(hcl__gpu_cmd *cmd, hcl_status st, int blocking, const char *what, void **out_event) {
    hcl__gpu_queue *q = cmd->q;
    if (st == HCL_SUCCESS && cmd->ev) st = HCL_GPU(EventRecord, (cmd->ev->end, q->stream), "end of %s", what);
    if (st == HCL_SUCCESS && blocking)
        st = HCL_GPU(StreamSynchronize, (q->stream), "waiting for %s on device %u '%s'", what, q->dev->index,
                     q->dev->name);
    if (st == HCL_SUCCESS && cmd->ev && out_event) {
        *out_event = cmd->ev;
    } else {
        /* a begin event already recorded is harmless: nothing waits for it and the pool may reuse it */
        event_free(cmd->ev, 0);
    }
    cmd->ev = NULL;
    hcl__gpu_leave(&cmd->scope);
    return st;
}

hcl_status hcl__gpu_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__gpu_queue *q = queue;
    hcl__gpu_cmd cmd;
    /* a marker is one instant: one hcl_gpu_event serves as both begin and end */
    hcl_status st = hcl__gpu_cmd_begin(&cmd, q, num_wait, wait, NULL);
    if (st != HCL_SUCCESS) return st;
    if (out_event) {
        st = event_new(q->dev, 0, &cmd.ev);
        if (st == HCL_SUCCESS)
            st = HCL_GPU(EventRecord, (cmd.ev->begin, q->stream), "marker on device %u", q->dev->index);
    }
    /* cmd_end records nothing more for a marker: begin == end was recorded above */
    hcl__gpu_event *ev = cmd.ev;
    cmd.ev = NULL;
    st = hcl__gpu_cmd_end(&cmd, st, 0, "marker", NULL);
    if (st != HCL_SUCCESS) {
        event_free(ev, 1); /* cmd_end has left the context */
        return st;
    }
    if (out_event) *out_event = ev;
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__gpu_event_wait(void *event) {
    hcl__gpu_event *ev = event;
    return HCL_GPU_ON(ev->dev,
                      HCL_GPU(EventSynchronize, (ev->end), "waiting for an event on device %u", ev->dev->index));
}

hcl_status hcl__gpu_event_query(void *event, int *out_done) {
    hcl__gpu_event *ev = event;
    hcl_gpu_result r = HCL_GPU_SUCCESS;
    hcl_status st = HCL_GPU_ON(ev->dev, (r = hcl__gpu.HCL_GPU_SYM_EventQuery(ev->end), HCL_SUCCESS));
    if (st != HCL_SUCCESS || r == HCL_GPU_ERROR_NOT_READY) return st;
    *out_done = 1;
    return r == HCL_GPU_SUCCESS ? HCL_SUCCESS : hcl__gpu_fail(r, "EventQuery", "device %u", ev->dev->index);
}

/* The tracer gives every command's events back here once it has read them (event_free: no context switch unless the
 * pool is full). */
void hcl__gpu_event_release(void *event) { event_free(event, 1); }

hcl_status hcl__gpu_event_elapsed(void *start, void *end, double *out_seconds) {
    hcl__gpu_event *s = start, *e = end;
#if HCL_GPU_CUDA
    /* The tracer reads two of these per command after a finish: first without making the context current (a push and
     * a pop per read otherwise, when the caller has no context current); when that does not succeed (not complete
     * yet, a driver that wants the events' context current, any error) the way below, in the context, decides. HIP
     * keeps to the way below: on NVIDIA's platform its runtime would make a context of the current device current. */
    {
        float ms = 0.0f;
        if (hcl__gpu.HCL_GPU_SYM_EventElapsedTime(&ms, s->begin, e->end) == HCL_GPU_SUCCESS) {
            *out_seconds = (double)ms / 1e3;
            return HCL_SUCCESS;
        }
    }
#endif
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(s->dev, &scope);
    if (st != HCL_SUCCESS) return st;
    float ms = 0.0f;
    /* one call when both have completed (the tracer reads its commands after a finish); else (not ready, or any
     * error: the calls below report it) wait for both, then ask again */
    if (hcl__gpu.HCL_GPU_SYM_EventElapsedTime(&ms, s->begin, e->end) != HCL_GPU_SUCCESS &&
        ((st = HCL_GPU(EventSynchronize, (s->begin), "start event")) != HCL_SUCCESS ||
         (st = HCL_GPU(EventSynchronize, (e->end), "end event")) != HCL_SUCCESS ||
         (st = HCL_GPU(EventElapsedTime, (&ms, s->begin, e->end), "start and end events on device %u",
                       s->dev->index)) != HCL_SUCCESS)) {
        hcl__gpu_leave(&scope);
        return st;
    }
    *out_seconds = (double)ms / 1e3;
    hcl__gpu_leave(&scope);
    return st;
}
