/* Queues, commands and events of the Vulkan driver. An HCL queue is a command pool and a timeline semaphore over the
 * device's one VkQueue. Its commands are recorded into an open batch, one command buffer, each after a full memory
 * barrier (so commands run in order: a barrier's first scope is everything recorded before it in the batch and
 * everything submitted before on the VkQueue), each taking the next value of the queue's timeline. The batch is
 * submitted, signalling its last command's value, when the GPU has finished everything the queue submitted before (so
 * an idle GPU never waits for work: the first command of a quiet queue goes at once), when it holds `batch_max`
 * commands, or when anything must observe its commands: hcl_queue_finish, an event waited for, queried, released or
 * named in another queue's wait list, a transfer through the staging, a blocking call, the queue's end, a kernel's
 * end. A marker goes with its batch as a launch does (whatever observes its event submits it first). So while the GPU
 * works, the commands that come meanwhile go in one vkQueueSubmit, which the device's submitter thread makes as soon
 * as the GPU has finished what came before, when no call did it first. An event is its
 * command's value plus two timestamps. A batch that cannot be submitted fails the call that submits it; its values are
 * then signalled from the host (nothing waits for them forever) and its events report the failure. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, pthread_sigmask */
#include "internal.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAKEN UINT64_MAX /* a command buffer being recorded */
#define NONE UINT32_MAX  /* no open batch */

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

/* Read the queue's timeline into q->completed (queue locked). */
static hcl_status read_completed(hcl__vk_queue *q) {
    hcl_status status = HCL_SUCCESS;
    HCL_VK_CHECK(vkGetSemaphoreCounterValue, (q->dev->device, q->timeline, &q->completed), "the queue's timeline");
cleanup:
    return status;
}

/* The index of a command buffer whose submission completed, or NONE (queue locked). */
static uint32_t completed_cb(const hcl__vk_queue *q) {
    for (uint32_t i = 0; i < q->flight_count; i++)
        if (q->flights[i].value != TAKEN && q->flights[i].value <= q->completed) return i;
    return NONE;
}

/* A command buffer to record a batch into: a completed one (vkBeginCommandBuffer resets it: the pool allows that),
 * else a new one (queue locked). */
static hcl_status take_cb(hcl__vk_queue *q, uint32_t *out_index) {
    hcl_status status = HCL_SUCCESS;
    uint32_t i = completed_cb(q);
    if (i == NONE && q->flight_count) { /* the timeline may have moved since it was last read */
        status = read_completed(q);
        if (status != HCL_SUCCESS) return status;
        i = completed_cb(q);
    }
    if (i != NONE) {
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
    HCL_VK_CHECK(vkAllocateCommandBuffers, (q->dev->device, &ai, &cb), "a command buffer");
    q->flights[q->flight_count] = (hcl__vk_inflight){cb, TAKEN};
    *out_index = q->flight_count++;
cleanup:
    return status;
}

/* Open a batch unless one is open: a command buffer begun (queue locked). */
static hcl_status batch_open(hcl__vk_queue *q) {
    hcl_status status = HCL_SUCCESS;
    if (q->batch != NONE) return HCL_SUCCESS;
    uint32_t index = NONE;
    status = take_cb(q, &index);
    if (status != HCL_SUCCESS) return status;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    HCL_VK_CHECK(vkBeginCommandBuffer, (q->flights[index].cb, &bi), "a batch of commands");
    q->batch = index;
    q->batch_count = 0;
    q->num_wait = 0;
    q->bound = VK_NULL_HANDLE;
    return HCL_SUCCESS;
cleanup:
    q->flights[index].value = 0; /* back to the free ones */
    return status;
}

/* The open batch could not be submitted (`r` from `fn`): its commands never run. Once everything before them has
 * completed, the host signals their values, so nothing waits for them forever; their events report the failure, and
 * when the submitter (`late`) was submitting, so does the next call that submits or finishes the queue (queue
 * locked). Returns the failure's status, with the message set. */
static hcl_status batch_failed(hcl__vk_queue *q, VkResult r, const char *fn, int late) {
    hcl__vk_device *dev = q->dev;
    hcl__vk_inflight *f = &q->flights[q->batch];
    const uint64_t first = q->submitted + 1, last = q->recorded;
    hcl__vk.vkResetCommandBuffer(f->cb, 0); /* it may still be recording (vkEndCommandBuffer failed) */
    f->value = 0;
    q->batch = NONE;
    q->held = 0;
    if (late && !q->late.fn) q->late = (hcl__vk_failure){first, last, r, fn};
    hcl__vk_failure *prev = q->num_failures ? &q->failures[q->num_failures - 1] : NULL;
    if (prev && prev->last + 1 == first && prev->result == r && prev->fn == fn) {
        prev->last = last;
    } else {
        hcl__vk_failure *grown = realloc(q->failures, (q->num_failures + 1) * sizeof *grown);
        if (grown) { /* without room its events cannot tell: the status below still does */
            q->failures = grown;
            q->failures[q->num_failures++] = (hcl__vk_failure){first, last, r, fn};
        }
    }
    if (q->submitted) (void)hcl__vk_wait_value(dev, q->timeline, q->submitted, "the commands before a failed batch");
    VkSemaphoreSignalInfo si = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = q->timeline, .value = last};
    (void)hcl__vk.vkSignalSemaphore(dev->device, &si);
    q->submitted = last;
    return hcl__vk_fail(r, fn, "a batch of %u command(s), timeline values %llu-%llu: none of them ran", q->batch_count,
                        (unsigned long long)first, (unsigned long long)last);
}

