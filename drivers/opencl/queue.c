/* Queues (in order, with profiling) and events (cl_events with device-side timestamps). */
#include "internal.h"

#include <stdlib.h>

hcl_status hcl__ocl_queue_create(void *device, void **out_queue) {
    hcl__ocl_device *dev = device;
    hcl_status status = HCL_SUCCESS;
    hcl__ocl_queue *q = calloc(1, sizeof *q);
    if (!q) return hcl__kit_oom("queue");
    q->device = dev;
    cl_int err = CL_SUCCESS;
    q->queue = hcl__cl.clCreateCommandQueue(dev->context, dev->id, CL_QUEUE_PROFILING_ENABLE, &err);
    HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateCommandQueue", "in-order queue with profiling on '%s'",
                  dev->entry->info.name);
    *out_queue = q;
    return HCL_SUCCESS;
cleanup:
    free(q);
    return status;
}

void hcl__ocl_queue_destroy(void *queue) {
    hcl__ocl_queue *q = queue;
    if (!q) return;
    if (q->queue) {
        hcl__cl.clFinish(q->queue);
        hcl__cl.clReleaseCommandQueue(q->queue);
    }
    if (q->marker_mem) hcl__cl.clReleaseMemObject(q->marker_mem);
    free(q);
}

hcl_status hcl__ocl_queue_finish(void *queue) {
    hcl__ocl_queue *q = queue;
    hcl_status status = HCL_SUCCESS;
    HCL_OCL_CHECK(hcl__cl.clFinish(q->queue), HCL_OCL_CALL, "clFinish", "queue on '%s'", q->device->entry->info.name);
cleanup:
    return status;
}

/* A command that failed on the device completes with a negative execution status: report that code. */
static hcl_status wait_event(cl_event ev) {
    hcl_status status = HCL_SUCCESS;
    cl_int err = hcl__cl.clWaitForEvents(1, &ev);
    cl_int exec = CL_COMPLETE;
    if ((err == CL_SUCCESS || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) &&
        hcl__cl.clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL) == CL_SUCCESS &&
        exec < 0)
        err = exec;
    HCL_OCL_CHECK(err, HCL_OCL_CALL, "clWaitForEvents", "waiting for a command that failed on the device");
cleanup:
    return status;
}

hcl_status hcl__ocl_complete(hcl__ocl_queue *q, cl_event ev) { return ev ? wait_event(ev) : hcl__ocl_queue_finish(q); }

hcl_status hcl__ocl_wait_list(uint32_t num_wait, void *const *wait, cl_event *stack, uint32_t stack_count,
                              cl_event **out_list, cl_event **out_heap) {
    *out_list = NULL;
    *out_heap = NULL;
    if (num_wait == 0) return HCL_SUCCESS;
    cl_event *list = stack;
    if (num_wait > stack_count) {
        list = malloc(num_wait * sizeof *list);
        if (!list) return hcl__kit_oom("wait list");
        *out_heap = list;
    }
    for (uint32_t i = 0; i < num_wait; i++) list[i] = ((const hcl__ocl_event *)wait[i])->last;
    *out_list = list;
    return HCL_SUCCESS;
}

hcl_status hcl__ocl_event_wrap(cl_event first, cl_event last, int marker, void **out_event) {
    hcl__ocl_event *e = malloc(sizeof *e);
    if (!e) {
        if (first) hcl__cl.clReleaseEvent(first);
        if (last && last != first) hcl__cl.clReleaseEvent(last);
        return hcl__kit_oom("event");
    }
    e->first = first;
    e->last = last;
    e->marker = marker;
    *out_event = e;
    return HCL_SUCCESS;
}

/* A marker is a 4-byte fill of a scratch buffer of the queue, not clEnqueueMarkerWithWaitList: NVIDIA's OpenCL
 * (580.159, H100) gives a marker that waited on events an end timestamp of 0, and a fill is an ordinary command
 * with real timestamps everywhere. In an in-order queue it still completes after everything before it. */
