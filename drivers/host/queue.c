/* Host queues and events.
 *
 * The host queue is synchronous: each command runs to completion inside the call that submits it (see
 * host.h). So finishing a queue and waiting for an event have nothing left to wait for, and a wait list is
 * always satisfied already. An event holds the CLOCK_MONOTONIC times taken right before and right after its
 * command ran.
 */
#include "host.h"

#include <stdlib.h>

hcl_status hcl__host_event_begin(const char *what, void **out_event, hcl_host_event **cmd) {
    *cmd = NULL;
    if (out_event == NULL) return HCL_SUCCESS;
    hcl_host_event *event = malloc(sizeof *event);
    if (event == NULL) return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory for the event", what);
    event->start_ns = hcl__host_now_ns();
    event->end_ns = event->start_ns;
    *cmd = event;
    return HCL_SUCCESS;
}

void hcl__host_event_end(hcl_host_event *cmd, void **out_event) {
    if (cmd == NULL) return;
    cmd->end_ns = hcl__host_now_ns();
    *out_event = cmd;
}

hcl_status hcl__host_queue_create(void *device, void **out_queue) {
    hcl_host_queue *queue = malloc(sizeof *queue);
    if (queue == NULL) return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host queue_create: out of host memory");
    queue->device = device;
    *out_queue = queue;
    return HCL_SUCCESS;
}

void hcl__host_queue_destroy(void *queue) { free(queue); }

hcl_status hcl__host_queue_finish(void *queue) {
    (void)queue;
    return HCL_SUCCESS;
}

hcl_status hcl__host_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue;
    (void)num_wait;
    (void)wait;
    if (out_event == NULL) return HCL_SUCCESS;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host queue_marker", out_event, &event);
    if (status != HCL_SUCCESS) return status;
    event->end_ns = event->start_ns; /* a marker is one instant */
    *out_event = event;
    return HCL_SUCCESS;
}

hcl_status hcl__host_event_wait(void *event) {
    (void)event;
    return HCL_SUCCESS;
}

/* Commands run before their call returns: every event is done. */
hcl_status hcl__host_event_query(void *event, int *out_done) {
    (void)event;
    *out_done = 1;
    return HCL_SUCCESS;
}

void hcl__host_event_release(void *event) { free(event); }

hcl_status hcl__host_event_elapsed(void *start, void *end, double *out_seconds) {
    const hcl_host_event *s = start, *e = end;
    /* Signed: an `end` recorded before `start` gives a negative time rather than a huge one. */
    *out_seconds = ((double)e->end_ns - (double)s->start_ns) * 1e-9;
    return HCL_SUCCESS;
}