/* Submit the open batch, when it holds a command, signalling its last command's value after the waits its commands
 * named; `late` when the submitter does it (queue locked). */
static hcl_status submit_batch(hcl__vk_queue *q, int late) {
    if (q->batch == NONE || q->batch_count == 0) return HCL_SUCCESS;
    hcl__vk_device *dev = q->dev;
    hcl__vk_inflight *f = &q->flights[q->batch];
    /* what the commands wrote is visible to the host once the value is reached (reads through the staging) */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    hcl__vk.vkCmdPipelineBarrier(f->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                 NULL, 0, NULL);
    VkResult r = HCL_KIT_FAULT(VkResult, hcl__vk.vkEndCommandBuffer(f->cb));
    if (r != VK_SUCCESS) return batch_failed(q, r, "vkEndCommandBuffer", late);
    const uint64_t value = q->recorded;
    VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                        .waitSemaphoreValueCount = q->num_wait,
                                        .pWaitSemaphoreValues = q->wait_values,
                                        .signalSemaphoreValueCount = 1,
                                        .pSignalSemaphoreValues = &value};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = &ti,
                       .waitSemaphoreCount = q->num_wait,
                       .pWaitSemaphores = q->wait_sems,
                       .pWaitDstStageMask = q->wait_stages,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &f->cb,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &q->timeline};
    pthread_mutex_lock(&dev->submit_lock);
    r = HCL_KIT_FAULT(VkResult, hcl__vk.vkQueueSubmit(dev->queue, 1, &si, VK_NULL_HANDLE));
    if (r == VK_SUCCESS) q->order = ++dev->submissions;
    pthread_mutex_unlock(&dev->submit_lock);
    if (r != VK_SUCCESS) return batch_failed(q, r, "vkQueueSubmit", late);
    f->value = value;
    q->submitted = value;
    q->batch = NONE;
    q->held = 0;
    return HCL_SUCCESS;
}

/* Submit the open batch for a call (queue locked): its status, else that of a batch the submitter failed to submit
 * since the last call that submitted or finished (reported once). */
static hcl_status flush(hcl__vk_queue *q) {
    hcl_status status = submit_batch(q, 0);
    if (status == HCL_SUCCESS && q->late.fn) {
        status = hcl__vk_fail(q->late.result, q->late.fn,
                              "a batch of commands of this queue (timeline values %llu-%llu), submitted by the driver "
                              "once the GPU had finished what came before: none of them ran",
                              (unsigned long long)q->late.first, (unsigned long long)q->late.last);
        q->late.fn = NULL;
    }
    return status;
}