hcl_status hcl__ocl_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__ocl_queue *q = queue;
    hcl_status status = HCL_SUCCESS;
    cl_event stack[8], *list = NULL, *heap = NULL, ev = NULL;
    cl_mem mem = atomic_load(&q->marker_mem), made = NULL;
    if (!mem) { /* threads sharing the queue may race to make it: one buffer wins, the others are released */
        cl_int err = CL_SUCCESS;
        made = hcl__cl.clCreateBuffer(q->device->context, CL_MEM_READ_WRITE, 4, NULL, &err);
        HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateBuffer", "4-byte scratch buffer for markers");
        cl_mem expected = NULL;
        if (atomic_compare_exchange_strong(&q->marker_mem, &expected, made))
            mem = made; /* ours is the queue's now */
        else
            hcl__cl.clReleaseMemObject(made), mem = expected; /* another thread's won */
        made = NULL;
    }
    status = hcl__ocl_wait_list(num_wait, wait, stack, 8, &list, &heap);
    if (status != HCL_SUCCESS) return status;
    const cl_uint zero = 0;
    HCL_OCL_CHECK(hcl__cl.clEnqueueFillBuffer(q->queue, mem, &zero, sizeof zero, 0, sizeof zero, num_wait, list, &ev),
                  HCL_OCL_CALL, "clEnqueueFillBuffer", "marker after %u events", num_wait);
    status = hcl__ocl_event_wrap(ev, ev, 1, out_event);
cleanup:
    if (made) hcl__cl.clReleaseMemObject(made);
    free(heap);
    return status;
}

hcl_status hcl__ocl_event_wait(void *event) {
    const hcl__ocl_event *e = event;
    return wait_event(e->last);
}

hcl_status hcl__ocl_event_query(void *event, int *out_done) {
    const hcl__ocl_event *e = event;
    hcl_status status = HCL_SUCCESS;
    cl_int exec = CL_COMPLETE;
    cl_int err = hcl__cl.clGetEventInfo(e->last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    HCL_OCL_CHECK(err, HCL_OCL_CALL, "clGetEventInfo", "CL_EVENT_COMMAND_EXECUTION_STATUS");
    if (exec < 0) return wait_event(e->last); /* failed: the wait reports how */
    *out_done = exec == CL_COMPLETE;
cleanup:
    return status;
}

void hcl__ocl_event_release(void *event) {
    hcl__ocl_event *e = event;
    if (!e) return;
    if (e->first) hcl__cl.clReleaseEvent(e->first);
    if (e->last && e->last != e->first) hcl__cl.clReleaseEvent(e->last);
    free(e);
}

hcl_status hcl__ocl_event_elapsed(void *start, void *end, double *out_seconds) {
    const hcl__ocl_event *s = start, *e = end;
    hcl_status status = wait_event(s->last);
    if (status != HCL_SUCCESS) return status;
    status = wait_event(e->last);
    if (status != HCL_SUCCESS) return status;
    /* A marker is one instant (the moment everything before it completed): its end stands for its start. */
    cl_ulong t0 = 0, t1 = 0;
    cl_profiling_info from = s->marker ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START;
    HCL_OCL_CHECK(hcl__cl.clGetEventProfilingInfo(s->first, from, sizeof t0, &t0, NULL), HCL_OCL_CALL,
                  "clGetEventProfilingInfo", "%s of the start event",
                  s->marker ? "CL_PROFILING_COMMAND_END" : "CL_PROFILING_COMMAND_START");
    HCL_OCL_CHECK(hcl__cl.clGetEventProfilingInfo(e->last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL),
                  HCL_OCL_CALL, "clGetEventProfilingInfo", "CL_PROFILING_COMMAND_END of the end event");
    if (t0 == 0 || t1 == 0) {
        status = HCL_KIT_FAIL(HCL_ERROR_VENDOR,
                              "clGetEventProfilingInfo: the runtime gave a timestamp of 0 (start %llu, "
                              "end %llu ns): no device time for these events",
                              (unsigned long long)t0, (unsigned long long)t1);
        goto cleanup;
    }
    *out_seconds = (double)(int64_t)(t1 - t0) * 1e-9;
cleanup:
    return status;
}
