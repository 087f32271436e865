/* Events (pooled Level Zero events with kernel timestamps, a first/last pair per command) and the command bracket every
 * enqueueing entry point goes through (memory.c, module.c, helpers.c, queue.c), with the queue's finish that a blocking
 * command without an event ends with. Calls only the runtime (runtime.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Event pools: events are made HCL_ZE_EVENTS_PER_POOL at a time and recycled (zeEventHostReset) when released,
 * so timing every command costs no event creation.
 * ------------------------------------------------------------------------------------------------------- */
void hcl__ze_events_init(hcl__ze_device *dev) {
    pthread_mutex_init(&dev->event_lock, NULL);
    memset(dev->events, 0, sizeof dev->events);
}

void hcl__ze_events_release(hcl__ze_device *dev) {
    for (int kind = 0; kind < HCL_ZE_EVENT_KINDS; kind++) {
        hcl__ze_event_pools *ps = &dev->events[kind];
        for (uint32_t i = 0; i < ps->free_count; i++)
            if (hcl__ze.zeEventDestroy(ps->free_events[i]) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
        for (uint32_t i = 0; i < ps->pool_count; i++) {
            ze_result_t r = hcl__ze.zeEventPoolDestroy(ps->pools[i]);
            if (r == ZE_RESULT_SUCCESS)
                hcl__ze_live(dev, -1);
            else
                HCL_KIT_WARN("zeEventPoolDestroy: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
        }
        free(ps->free_events);
        free(ps->pools);
    }
    memset(dev->events, 0, sizeof dev->events);
    pthread_mutex_destroy(&dev->event_lock);
}

hcl_status hcl__ze_event_take(hcl__ze_device *dev, int kind, ze_event_handle_t *out) {
    hcl_status status = HCL_SUCCESS;
    hcl__ze_event_pools *ps = &dev->events[kind];
    pthread_mutex_lock(&dev->event_lock);
    if (ps->free_count > 0) {
        *out = ps->free_events[--ps->free_count];
        goto cleanup;
    }
    if (ps->pool_count == 0 || ps->pool_used == HCL_ZE_EVENTS_PER_POOL) {
        ze_event_pool_handle_t *grown = realloc(ps->pools, (ps->pool_count + 1) * sizeof *grown);
        if (!grown) {
            status = hcl__kit_oom("event pool list");
            goto cleanup;
        }
        ps->pools = grown;
        ze_event_pool_desc_t desc;
        memset(&desc, 0, sizeof desc);
        desc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
        desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
        if (kind == HCL_ZE_EVENTS_TIMED) desc.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
        desc.count = HCL_ZE_EVENTS_PER_POOL;
        ze_device_handle_t device = dev->device;
        HCL_ZE_CHECK(zeEventPoolCreate, (dev->context, &desc, 1, &device, &ps->pools[ps->pool_count]),
                     "%u host-visible events%s", HCL_ZE_EVENTS_PER_POOL,
                     kind == HCL_ZE_EVENTS_TIMED ? " with kernel timestamps" : "");
        hcl__ze_live(dev, 1);
        ps->pool_count++;
        ps->pool_used = 0;
    }
    ze_event_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
    desc.index = ps->pool_used;
    desc.signal = ZE_EVENT_SCOPE_FLAG_HOST; /* the host reads its state and timestamps */
    desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    HCL_ZE_CHECK(zeEventCreate, (ps->pools[ps->pool_count - 1], &desc, out), "event %u of pool %u", desc.index,
                 ps->pool_count - 1);
    hcl__ze_live(dev, 1);
    ps->pool_used++;
cleanup:
    pthread_mutex_unlock(&dev->event_lock);
    return status;
}

/* Back to the free list. `submitted`: a command that signals it was appended, so it is waited for first (an
 * event must not be reset while a command may still signal it). */
void hcl__ze_event_give(hcl__ze_device *dev, int kind, ze_event_handle_t ev, int submitted) {
    if (!ev) return;
    hcl__ze_event_pools *ps = &dev->events[kind];
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (submitted) r = hcl__ze.zeEventHostSynchronize(ev, UINT64_MAX);
    if (r == ZE_RESULT_SUCCESS) r = hcl__ze.zeEventHostReset(ev);
    if (r == ZE_RESULT_SUCCESS) {
        pthread_mutex_lock(&dev->event_lock);
        if (ps->free_count == ps->free_capacity) {
            uint32_t cap = ps->free_capacity ? 2 * ps->free_capacity : HCL_ZE_EVENTS_PER_POOL;
            ze_event_handle_t *grown = realloc(ps->free_events, cap * sizeof *grown);
            if (grown) {
                ps->free_events = grown;
                ps->free_capacity = cap;
            }
        }
        if (ps->free_count < ps->free_capacity) {
            ps->free_events[ps->free_count++] = ev;
            ev = NULL;
        }
        pthread_mutex_unlock(&dev->event_lock);
        if (!ev) return;
    } else {
        HCL_KIT_WARN("recycling an event: %s (0x%08x); destroying it", hcl__ze_result_name(r), (unsigned)r);
    }
    if (hcl__ze.zeEventDestroy(ev) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
}

/* Drop one reference to a waiter (its barrier was appended: it will be signalled); the last one waits for it and
 * recycles its event. */
static void waiter_release(hcl__ze_device *dev, hcl__ze_waiter *w) {
    pthread_mutex_lock(&dev->event_lock);
    int last = --w->refs == 0;
    pthread_mutex_unlock(&dev->event_lock);
    if (!last) return;
    hcl__ze_event_give(dev, HCL_ZE_EVENTS_PLAIN, w->ev, 1);
    free(w);
}

void hcl__ze_event_free(hcl__ze_event *ev) {
    if (!ev) return;
    /* every barrier that waits for this event must have passed before it may be reset */
    for (uint32_t i = 0; i < ev->waiter_count; i++) waiter_release(ev->dev, ev->waiters[i]);
    free(ev->waiters);
    if (ev->last && ev->last != ev->first)
        hcl__ze_event_give(ev->dev, HCL_ZE_EVENTS_TIMED, ev->last, ev->last_submitted);
    hcl__ze_event_give(ev->dev, HCL_ZE_EVENTS_TIMED, ev->first, ev->first_submitted);
    free(ev);
}

/* Register a waiter with the events of a wait list; on a failure to grow a list, wait for the barrier at once
 * (correct, only slower). */
static void waiter_attach(hcl__ze_device *dev, hcl__ze_waiter *w, uint32_t num_wait, void *const *wait) {
    int sync_now = 0;
    pthread_mutex_lock(&dev->event_lock);
    w->refs = 1; /* held here until every event has it */
    for (uint32_t i = 0; i < num_wait; i++) {
        hcl__ze_event *e = wait[i];
        if (e->waiter_count == e->waiter_capacity) {
            uint32_t cap = e->waiter_capacity ? 2 * e->waiter_capacity : 4;
            hcl__ze_waiter **grown = realloc(e->waiters, cap * sizeof *grown);
            if (!grown) {
                sync_now = 1;
                continue;
            }
            e->waiters = grown;
            e->waiter_capacity = cap;
        }
        e->waiters[e->waiter_count++] = w;
        w->refs++;
    }
    pthread_mutex_unlock(&dev->event_lock);
    if (sync_now) hcl__ze.zeEventHostSynchronize(w->ev, UINT64_MAX);
    waiter_release(dev, w);
}

/* ---------------------------------------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_cmd_begin(hcl__ze_cmd *cmd, hcl__ze_queue *q, size_t parts, uint32_t num_wait, void *const *wait,
                             int want_event) {
    memset(cmd, 0, sizeof *cmd);
    cmd->q = q;
    cmd->parts = parts;
    cmd->num_wait = num_wait;
    cmd->wait = wait;
    if (!want_event) return HCL_SUCCESS;
    hcl__ze_event *ev = calloc(1, sizeof *ev);
    if (!ev) return hcl__kit_oom("event");
    ev->dev = q->dev;
    hcl_status status = hcl__ze_event_take(q->dev, HCL_ZE_EVENTS_TIMED, &ev->first);
    if (status == HCL_SUCCESS) {
        if (parts > 1)
            status = hcl__ze_event_take(q->dev, HCL_ZE_EVENTS_TIMED, &ev->last);
        else
            ev->last = ev->first;
    }
    if (status != HCL_SUCCESS) {
        hcl__ze_event_free(ev);
        return status;
    }
    cmd->ev = ev;
    return HCL_SUCCESS;
}

/* Level Zero runs the commands of a command list in order, but does not make one wait for the one before
 * (kernels may overlap): a barrier before each part does, and carries the wait list. The first command after a
 * finish needs none. */
hcl_status hcl__ze_cmd_part(hcl__ze_cmd *cmd, ze_event_handle_t *out_signal) {
    hcl_status status = HCL_SUCCESS;
    hcl__ze_queue *q = cmd->q;
    ze_event_handle_t stack[8], *list = NULL, *heap = NULL;
    uint32_t nw = cmd->next == 0 ? cmd->num_wait : 0;
    *out_signal = NULL;
    if (cmd->next >= cmd->parts)
        return HCL_KIT_FAIL(HCL_ERROR_INTERNAL, "levelzero: part %zu of a command of %zu parts", cmd->next, cmd->parts);
    if (nw > 0) {
        list = stack;
        if (nw > 8) {
            list = heap = malloc(nw * sizeof *heap);
            if (!heap) return hcl__kit_oom("wait list");
        }
        for (uint32_t i = 0; i < nw; i++) list[i] = ((const hcl__ze_event *)cmd->wait[i])->last;
    }
    if (nw > 0) {
        hcl__ze_waiter *w = calloc(1, sizeof *w);
        if (!w) {
            status = hcl__kit_oom("waiter");
            goto cleanup;
        }
        status = hcl__ze_event_take(q->dev, HCL_ZE_EVENTS_PLAIN, &w->ev);
        if (status != HCL_SUCCESS) {
            free(w);
            goto cleanup;
        }
        ze_result_t r = hcl__ze.zeCommandListAppendBarrier(q->list, w->ev, nw, list);
        if (r != ZE_RESULT_SUCCESS) {
            hcl__ze_event_give(q->dev, HCL_ZE_EVENTS_PLAIN, w->ev, 0);
            free(w);
            status = hcl__ze_fail(r, "zeCommandListAppendBarrier", "barrier waiting for %u events", nw);
            goto cleanup;
        }
        waiter_attach(q->dev, w, nw, cmd->wait);
    } else if (cmd->next > 0 || q->pending) {
        HCL_ZE_CHECK(zeCommandListAppendBarrier, (q->list, NULL, 0, NULL), "barrier before part %zu of a command",
                     cmd->next);
    }
    if (cmd->ev) {
        if (cmd->next == 0)
            *out_signal = cmd->ev->first;
        else if (cmd->next + 1 == cmd->parts)
            *out_signal = cmd->ev->last;
    }
cleanup:
    free(heap);
    return status;
}

void hcl__ze_cmd_appended(hcl__ze_cmd *cmd) {
    if (cmd->ev) {
        if (cmd->next == 0) cmd->ev->first_submitted = 1;
        if (cmd->next + 1 == cmd->parts) cmd->ev->last_submitted = 1;
    }
    cmd->next++;
    cmd->q->pending = 1;
}

hcl_status hcl__ze_cmd_end(hcl__ze_cmd *cmd, hcl_status status, int blocking, const char *what, void **out_event) {
    hcl__ze_queue *q = cmd->q;
    if (status == HCL_SUCCESS && cmd->next != cmd->parts)
        status =
            HCL_KIT_FAIL(HCL_ERROR_INTERNAL, "levelzero: %s: %zu of %zu parts appended", what, cmd->next, cmd->parts);
    if (status == HCL_SUCCESS && blocking) {
        if (cmd->ev) {
            ze_result_t r = hcl__ze.zeEventHostSynchronize(cmd->ev->last, UINT64_MAX);
            if (r != ZE_RESULT_SUCCESS) status = hcl__ze_fail(r, "zeEventHostSynchronize", "waiting for %s", what);
        } else {
            status = hcl__ze_queue_finish(q);
        }
    }
    if (status == HCL_SUCCESS && cmd->ev && out_event) {
        *out_event = cmd->ev;
    } else {
        hcl__ze_event_free(cmd->ev);
    }
    cmd->ev = NULL;
    return status;
}

/* A barrier after everything, signalling the queue's own event, then wait for it on the host. */
hcl_status hcl__ze_queue_finish(void *queue) {
    hcl__ze_queue *q = queue;
    hcl_status status = HCL_SUCCESS;
    if (!q->pending) return HCL_SUCCESS;
    HCL_ZE_CHECK(zeCommandListAppendBarrier, (q->list, q->sync_event, 0, NULL), "finishing a queue on '%s'",
                 q->dev->entry->info.name);
    HCL_ZE_CHECK(zeEventHostSynchronize, (q->sync_event, UINT64_MAX), "finishing a queue on '%s'",
                 q->dev->entry->info.name);
    HCL_ZE_CHECK(zeEventHostReset, (q->sync_event), "the queue's finish event");
    q->pending = 0;
cleanup:
    return status;
}