/* The status of the command of timeline value `value`: its batch's failure, if its submission failed (queue locked). */
static hcl_status failure_of(const hcl__vk_queue *q, uint64_t value) {
    for (uint32_t i = 0; i < q->num_failures; i++) {
        const hcl__vk_failure *f = &q->failures[i];
        if (value >= f->first && value <= f->last)
            return hcl__vk_fail(f->result, f->fn,
                                "the submission of this event's command (timeline value %llu, in a batch of values "
                                "%llu-%llu) failed: it never ran",
                                (unsigned long long)value, (unsigned long long)f->first, (unsigned long long)f->last);
    }
    return HCL_SUCCESS;
}

/* Submit the batch that holds the event's command, if it is not submitted yet; with `check`, also the status of the
 * command's submission. */
static hcl_status event_submit(const hcl__vk_event *ev, int check) {
    hcl__vk_queue *q = ev->q;
    hcl_status status = HCL_SUCCESS;
    pthread_mutex_lock(&q->lock);
    if (ev->value > q->submitted) status = flush(q);
    if (status == HCL_SUCCESS && check) status = failure_of(q, ev->value);
    pthread_mutex_unlock(&q->lock);
    return status;
}

/* Room in the open batch's wait list for `more` waits (queue locked). */
static hcl_status wait_room(hcl__vk_queue *q, uint32_t more) {
    if (q->num_wait + more <= q->cap_wait) return HCL_SUCCESS;
    uint32_t cap = q->cap_wait ? q->cap_wait : 4;
    while (cap < q->num_wait + more) cap *= 2;
    VkSemaphore *sems = realloc(q->wait_sems, cap * sizeof *sems);
    if (sems) q->wait_sems = sems;
    uint64_t *values = realloc(q->wait_values, cap * sizeof *values);
    if (values) q->wait_values = values;
    VkPipelineStageFlags *stages = realloc(q->wait_stages, cap * sizeof *stages);
    if (stages) q->wait_stages = stages;
    if (!sems || !values || !stages) return hcl__kit_oom("wait list");
    q->cap_wait = cap;
    return HCL_SUCCESS;
}

/* Record the barrier that begins a part and, in the command's first, its start timestamp (queue locked, batch open). */
static void begin_part(hcl__vk_cmd *cmd) {
    hcl__vk_queue *q = cmd->q;
    cmd->cb = q->flights[q->batch].cb;
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    hcl__vk.vkCmdPipelineBarrier(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                                 &mb, 0, NULL, 0, NULL);
    if (cmd->first && cmd->ev && cmd->ev->queries) {
        hcl__vk.vkCmdResetQueryPool(cmd->cb, cmd->ev->queries, 0, 2);
        hcl__vk.vkCmdWriteTimestamp(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, cmd->ev->queries, 0);
    }
}

static void event_free(hcl__vk_event *ev);
static void hold(hcl__vk_queue *q);

hcl_status hcl__vk_cmd_begin(hcl__vk_cmd *cmd, hcl__vk_queue *q, uint32_t num_wait, void *const *wait, int want_event) {
    hcl_status status = HCL_SUCCESS;
    memset(cmd, 0, sizeof *cmd);
    cmd->q = q;
    cmd->first = 1;
    /* events of other queues still in their open batch: submitted first (one queue locked at a time). The queue's own
     * events need no wait: its commands run in order. */
    uint32_t foreign = 0;
    for (uint32_t i = 0; i < num_wait; i++) {
        const hcl__vk_event *w = wait[i];
        if (w->q == q) continue;
        foreign++;
        status = event_submit(w, 0);
        if (status != HCL_SUCCESS) return status;
    }
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
    status = wait_room(q, foreign);
    if (status == HCL_SUCCESS) status = batch_open(q);
    if (status != HCL_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        goto cleanup;
    }
    for (uint32_t i = 0; i < num_wait; i++) {
        const hcl__vk_event *w = wait[i];
        if (w->q == q) continue;
        q->wait_sems[q->num_wait] = w->timeline;
        q->wait_values[q->num_wait] = w->value;
        q->wait_stages[q->num_wait++] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    }
    begin_part(cmd);
    return HCL_SUCCESS;
cleanup:
    event_free(cmd->ev);
    cmd->ev = NULL;
    return status;
}

