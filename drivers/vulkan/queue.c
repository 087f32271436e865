/* Queues, commands and events of the Vulkan driver. An HCL queue is a command pool and a timeline semaphore over the
 * device's one VkQueue: each command is a command buffer (or several, for transfers larger than the staging) that
 * starts with a full memory barrier, so commands run in order (a barrier's first scope is every command submitted
 * before it on the VkQueue), and signals the queue's timeline with the next value. An event is that value plus two
 * timestamps. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define TAKEN UINT64_MAX /* a command buffer being recorded */

hcl_status hcl__vk_wait_value(hcl__vk_device *dev, VkSemaphore timeline, uint64_t value, const char *what) {
    hcl_status status = HCL_SUCCESS;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1,
                              .pSemaphores = &timeline,
                              .pValues = &value};
    HCL_VK_CHECK(vkWaitSemaphores, (dev->device, &wi, UINT64_MAX), "%s (timeline value %llu)", what,
                 (unsigned long long)value);
cleanup:
    return status;
}

/* A command buffer to record into: a completed one reset, else a new one (queue locked). */
static hcl_status take_cb(hcl__vk_queue *q, uint32_t *out_index) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_device *dev = q->dev;
    uint64_t done = 0;
    HCL_VK_CHECK(vkGetSemaphoreCounterValue, (dev->device, q->timeline, &done), "the queue's timeline");
    for (uint32_t i = 0; i < q->flight_count; i++)
        if (q->flights[i].value != TAKEN && q->flights[i].value <= done) {
            HCL_VK_CHECK(vkResetCommandBuffer, (q->flights[i].cb, 0), "a completed command buffer");
            q->flights[i].value = TAKEN;
            *out_index = i;
            return HCL_SUCCESS;
        }
    if (q->flight_count == q->flight_capacity) {
        uint32_t cap = q->flight_capacity ? q->flight_capacity * 2 : 8;
        hcl__vk_inflight *f = realloc(q->flights, cap * sizeof *f);
        if (!f) return hcl__kit_oom("command buffer list");
        q->flights = f;
        q->flight_capacity = cap;
    }
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = q->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb = VK_NULL_HANDLE;
    HCL_VK_CHECK(vkAllocateCommandBuffers, (dev->device, &ai, &cb), "a command buffer");
    q->flights[q->flight_count] = (hcl__vk_inflight){cb, TAKEN};
    *out_index = q->flight_count++;
cleanup:
    return status;
}

static uint32_t g_no_index = UINT32_MAX;

/* Begin recording a part: a command buffer, then the barrier that orders it after everything before. */
static hcl_status begin_part(hcl__vk_cmd *cmd) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_queue *q = cmd->q;
    uint32_t index = g_no_index;
    status = take_cb(q, &index);
    if (status != HCL_SUCCESS) return status;
    cmd->cb = q->flights[index].cb;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    HCL_VK_CHECK(vkBeginCommandBuffer, (cmd->cb, &bi), "a command");
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    hcl__vk.vkCmdPipelineBarrier(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                                 &mb, 0, NULL, 0, NULL);
    if (cmd->first && cmd->ev && cmd->ev->queries) {
        hcl__vk.vkCmdResetQueryPool(cmd->cb, cmd->ev->queries, 0, 2);
        hcl__vk.vkCmdWriteTimestamp(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, cmd->ev->queries, 0);
    }
    return HCL_SUCCESS;
cleanup:
    q->flights[index].value = 0; /* back to the free ones */
    cmd->cb = VK_NULL_HANDLE;
    return status;
}

/* The flight entry of cmd->cb. */
static hcl__vk_inflight *flight_of(hcl__vk_cmd *cmd) {
    for (uint32_t i = 0; i < cmd->q->flight_count; i++)
        if (cmd->q->flights[i].cb == cmd->cb) return &cmd->q->flights[i];
    return NULL;
}

hcl_status hcl__vk_cmd_begin(hcl__vk_cmd *cmd, hcl__vk_queue *q, uint32_t num_wait, void *const *wait, int want_event) {
    hcl_status status = HCL_SUCCESS;
    memset(cmd, 0, sizeof *cmd);
    cmd->q = q;
    cmd->num_wait = num_wait;
    cmd->wait = wait;
    cmd->first = 1;
    if (want_event) {
        cmd->ev = calloc(1, sizeof *cmd->ev);
        if (!cmd->ev) return hcl__kit_oom("event");
        cmd->ev->q = q;
        cmd->ev->timeline = q->timeline;
        __atomic_add_fetch(&q->refs, 1, __ATOMIC_RELAXED);
        if (q->dev->entry->timestamp_bits) {
            VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                        .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                        .queryCount = 2};
            HCL_VK_CHECK(vkCreateQueryPool, (q->dev->device, &qi, NULL, &cmd->ev->queries), "an event's timestamps");
            hcl__vk_live(q->dev, 1);
        }
    }
    pthread_mutex_lock(&q->lock);
    status = begin_part(cmd);
    if (status != HCL_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        goto cleanup;
    }
    return HCL_SUCCESS;
