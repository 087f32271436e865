/* Queues (immediate command lists kept in order by barriers: command.c), their markers, and the entry points of events
 * (command.c makes them). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Queues
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_queue_create(void *device, void **out_queue) {
    hcl__ze_device *dev = device;
    hcl_status status = HCL_SUCCESS;
    hcl__ze_queue *q = calloc(1, sizeof *q);
    if (!q) return hcl__kit_oom("queue");
    q->dev = dev;
    ze_command_queue_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    desc.ordinal = dev->entry->compute_ordinal;
    desc.index = 0;
    desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    HCL_ZE_CHECK(zeCommandListCreateImmediate, (dev->context, dev->device, &desc, &q->list),
                 "asynchronous immediate command list on group %u of '%s'", desc.ordinal, dev->entry->info.name);
    hcl__ze_live(dev, 1);
    status = hcl__ze_event_take(dev, HCL_ZE_EVENTS_PLAIN, &q->sync_event);
    if (status != HCL_SUCCESS) goto cleanup;
    *out_queue = q;
    return HCL_SUCCESS;
cleanup:
    if (q->list && hcl__ze.zeCommandListDestroy(q->list) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
    free(q);
    return status;
}

void hcl__ze_queue_destroy(void *queue) {
    hcl__ze_queue *q = queue;
    if (!q) return;
    hcl__ze_device *dev = q->dev;
    /* the core finished the queue first; finish anyway, so nothing still uses what is freed below */
    if (hcl__ze_queue_finish(q) != HCL_SUCCESS) HCL_KIT_WARN("releasing a queue: %s", hcl__kit_last_failure());
    if (q->marker_mem) hcl__ze_device_free(dev, q->marker_mem);
    if (q->staging) {
        if (hcl__ze.zeMemFree(dev->context, q->staging) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
    }
    hcl__ze_event_give(dev, HCL_ZE_EVENTS_PLAIN, q->sync_event, 0);
    ze_result_t r = hcl__ze.zeCommandListDestroy(q->list);
    if (r == ZE_RESULT_SUCCESS)
        hcl__ze_live(dev, -1);
    else
        HCL_KIT_WARN("zeCommandListDestroy: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
    free(q);
}

/* A marker is a 4-byte fill of a scratch allocation of the queue: an ordinary command with kernel timestamps,
 * which in an in-order queue completes after everything before it (as the OpenCL driver's markers). */
hcl_status hcl__ze_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ze_queue *q = queue;
    hcl_status status = HCL_SUCCESS;
    if (!q->marker_mem) {
        status = hcl__ze_device_alloc(q->dev, 4, "4 bytes of device memory for markers", &q->marker_mem);
        if (status != HCL_SUCCESS) return status;
    }
    const uint32_t zero = 0;
    if (q->dev->entry->max_fill_pattern < sizeof zero)
        return hcl__ze_fill_kernel(q, q->marker_mem, 0, sizeof zero, &zero, sizeof zero, num_wait, wait, 0, 1,
                                   out_event);
    hcl__ze_cmd cmd;
    status = hcl__ze_cmd_begin(&cmd, q, 1, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    ze_event_handle_t signal = NULL;
    status = hcl__ze_cmd_part(&cmd, &signal);
    if (status != HCL_SUCCESS) goto cleanup;
    HCL_ZE_CHECK(zeCommandListAppendMemoryFill,
                 (q->list, q->marker_mem, &zero, sizeof zero, sizeof zero, signal, 0, NULL), "marker after %u events",
                 num_wait);
    hcl__ze_cmd_appended(&cmd);
    if (cmd.ev) cmd.ev->marker = 1;
cleanup:
    return hcl__ze_cmd_end(&cmd, status, 0, "marker", out_event);
}

/* ---------------------------------------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__ze_event_wait(void *event) {
    hcl__ze_event *e = event;
    hcl_status status = HCL_SUCCESS;
    HCL_ZE_CHECK(zeEventHostSynchronize, (e->last, UINT64_MAX), "waiting for an event");
cleanup:
    return status;
}

hcl_status hcl__ze_event_query(void *event, int *out_done) {
    hcl__ze_event *e = event;
    const ze_result_t r = hcl__ze.zeEventQueryStatus(e->last);
    if (r == ZE_RESULT_NOT_READY) return HCL_SUCCESS;
    *out_done = 1;
    return r == ZE_RESULT_SUCCESS ? HCL_SUCCESS
                                  : hcl__ze_fail(r, "zeEventQueryStatus", "asking whether an event is done");
}

void hcl__ze_event_release(void *event) { hcl__ze_event_free(event); }

/* Ticks from a to b, signed, on a counter of `mask` valid bits (it wraps). */
static double tick_delta(uint64_t a, uint64_t b, uint64_t mask) {
    if (mask == UINT64_MAX) return (double)(int64_t)(b - a);
    uint64_t d = (b - a) & mask;
    if (d > (mask >> 1)) return -(double)((mask - d) + 1);
    return (double)d;
}

static hcl_status timestamp(ze_event_handle_t ev, const char *which, ze_kernel_timestamp_result_t *out) {
    hcl_status status = HCL_SUCCESS;
    memset(out, 0, sizeof *out);
    HCL_ZE_CHECK(zeEventQueryKernelTimestamp, (ev, out), "%s", which);
    /* a runtime that leaves the result untouched (the loader's null driver does) gives no device time */
    if (out->global.kernelStart == 0 && out->global.kernelEnd == 0)
        status = HCL_KIT_FAIL(HCL_ERROR_VENDOR,
                              "zeEventQueryKernelTimestamp: the runtime gave no timestamp for the %s "
                              "(start and end 0): no device time for these events",
                              which);
cleanup:
    return status;
}

hcl_status hcl__ze_event_elapsed(void *start, void *end, double *out_seconds) {
    const hcl__ze_event *s = start, *e = end;
    const hcl__ze_device_entry *entry = s->dev->entry;
    /* an event's last part completes after its first (the queue is in order) */
    hcl_status status = hcl__ze_event_wait(start);
    if (status == HCL_SUCCESS) status = hcl__ze_event_wait(end);
    if (status != HCL_SUCCESS) return status;
    ze_kernel_timestamp_result_t t0, t1;
    if ((status = timestamp(s->first, "start event", &t0)) != HCL_SUCCESS ||
        (status = timestamp(e->last, "end event", &t1)) != HCL_SUCCESS)
        return status;
    if (entry->ns_per_tick <= 0.0)
        return HCL_KIT_FAIL(HCL_ERROR_VENDOR,
                            "levelzero: device '%s' reports a timer resolution of 0 ns: its kernel "
                            "timestamps cannot be converted to time",
                            entry->info.name);
    /* A marker is one instant (the moment everything before it completed): its end stands for its start. */
    uint64_t from = s->marker ? t0.global.kernelEnd : t0.global.kernelStart;
    *out_seconds = tick_delta(from, t1.global.kernelEnd, entry->timestamp_mask) * entry->ns_per_tick * 1e-9;
    return HCL_SUCCESS;
}