hcl_status hcl__vk_cmd_submit(hcl__vk_cmd *cmd, int last, hcl__vk_when when) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_queue *q = cmd->q;
    if (last && cmd->ev && cmd->ev->queries && !cmd->marker)
        hcl__vk.vkCmdWriteTimestamp(cmd->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, cmd->ev->queries, 1);
    const uint64_t value = ++q->recorded;
    q->batch_count++;
    cmd->cb = VK_NULL_HANDLE;
    cmd->first = 0;
    if (cmd->ev) cmd->ev->value = value;
    if (when == HCL_VK_BATCHED && q->batch_count < q->batch_max) {
        if (!q->submit_when_idle) return HCL_SUCCESS;
        /* the GPU still runs what was submitted before (the timeline read again only while it last said so): this
         * command waits for more to join it, or for the submitter to see that submission complete */
        if (q->completed < q->submitted && read_completed(q) == HCL_SUCCESS && q->completed < q->submitted) {
            hold(q);
            return HCL_SUCCESS;
        }
    }
    status = flush(q);
    if (status == HCL_SUCCESS && when == HCL_VK_WAITED)
        status = hcl__vk_wait_value(q->dev, q->timeline, value, "a command");
    return status;
}

hcl_status hcl__vk_cmd_next(hcl__vk_cmd *cmd) {
    hcl_status status = batch_open(cmd->q);
    if (status == HCL_SUCCESS) begin_part(cmd);
    return status;
}

static void queue_unref(hcl__vk_queue *q);

static void event_free(hcl__vk_event *ev) {
    if (!ev) return;
    hcl__vk_device *dev = ev->q->dev;
    if (ev->value) { /* its query pool may be written until then */
        (void)event_submit(ev, 0);
        (void)hcl__vk_wait_value(dev, ev->timeline, ev->value, "an event released");
    }
    if (ev->queries) {
        hcl__vk.vkDestroyQueryPool(dev->device, ev->queries, NULL);
        hcl__vk_live(dev, -1);
    }
    queue_unref(ev->q);
    free(ev);
}

hcl_status hcl__vk_cmd_finish(hcl__vk_cmd *cmd, hcl_status status, void **out_event) {
    if (cmd->cb) /* begun, never ended (a failure while recording): ended as recorded, so its batch stays whole */
        (void)hcl__vk_cmd_submit(cmd, 1, HCL_VK_BATCHED);
    pthread_mutex_unlock(&cmd->q->lock);
    if (status == HCL_SUCCESS && cmd->ev && out_event)
        *out_event = cmd->ev;
    else
        event_free(cmd->ev);
    cmd->ev = NULL;
    return status;
}

/* Submit the queue's open batch and wait for everything it submitted; a failure stays with the batch's events. */
static void queue_drain(hcl__vk_queue *q, const char *what) {
    pthread_mutex_lock(&q->lock);
    (void)submit_batch(q, 0);
    const uint64_t value = q->submitted;
    pthread_mutex_unlock(&q->lock);
    if (value) (void)hcl__vk_wait_value(q->dev, q->timeline, value, what);
}

void hcl__vk_device_drain(hcl__vk_device *dev) {
    pthread_mutex_lock(&dev->queues_lock);
    for (hcl__vk_queue *q = dev->queues; q; q = q->next) queue_drain(q, "the device's queues drained");
    pthread_mutex_unlock(&dev->queues_lock);
}

/* ---- the submitter ---- */
#define RUNNING 1
#define STOPPING 2
/* How long the submitter waits on one queue's timeline before it looks for queues that held a batch meanwhile (one
 * whose last submission is older completes first: the device's VkQueue runs submissions in order). */
#define HELD_SLICE_NS 1000000ull