cleanup:
    if (cmd->ev) {
        if (cmd->ev->queries) {
            hcl__vk.vkDestroyQueryPool(q->dev->device, cmd->ev->queries, NULL);
            hcl__vk_live(q->dev, -1);
        }
        free(cmd->ev);
        cmd->ev = NULL;
        __atomic_sub_fetch(&q->refs, 1, __ATOMIC_RELAXED); /* the event's; the queue's own stays */
    }
    return status;
}

hcl_status hcl__vk_cmd_submit(hcl__vk_cmd *cmd, int last, int wait_done) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_queue *q = cmd->q;
    hcl__vk_device *dev = q->dev;
    hcl__vk_inflight *flight = flight_of(cmd);
    VkSemaphore *sems = NULL;
    uint64_t *values = NULL;
    VkPipelineStageFlags *stages = NULL;
    if (last && cmd->ev && cmd->ev->queries && !cmd->marker)
        hcl__vk.vkCmdWriteTimestamp(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, cmd->ev->queries, 1);
    /* what the command wrote is visible to the host once its value is reached (reads through the staging) */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    hcl__vk.vkCmdPipelineBarrier(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                 NULL, 0, NULL);
    HCL_VK_CHECK(vkEndCommandBuffer, (cmd->cb), "a command");
    const uint32_t nwait = cmd->first ? cmd->num_wait : 0;
    if (nwait) {
        sems = calloc(nwait, sizeof *sems);
        values = calloc(nwait, sizeof *values);
        stages = calloc(nwait, sizeof *stages);
        if (!sems || !values || !stages) {
            status = hcl__kit_oom("wait list");
            goto cleanup;
        }
        for (uint32_t i = 0; i < nwait; i++) {
            const hcl__vk_event *w = cmd->wait[i];
            sems[i] = w->timeline;
            values[i] = w->value;
            stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
        }
    }
    const uint64_t value = q->submitted + 1;
    VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                        .waitSemaphoreValueCount = nwait,
                                        .pWaitSemaphoreValues = values,
                                        .signalSemaphoreValueCount = 1,
                                        .pSignalSemaphoreValues = &value};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = &ti,
                       .waitSemaphoreCount = nwait,
                       .pWaitSemaphores = sems,
                       .pWaitDstStageMask = stages,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cmd->cb,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &q->timeline};
    pthread_mutex_lock(&dev->submit_lock);
    VkResult r = HCL_KIT_FAULT(VkResult, hcl__vk.vkQueueSubmit(dev->queue, 1, &si, VK_NULL_HANDLE));
    pthread_mutex_unlock(&dev->submit_lock);
    if (r != VK_SUCCESS) {
        status = hcl__vk_fail(r, "vkQueueSubmit", "a command of %u wait(s)", nwait);
        goto cleanup;
    }
    q->submitted = value;
    if (flight) flight->value = value;
    flight = NULL;
    cmd->first = 0;
    if (cmd->ev) cmd->ev->value = value;
    if (wait_done) status = hcl__vk_wait_value(dev, q->timeline, value, "a command");
cleanup:
    if (flight) { /* never submitted: free to reuse */
        hcl__vk.vkResetCommandBuffer(flight->cb, 0);
        flight->value = 0;
    }
    cmd->cb = VK_NULL_HANDLE;
    free(sems);
    free(values);
    free(stages);
    return status;
}

hcl_status hcl__vk_cmd_next(hcl__vk_cmd *cmd) { return begin_part(cmd); }

static void queue_unref(hcl__vk_queue *q);

static void event_free(hcl__vk_event *ev) {
    if (!ev) return;
    hcl__vk_device *dev = ev->q->dev;
    if (ev->value) (void)hcl__vk_wait_value(dev, ev->timeline, ev->value, "an event released");
    if (ev->queries) {
        hcl__vk.vkDestroyQueryPool(dev->device, ev->queries, NULL);
        hcl__vk_live(dev, -1);
    }
    queue_unref(ev->q);
    free(ev);
}

hcl_status hcl__vk_cmd_finish(hcl__vk_cmd *cmd, hcl_status status, void **out_event) {
    if (cmd->cb) { /* begun but not submitted (a failure while recording) */
        hcl__vk_inflight *f = flight_of(cmd);
        if (f) {
            hcl__vk.vkEndCommandBuffer(cmd->cb);
            hcl__vk.vkResetCommandBuffer(cmd->cb, 0);
            f->value = 0;
        }
        cmd->cb = VK_NULL_HANDLE;
    }
    pthread_mutex_unlock(&cmd->q->lock);
    if (status == HCL_SUCCESS && cmd->ev && out_event)
        *out_event = cmd->ev;
    else
        event_free(cmd->ev);
    cmd->ev = NULL;
    return status;
}