/* Submit the held batches whose previous submission completed; wait (in slices, until it completes, new work comes or
 * the submitter is told to stop) for the oldest submission of the queues still holding one. Returns whether any
 * queue still holds one. Takes the device's queue list, then one queue's lock at a time, as the callers do. */
static int submit_held(hcl__vk_device *dev) {
    hcl__vk_queue *oldest = NULL;
    uint64_t value = 0;
    int more = 0;
    pthread_mutex_lock(&dev->queues_lock);
    for (hcl__vk_queue *q = dev->queues; q; q = q->next) {
        pthread_mutex_lock(&q->lock);
        if (q->held) {
            /* a timeline that cannot be read (a lost device) is not waited for: the submission reports the error */
            if (read_completed(q) != HCL_SUCCESS || q->completed >= q->submitted) {
                (void)submit_batch(q, 1); /* a failure goes to its events and the queue's next call */
            } else {
                more = 1;
                if (!oldest || q->order < oldest->order) {
                    oldest = q;
                    value = q->submitted;
                }
            }
        }
        pthread_mutex_unlock(&q->lock);
    }
    if (oldest) __atomic_add_fetch(&oldest->refs, 1, __ATOMIC_RELAXED); /* its timeline outlives a release meanwhile */
    pthread_mutex_unlock(&dev->queues_lock);
    if (!oldest) return more;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1,
                              .pSemaphores = &oldest->timeline,
                              .pValues = &value};
    for (;;) {
        const VkResult r = hcl__vk.vkWaitSemaphores(dev->device, &wi, HELD_SLICE_NS);
        if (r != VK_TIMEOUT) {
            if (r != VK_SUCCESS) { /* looked at again after a pause, never in a busy loop */
                struct timespec pause = {0, (long)HELD_SLICE_NS};
                nanosleep(&pause, NULL);
            }
            break;
        }
        pthread_mutex_lock(&dev->held_lock);
        const int news = dev->held_new || dev->submitter_state != RUNNING;
        pthread_mutex_unlock(&dev->held_lock);
        if (news) break;
    }
    queue_unref(oldest);
    return more;
}

/* The submitter thread: sleeps until a queue holds a batch back, then submits held batches as their queues' previous
 * submissions complete, until told to stop. */
static void *submitter_main(void *arg) {
    hcl__vk_device *dev = arg;
    pthread_mutex_lock(&dev->held_lock);
    while (dev->submitter_state == RUNNING) {
        if (!dev->held_new) {
            pthread_cond_wait(&dev->held_cond, &dev->held_lock);
            continue;
        }
        dev->held_new = 0; /* cleared before looking: a batch held meanwhile sets it again */
        pthread_mutex_unlock(&dev->held_lock);
        const int more = submit_held(dev);
        pthread_mutex_lock(&dev->held_lock);
        if (more) dev->held_new = 1;
    }
    pthread_mutex_unlock(&dev->held_lock);
    return NULL;
}

/* The open batch waits for the queue's last submission to complete: tell the submitter, starting it the first time
 * (queue locked). Without a thread (pthread_create failed) the batch waits for a call that submits, as it would with
 * HCL_VULKAN_BATCH_IDLE=0. */
static void hold(hcl__vk_queue *q) {
    hcl__vk_device *dev = q->dev;
    if (q->held) return; /* the submitter knows already */
    q->held = 1;
    pthread_mutex_lock(&dev->held_lock);
    dev->held_new = 1;
    if (dev->submitter_state == 0) {
        /* the thread takes no signals: the program's handlers run on its own threads */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        dev->submitter_state = RUNNING;
        const int err = pthread_create(&dev->submitter, NULL, submitter_main, dev);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (err) {
            dev->submitter_state = 0;
            HCL_KIT_LOG("the submitter thread could not be started (pthread_create: %s): held batches wait for a call "
                        "that submits them",
                        strerror(err));
        }
    } else {
        pthread_cond_signal(&dev->held_cond);
    }
    pthread_mutex_unlock(&dev->held_lock);
}

void hcl__vk_submitter_init(hcl__vk_device *dev) {
    pthread_mutex_init(&dev->held_lock, NULL);
    pthread_cond_init(&dev->held_cond, NULL);
    dev->held_new = 0;
    dev->submitter_state = 0;
}

void hcl__vk_submitter_end(hcl__vk_device *dev) {
    pthread_mutex_lock(&dev->held_lock);
    const int started = dev->submitter_state == RUNNING;
    if (started) dev->submitter_state = STOPPING;
    pthread_cond_signal(&dev->held_cond);
    pthread_mutex_unlock(&dev->held_lock);
    if (started) pthread_join(dev->submitter, NULL);
    pthread_cond_destroy(&dev->held_cond);
    pthread_mutex_destroy(&dev->held_lock);
}

/* ---- the entry points ---- */
/* A positive count from the environment variable `name`, else `fallback`. */
static uint32_t env_count(const char *name, uint32_t fallback) {
    const char *v = getenv(name);
    char *end = NULL;
    const unsigned long n = v ? strtoul(v, &end, 10) : 0;
    return v && *v && !*end && n > 0 && n <= 65536 ? (uint32_t)n : fallback;
}

hcl_status hcl__vk_queue_create(void *device, void **out_queue) {
    hcl_status status = HCL_SUCCESS;
    hcl__vk_device *dev = device;
    hcl__vk_queue *q = calloc(1, sizeof *q);
    if (!q) return hcl__kit_oom("queue");
    q->dev = dev;
    q->refs = 1;
    q->batch = NONE;
    q->batch_max = env_count("HCL_VULKAN_BATCH", HCL_VK_BATCH_DEFAULT);
    const char *idle = getenv("HCL_VULKAN_BATCH_IDLE");
    q->submit_when_idle = !(idle && strcmp(idle, "0") == 0);
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
    pthread_mutex_lock(&dev->queues_lock);
    q->next = dev->queues;
    dev->queues = q;
    pthread_mutex_unlock(&dev->queues_lock);
    *out_queue = q;
    return HCL_SUCCESS;
cleanup:
    queue_unref(q);
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
    free(q->wait_sems);
    free(q->wait_values);
    free(q->wait_stages);
    free(q->failures);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

void hcl__vk_queue_destroy(void *queue) {
    hcl__vk_queue *q = queue;
    if (!q) return;
    hcl__vk_device *dev = q->dev;
    pthread_mutex_lock(&dev->queues_lock);
    for (hcl__vk_queue **p = &dev->queues; *p; p = &(*p)->next)
        if (*p == q) {
            *p = q->next;
            break;
        }
    pthread_mutex_unlock(&dev->queues_lock);
    queue_drain(q, "a queue destroyed");
    queue_unref(q);
}

hcl_status hcl__vk_queue_finish(void *queue) {
    hcl__vk_queue *q = queue;
    pthread_mutex_lock(&q->lock);
    hcl_status status = flush(q);
    const uint64_t value = q->submitted;
    pthread_mutex_unlock(&q->lock);
    if (status != HCL_SUCCESS) return status;
    return value ? hcl__vk_wait_value(q->dev, q->timeline, value, "hcl_queue_finish") : HCL_SUCCESS;
}

hcl_status hcl__vk_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    hcl__vk_cmd cmd;
    hcl_status status = hcl__vk_cmd_begin(&cmd, queue, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    cmd.marker = 1;
    if (cmd.ev) cmd.ev->marker = 1;
    status = hcl__vk_cmd_submit(&cmd, 1, HCL_VK_BATCHED);
    return hcl__vk_cmd_finish(&cmd, status, out_event);
}

hcl_status hcl__vk_event_wait(void *event) {
    hcl__vk_event *ev = event;
    hcl_status status = event_submit(ev, 1);
    return status == HCL_SUCCESS ? hcl__vk_wait_value(ev->q->dev, ev->timeline, ev->value, "hcl_event_wait") : status;
}

hcl_status hcl__vk_event_query(void *event, int *out_done) {
    hcl__vk_event *ev = event;
    uint64_t done = 0;
    hcl_status status = event_submit(ev, 1);
    if (status != HCL_SUCCESS) return status;
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