/* ---- the entry points ---- */
hcl_status hcl__vk_queue_create(void *device, void **out_queue) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_device *dev = device;
    hcl__vk_queue *q = calloc(1, sizeof *q);
    if (!q) return hcl__kit_oom("queue");
    q->dev = dev;
    q->refs = 1;
    pthread_mutex_init(&q->lock, NULL);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = dev->entry->queue_family};
    HCL_VK_CHECK(vkCreateCommandPool, (dev->device, &pi, NULL, &q->pool), "a queue's command pool");
    hcl__vk_live(dev, 1);
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
                                    .initialValue = 0};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
    HCL_VK_CHECK(vkCreateSemaphore, (dev->device, &si, NULL, &q->timeline), "a queue's timeline semaphore");
    hcl__vk_live(dev, 1);
    status = hcl__vk_buffer_make(dev, HCL_VK_STAGING_BYTES, dev->staging_type, 1, &q->staging);
    if (status != HCL_SUCCESS) goto cleanup;
    *out_queue = q;
    return HCL_SUCCESS;
cleanup:
    hcl__vk_queue_destroy(q);
    return status;
}

/* The queue's objects go with its last reference (hcl__vk_queue's refs). */
static void queue_unref(hcl__vk_queue *q) {
    if (__atomic_sub_fetch(&q->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    hcl__vk_device *dev = q->dev;
    if (q->staging.buffer) hcl__vk_buffer_unmake(dev, &q->staging);
    if (q->pool) { /* frees its command buffers */
        hcl__vk.vkDestroyCommandPool(dev->device, q->pool, NULL);
        hcl__vk_live(dev, -1);
    }
    if (q->timeline) {
        hcl__vk.vkDestroySemaphore(dev->device, q->timeline, NULL);
        hcl__vk_live(dev, -1);
    }
    free(q->flights);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

void hcl__vk_queue_destroy(void *queue) {
    hcl__vk_queue *q = queue;
    if (!q) return;
    if (q->timeline && q->submitted) (void)hcl__vk_wait_value(q->dev, q->timeline, q->submitted, "a queue destroyed");
    queue_unref(q);
}

hcl_status hcl__vk_queue_finish(void *queue) {
    hcl__vk_queue *q = queue;
    pthread_mutex_lock(&q->lock);
    const uint64_t value = q->submitted;
    pthread_mutex_unlock(&q->lock);
    return value ? hcl__vk_wait_value(q->dev, q->timeline, value, "hcl_queue_finish") : HCL_SUCCESS;
}

hcl_status hcl__vk_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__vk_cmd cmd;
    hcl_status status = hcl__vk_cmd_begin(&cmd, queue, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    cmd.marker = 1;
    if (cmd.ev) cmd.ev->marker = 1;
    status = hcl__vk_cmd_submit(&cmd, 1, 0);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}

hcl_status hcl__vk_event_wait(void *event) {
    hcl__vk_event *ev = event;
    return hcl__vk_wait_value(ev->q->dev, ev->timeline, ev->value, "hcl_event_wait");
}

hcl_status hcl__vk_event_query(void *event, int *out_done) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_event *ev = event;
    uint64_t done = 0;
    HCL_VK_CHECK(vkGetSemaphoreCounterValue, (ev->q->dev->device, ev->timeline, &done), "an event's timeline");
    *out_done = done >= ev->value;
cleanup:
    return status;
}

void hcl__vk_event_release(void *event) { event_free(event); }

hcl_status hcl__vk_event_elapsed(void *start, void *end, double *out_seconds) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_event *a = start, *b = end;
    hcl__vk_device *dev = a->q->dev;
    if (!a->queries || !b->queries)
        return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                            "vulkan: device '%s' has no timestamps on its compute queue (timestampValidBits 0)",
                            dev->entry->info.name);
    status = hcl__vk_event_wait(a);
    if (status == HCL_SUCCESS) status = hcl__vk_event_wait(b);
    if (status != HCL_SUCCESS) return status;
    uint64_t t0 = 0, t1 = 0;
    const VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT;
    HCL_VK_CHECK(vkGetQueryPoolResults, (dev->device, a->queries, 0, 1, sizeof t0, &t0, sizeof t0, flags),
                 "the start event's timestamp");
    HCL_VK_CHECK(vkGetQueryPoolResults,
                 (dev->device, b->queries, b->marker ? 0 : 1, 1, sizeof t1, &t1, sizeof t1, flags),
                 "the end event's timestamp");
    const uint32_t bits = dev->entry->timestamp_bits;
    const uint64_t mask = bits >= 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    const uint64_t ticks = (t1 - t0) & mask;
    *out_seconds = (double)ticks * dev->entry->ns_per_tick * 1e-9;
cleanup:
    return status;
}
