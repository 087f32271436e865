/* Communicators (hcl_comm.h): every argument checked here before an engine sees it; the engines (comm_engine.h) are
 * opened once, on first use; groups are per thread; a communicator that an engine broke refuses every later
 * collective with the status and message that broke it. */
#include "comm_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the engines ---- */

static const hcl__comm_engine *const engines[] = {&hcl__comm_nccl, &hcl__comm_rccl, &hcl__comm_mpi, &hcl__comm_staged};
#define ENGINE_COUNT (sizeof engines / sizeof engines[0])

static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static int engine_loaded[ENGINE_COUNT];
static hcl_comm_engine_info engine_info[ENGINE_COUNT];

/* Open an engine once; its info (available or the reason) stays for the life of the process. */
static const hcl_comm_engine_info *engine_load(uint32_t i) {
    pthread_mutex_lock(&engine_lock);
    if (!engine_loaded[i]) {
        hcl_comm_engine_info *info = &engine_info[i];
        memset(info, 0, sizeof *info);
        snprintf(info->name, sizeof info->name, "%s", engines[i]->name);
        snprintf(info->backends, sizeof info->backends, "%s", engines[i]->backends);
        hcl_status st = engines[i]->ops->load ? engines[i]->ops->load(engines[i], info) : HCL_SUCCESS;
        info->available = st == HCL_SUCCESS;
        if (!info->available && !info->reason[0]) snprintf(info->reason, sizeof info->reason, "%s", hcl_last_message());
        hcl__log(info->available ? HCL_LOG_DEBUG : HCL_LOG_INFO, "comm", "engine %s: %s%s%s", info->name,
                 info->available ? "available " : "unavailable: ", info->available ? info->library : info->reason,
                 info->available && info->version[0] ? info->version : "");
        engine_loaded[i] = 1;
    }
    pthread_mutex_unlock(&engine_lock);
    return &engine_info[i];
}

/* The engine of this name, not opened (HCL_ERROR_INVALID_ARGUMENT for an unknown name). */
static hcl_status engine_find(const char *fn, const char *name, uint32_t *out_index) {
    for (uint32_t i = 0; i < ENGINE_COUNT; i++)
        if (strcmp(engines[i]->name, name) == 0) {
            *out_index = i;
            return HCL_SUCCESS;
        }
    return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: unknown engine '%.40s' (known: nccl, rccl, mpi, staged)",
                            fn, name);
}

/* Engine i opened and available (HCL_ERROR_BACKEND_UNAVAILABLE with the reason). */
static hcl_status engine_open(const char *fn, uint32_t i, const hcl__comm_engine **out) {
    const hcl_comm_engine_info *info = engine_load(i);
    if (!info->available)
        return hcl__set_message(HCL_ERROR_BACKEND_UNAVAILABLE, "%s: engine %s is unavailable: %s", fn, engines[i]->name,
                                info->reason);
    *out = engines[i];
    return HCL_SUCCESS;
}

static hcl_status engine_serves(const char *fn, const hcl__comm_engine *e, const hcl__device *dev) {
    return e->ops->serves ? hcl__prefix_message(e->ops->serves(e, dev), fn) : HCL_SUCCESS;
}

/* The engine of this name for devs[0..count), opened and available. Whether it serves the devices comes before whether
 * its library opens: nccl named for OpenCL devices is HCL_ERROR_UNSUPPORTED (hcl_comm.h) on a machine without NCCL
 * too. */
static hcl_status engine_get(const char *fn, const char *name, hcl__device *const *devs, uint32_t count,
                             const hcl__comm_engine **out) {
    uint32_t i = 0;
    hcl_status st = engine_find(fn, name, &i);
    for (uint32_t d = 0; st == HCL_SUCCESS && d < count; d++) st = engine_serves(fn, engines[i], devs[d]);
    return st == HCL_SUCCESS ? engine_open(fn, i, out) : st;
}

/* The engine a device's backend uses across processes: nccl for cuda, rccl for hip, mpi otherwise. */
static const char *default_engine(const hcl__device *dev) {
    if (strcmp(dev->backend->name, "cuda") == 0) return "nccl";
    if (strcmp(dev->backend->name, "hip") == 0) return "rccl";
    return "mpi";
}

HCL_API hcl_status hcl_comm_engine_count(uint32_t *out_count) {
    if (!out_count) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_comm_engine_count: out_count is NULL");
    *out_count = (uint32_t)ENGINE_COUNT;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_comm_engine_get_info(uint32_t index, hcl_comm_engine_info *out_info) {
    static const char fn[] = "hcl_comm_engine_get_info";
    if (!out_info) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: out_info is NULL", fn);
    if (index >= ENGINE_COUNT)
        return hcl__set_message(HCL_ERROR_DEVICE_NOT_FOUND, "%s: index %u out of range (%u engines)", fn, index,
                                (unsigned)ENGINE_COUNT);
    *out_info = *engine_load(index);
    return HCL_SUCCESS;
}

/* ---- communicators ---- */

hcl_status hcl__comm_break(hcl__comm *comm, hcl_status status) {
    int expected = 0;
    char why[sizeof comm->broken_why];
    snprintf(why, sizeof why, "%s", hcl_last_message());
    if (atomic_compare_exchange_strong(&comm->broken, &expected, (int)status))
        snprintf(comm->broken_why, sizeof comm->broken_why, "%s", why);
    return status;
}

static double default_timeout(void) {
    const char *env = getenv("HCL_COMM_TIMEOUT");
    char *end = NULL;
    double t = env && *env ? strtod(env, &end) : 0;
    if (env && *env && (!end || *end || !(t > 0) || !isfinite(t))) {
        hcl__log(HCL_LOG_WARN, "comm", "HCL_COMM_TIMEOUT='%.40s' is not a positive number of seconds: using 300", env);
        t = 0;
    }
    return t > 0 ? t : 300.0;
}

static hcl__comm *comm_new(hcl_device device, hcl__device *dev, const hcl__comm_engine *e, uint32_t rank,
                           uint32_t size) {
    hcl__comm *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->engine = e;
    c->device = device;
    c->dev = dev;
    c->rank = rank;
    c->size = size;
    atomic_init(&c->timeout, default_timeout());
    atomic_init(&c->broken, 0);
    hcl__device_ref(dev);
    return c;
}

/* Free a communicator whose engine state is gone (or never came). */
static void comm_free(hcl__comm *c) {
    hcl__device_unref(c->dev);
    free(c);
}

static void comm_destroy(void *object) {
    hcl__comm *c = object;
    c->engine->ops->destroy(c);
    comm_free(c);
}

static hcl_status get_id(hcl_device device, const char *engine, hcl_comm_id *out_id) {
    static const char fn[] = "hcl_comm_get_id";
    hcl__device *dev;
    const hcl__comm_engine *e = NULL;
    hcl_status st = hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_id, fn, "device", "out_id");
    if (st != HCL_SUCCESS) return st;
    if ((st = engine_get(fn, engine ? engine : default_engine(dev), &dev, 1, &e)) != HCL_SUCCESS) return st;
    if (!e->has_id)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: engine %s has no id: it joins devices of one process (hcl_comm_create_all)", fn,
                                e->name);
    memset(out_id, 0, sizeof *out_id);
    snprintf(out_id->engine, sizeof out_id->engine, "%s", e->name);
    return hcl__prefix_message(e->ops->get_id(e, dev, out_id->bytes), fn);
}

HCL_API hcl_status hcl_comm_get_id(hcl_device device, const char *engine, hcl_comm_id *out_id) {
    HCL__TRACED("hcl_comm_get_id", get_id(device, engine, out_id), "engine", engine ? engine : "", NULL);
}

static hcl_status comm_create(hcl_device device, uint32_t size, uint32_t rank, const hcl_comm_id *id,
                              hcl_comm *out_comm) {
    static const char fn[] = "hcl_comm_create";
    hcl__device *dev;
    const hcl__comm_engine *e = NULL;
    hcl_status st = hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_comm, fn, "device", "out_comm");
    if (st != HCL_SUCCESS) return st;
    if (!id) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: id is NULL", fn);
    if (size == 0 || rank >= size)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: rank %u of size %u (need 0 <= rank < size)", fn, rank,
                                size);
    if (!memchr(id->engine, 0, sizeof id->engine) || !id->engine[0])
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: id names no engine (not made by hcl_comm_get_id?)",
                                fn);
    if ((st = engine_get(fn, id->engine, &dev, 1, &e)) != HCL_SUCCESS) return st;
    if (!e->has_id)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: id names engine %s, which has no id", fn, e->name);
    hcl__comm *c = comm_new(device, dev, e, rank, size);
    if (!c) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if ((st = e->ops->create(c, id->bytes)) != HCL_SUCCESS) {
        comm_free(c);
        return hcl__prefix_message(st, fn);
    }
    return hcl__publish(HCL__H_COMM, c, comm_destroy, (void **)out_comm, fn);
}

HCL_API hcl_status hcl_comm_create(hcl_device device, uint32_t size, uint32_t rank, const hcl_comm_id *id,
                                   hcl_comm *out_comm) {
    HCL__TRACED("hcl_comm_create", comm_create(device, size, rank, id, out_comm), "engine", id ? id->engine : "",
                "size,rank", size, rank);
}

/* The engine hcl_comm_create_all uses when none is named: nccl or rccl when every device is of their backend. */
static const char *default_engine_all(hcl__device *const *devs, uint32_t count) {
    const char *name = default_engine(devs[0]);
    for (uint32_t i = 1; i < count; i++)
        if (devs[i]->backend != devs[0]->backend) return "staged";
    return strcmp(name, "mpi") == 0 ? "staged" : name;
}

static hcl_status create_all(uint32_t count, const hcl_device *devices, const char *engine, hcl_comm *out_comms) {
    static const char fn[] = "hcl_comm_create_all";
    if (count == 0 || !devices || !out_comms)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: count %u, devices %p, out_comms %p (need count > 0 "
                                "and both arrays)",
                                fn, count, (const void *)devices, (void *)out_comms);
    hcl__device **devs = calloc(count, sizeof *devs);
    hcl__comm **comms = calloc(count, sizeof *comms);
    const hcl__comm_engine *e = NULL;
    uint32_t made = 0, published = 0;
    hcl_status st =
        devs && comms ? HCL_SUCCESS : hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    for (uint32_t i = 0; st == HCL_SUCCESS && i < count; i++) {
        char what[32];
        snprintf(what, sizeof what, "devices[%u]", i);
        if ((st = hcl__lookup(devices[i], HCL__H_DEVICE, (void **)&devs[i], fn, what)) != HCL_SUCCESS) break;
        for (uint32_t j = 0; j < i; j++)
            if (devs[j] == devs[i])
                st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: devices[%u] and devices[%u] are one device", fn,
                                      j, i);
    }
    if (st == HCL_SUCCESS) st = engine_get(fn, engine ? engine : default_engine_all(devs, count), devs, count, &e);
    if (st == HCL_SUCCESS && !e->ops->create_all)
        st = hcl__set_message(HCL_ERROR_UNSUPPORTED, "%s: engine %s joins one rank per process (hcl_comm_create)", fn,
                              e->name);
    for (; st == HCL_SUCCESS && made < count; made++)
        if (!(comms[made] = comm_new(devices[made], devs[made], e, made, count)))
            st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if (st == HCL_SUCCESS && (st = e->ops->create_all(count, comms)) != HCL_SUCCESS) st = hcl__prefix_message(st, fn);
    if (st == HCL_SUCCESS) {
        for (; published < count; published++) {
            hcl__comm *c = comms[published];
            comms[published] = NULL; /* hcl__publish destroys it on failure */
            if ((st = hcl__publish(HCL__H_COMM, c, comm_destroy, (void **)&out_comms[published], fn)) != HCL_SUCCESS)
                break;
        }
        if (st != HCL_SUCCESS) { /* the engine made them all: destroy the rest, release the published */
            for (uint32_t i = published + 1; i < count; i++) comm_destroy(comms[i]);
            for (uint32_t i = 0; i < published; i++) hcl_comm_release(out_comms[i]);
        }
    } else {
        for (uint32_t i = 0; i < made; i++)
            if (comms[i]) comm_free(comms[i]);
    }
    free(devs);
    free(comms);
    return st;
}

HCL_API hcl_status hcl_comm_create_all(uint32_t count, const hcl_device *devices, const char *engine,
                                       hcl_comm *out_comms) {
    HCL__TRACED("hcl_comm_create_all", create_all(count, devices, engine, out_comms), "engine", engine ? engine : "",
                "count", count);
}

HCL_API hcl_status hcl_comm_release(hcl_comm comm) {
    return hcl__release(comm, HCL__H_COMM, comm_destroy, "hcl_comm_release", "comm");
}

HCL_API hcl_status hcl_comm_get_info(hcl_comm comm, hcl_comm_info *out_info) {
    hcl__comm *c;
    hcl_status st = hcl__lookup_out(comm, HCL__H_COMM, (void **)&c, out_info, "hcl_comm_get_info", "comm", "out_info");
    if (st != HCL_SUCCESS) return st;
    memset(out_info, 0, sizeof *out_info);
    out_info->rank = c->rank;
    out_info->size = c->size;
    snprintf(out_info->engine, sizeof out_info->engine, "%s", c->engine->name);
    out_info->timeout = atomic_load(&c->timeout);
    out_info->device = c->device;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_comm_set_timeout(hcl_comm comm, double seconds) {
    static const char fn[] = "hcl_comm_set_timeout";
    hcl__comm *c;
    hcl_status st = hcl__lookup(comm, HCL__H_COMM, (void **)&c, fn, "comm");
    if (st != HCL_SUCCESS) return st;
    if (!(seconds > 0) || !isfinite(seconds))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: seconds %g (must be > 0 and finite)", fn, seconds);
    atomic_store(&c->timeout, seconds);
    return HCL_SUCCESS;
}

/* The status that broke a communicator, with its cause, or HCL_SUCCESS. */
static hcl_status check_broken(const char *fn, hcl__comm *c) {
    int broken = atomic_load(&c->broken);
    if (!broken) return HCL_SUCCESS;
    return hcl__set_message((hcl_status)broken, "%s: the communicator is broken: %s", fn, c->broken_why);
}

/* The communicator and a queue of its device (hcl_comm_finish, every collective). */
static hcl_status lookup_comm_queue(const char *fn, hcl_comm comm, hcl_queue queue, hcl__comm **out_comm,
                                    hcl__queue **out_queue) {
    /* every collective's first step: the lookups inlined, the failure's message out of line */
    if (!(*out_comm = hcl__handle_get(comm, HCL__H_COMM))) return hcl__lookup_failed(comm, HCL__H_COMM, fn, "comm");
    if (!(*out_queue = hcl__handle_get(queue, HCL__H_QUEUE)))
        return hcl__lookup_failed(queue, HCL__H_QUEUE, fn, "queue");
    if ((*out_queue)->dev != (*out_comm)->dev)
        return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH,
                                "%s: the queue belongs to another device than the communicator's", fn);
    return HCL_SUCCESS;
}

static hcl_status comm_finish(hcl_comm comm, hcl_queue queue) {
    static const char fn[] = "hcl_comm_finish";
    hcl__comm *c;
    hcl__queue *q;
    hcl_status st = lookup_comm_queue(fn, comm, queue, &c, &q);
    if (st == HCL_SUCCESS) st = check_broken(fn, c);
    if (st != HCL_SUCCESS) return st;
    if (c->engine->ops->finish) return hcl__prefix_message(c->engine->ops->finish(c, q), fn);
    return hcl_queue_finish(queue);
}

HCL_API hcl_status hcl_comm_finish(hcl_comm comm, hcl_queue queue) {
    HCL__TRACED("hcl_comm_finish", comm_finish(comm, queue), NULL, NULL, NULL);
}

/* ---- groups: per thread; an engine takes part from its first collective in the group, and comm.c keeps what it
 * records (hcl__comm_group) ---- */

static _Thread_local uint32_t group_depth;
static _Thread_local uint32_t group_engines; /* bit i: engines[i] takes part in this thread's group */
static _Thread_local hcl__comm_group groups[ENGINE_COUNT];

HCL_API hcl_status hcl_comm_group_start(void) {
    if (group_depth++ == 0) group_engines = 0;
    return HCL_SUCCESS;
}

hcl__comm_group *hcl__comm_group_of(const hcl__comm_engine *e) {
    if (group_depth == 0) return NULL;
    uint32_t i = 0;
    while (i + 1 < ENGINE_COUNT && engines[i] != e) i++;
    group_engines |= 1u << i;
    return &groups[i];
}

hcl_status hcl__comm_group_room(hcl__comm_group *g, size_t size) {
    if (!g->items) g->items = g->first, g->cap = sizeof g->first / size;
    if (g->count < g->cap) return HCL_SUCCESS;
    const size_t cap = g->cap ? 2 * g->cap : 16;
    void *grown = g->items == g->first ? malloc(cap * size) : realloc(g->items, cap * size);
    if (!grown) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory recording a group's collective");
    if (g->items == g->first) memcpy(grown, g->first, g->count * size);
    g->items = grown;
    g->cap = cap;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_comm_group_end(void) {
    if (group_depth == 0)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_comm_group_end: no group is open on this thread");
    if (--group_depth > 0) return HCL_SUCCESS;
    hcl_status first = HCL_SUCCESS;
    for (uint32_t i = 0; i < ENGINE_COUNT; i++) {
        if (!(group_engines & (1u << i))) continue;
        hcl__comm_group *g = &groups[i];
        hcl_status st = engines[i]->ops->group_end(engines[i], g);
        if (st != HCL_SUCCESS && first == HCL_SUCCESS) first = hcl__prefix_message(st, "hcl_comm_group_end");
        if (g->items != g->first) free(g->items);
        g->count = g->cap = 0; /* empty again (`first` needs no clearing) */
        g->items = NULL;
        g->started = 0;
        g->failed = HCL_SUCCESS;
    }
    group_engines = 0;
    return first;
}

/* ---- collectives ---- */

/* A collective call as the API gives it. */
typedef struct coll_call {
    const char *fn;
    hcl_comm comm;
    hcl_queue queue;
    hcl__coll_kind kind;
    hcl_dtype type;
    hcl_comm_op op;
    uint32_t root; /* or peer */
    size_t count;
    hcl_buffer send, recv;
    uint32_t num_wait;
    const hcl_event *wait_list;
    hcl_event *out_event;
} coll_call;

static int reduces(hcl__coll_kind k) {
    return k == HCL__COLL_ALL_REDUCE || k == HCL__COLL_REDUCE || k == HCL__COLL_REDUCE_SCATTER;
}

/* Look up a buffer the call needs on this rank, of at least `elems` elements (elems_ok 0: overflowed). */
static hcl_status need_buffer(const coll_call *a, hcl__device *dev, hcl_buffer h, const char *what, size_t elems,
                              int elems_ok, hcl__buffer **out) {
    return hcl__lookup_elems(a->fn, dev, h, what, a->type, elems, elems_ok, out);
}

/* Validate the call into op (buffers resolved for this rank). */
static hcl_status check_call(const coll_call *a, hcl__comm *c, hcl__coll *op) {
    const char *fn = a->fn;
    hcl_status st;
    if (!hcl_dtype_size(a->type))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: type %d is not an hcl_dtype", fn, (int)a->type);
    if (reduces(a->kind) && ((unsigned)a->op >= HCL_COMM_OP_COUNT))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: op %d is not an hcl_comm_op", fn, (int)a->op);
    const int p2p = a->kind == HCL__COLL_SEND || a->kind == HCL__COLL_RECV;
    if (a->kind == HCL__COLL_REDUCE || a->kind == HCL__COLL_BROADCAST || p2p) {
        if (a->root >= c->size)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: %s %u out of range (size %u)", fn,
                                    p2p ? "peer" : "root", a->root, c->size);
        if (p2p && a->root == c->rank)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: peer %u is this rank", fn, a->root);
    }
    size_t all;
    const int all_ok = !__builtin_mul_overflow(a->count, (size_t)c->size, &all);
    const int root = a->root == c->rank;
    size_t send_elems = a->count, recv_elems = a->count;
    int send_ok = 1, recv_ok = 1, use_send = 1, use_recv = 1, in_place = 1;
    switch (a->kind) {
    case HCL__COLL_ALL_REDUCE: break;
    case HCL__COLL_REDUCE: use_recv = root; break;
    case HCL__COLL_BROADCAST: use_send = root; break;
    case HCL__COLL_ALL_GATHER: recv_elems = all, recv_ok = all_ok, in_place = 0; break;
    case HCL__COLL_REDUCE_SCATTER: send_elems = all, send_ok = all_ok, in_place = 0; break;
    case HCL__COLL_SEND: use_recv = 0; break;
    case HCL__COLL_RECV: use_send = 0; break;
    }
    memset(op, 0, sizeof *op);
    if (use_send &&
        (st = need_buffer(a, c->dev, a->send, p2p ? "buffer" : "send", send_elems, send_ok, &op->send)) != HCL_SUCCESS)
        return st;
    if (use_recv &&
        (st = need_buffer(a, c->dev, a->recv, p2p ? "buffer" : "recv", recv_elems, recv_ok, &op->recv)) != HCL_SUCCESS)
        return st;
    if (!in_place && a->send == a->recv)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: send and recv are one buffer (%s has no in-place form "
                                "here)",
                                fn, hcl__coll_name(a->kind));
    op->kind = a->kind;
    op->type = a->type;
    op->op = reduces(a->kind) ? a->op : HCL_COMM_SUM;
    op->count = a->count;
    op->root = a->root;
    return HCL_SUCCESS;
}

HCL__TRACED_BODY hcl_status run_call(const coll_call *a) {
    const char *fn = a->fn;
    hcl__comm *c;
    hcl__queue *q;
    hcl__coll op;
    hcl_status st = lookup_comm_queue(fn, a->comm, a->queue, &c, &q);
    if (st != HCL_SUCCESS || (st = check_call(a, c, &op)) != HCL_SUCCESS) return st;
    op.q = q;
    if (a->out_event && group_depth > 0)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: out_event inside a group (take one with "
                                "hcl_queue_marker after hcl_comm_group_end)",
                                fn);
    if ((st = check_broken(fn, c)) != HCL_SUCCESS) return st;
    void **wait = NULL;
    if ((st = hcl__resolve_wait(fn, q->dev, a->num_wait, a->wait_list, &wait)) != HCL_SUCCESS) return st;
    const hcl_driver_table *d = q->dev->drv;
    if (a->num_wait) { /* the queue is in order: a marker on the wait list holds back what follows */
        void *marker = NULL;
        st = d->queue_marker(q->native, a->num_wait, wait, &marker);
        if (marker) d->event_release(marker);
    }
    free(wait);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    if (op.count > 0 && (st = c->engine->ops->run(c, &op)) != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    if (!HCL__WANT_EVENT(a->out_event)) return HCL_SUCCESS;
    void *native = NULL;
    if ((st = d->queue_marker(q->native, 0, NULL, &native)) != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    return hcl__wrap_event(fn, q, native, a->out_event);
}

/* Every collective and point-to-point call: its arguments as one coll_call, traced under the public name. */
static hcl_status coll(const char *fn, hcl__coll_kind kind, hcl_comm comm, hcl_queue queue, hcl_dtype type,
                       hcl_comm_op op, uint32_t root, size_t count, hcl_buffer send, hcl_buffer recv, uint32_t num_wait,
                       const hcl_event *wait_list, hcl_event *out_event) {
    const coll_call call = {fn, comm, queue, kind, type, op, root, count, send, recv, num_wait, wait_list, out_event};
    const coll_call *a = &call;
    HCL__TRACED(a->fn, run_call(a), NULL, NULL, "count,type,root", a->count, a->type, a->root);
}

HCL_API hcl_status hcl_comm_all_reduce(hcl_comm comm, hcl_queue queue, hcl_dtype type, hcl_comm_op op, size_t count,
                                       hcl_buffer send, hcl_buffer recv, uint32_t num_wait, const hcl_event *wait_list,
                                       hcl_event *out_event) {
    return coll("hcl_comm_all_reduce", HCL__COLL_ALL_REDUCE, comm, queue, type, op, 0, count, send, recv, num_wait,
                wait_list, out_event);
}

HCL_API hcl_status hcl_comm_reduce(hcl_comm comm, hcl_queue queue, hcl_dtype type, hcl_comm_op op, uint32_t root,
                                   size_t count, hcl_buffer send, hcl_buffer recv, uint32_t num_wait,
                                   const hcl_event *wait_list, hcl_event *out_event) {
    return coll("hcl_comm_reduce", HCL__COLL_REDUCE, comm, queue, type, op, root, count, send, recv, num_wait,
                wait_list, out_event);
}

HCL_API hcl_status hcl_comm_broadcast(hcl_comm comm, hcl_queue queue, hcl_dtype type, uint32_t root, size_t count,
                                      hcl_buffer send, hcl_buffer recv, uint32_t num_wait, const hcl_event *wait_list,
                                      hcl_event *out_event) {
    return coll("hcl_comm_broadcast", HCL__COLL_BROADCAST, comm, queue, type, HCL_COMM_SUM, root, count, send, recv,
                num_wait, wait_list, out_event);
}

HCL_API hcl_status hcl_comm_all_gather(hcl_comm comm, hcl_queue queue, hcl_dtype type, size_t count, hcl_buffer send,
                                       hcl_buffer recv, uint32_t num_wait, const hcl_event *wait_list,
                                       hcl_event *out_event) {
    return coll("hcl_comm_all_gather", HCL__COLL_ALL_GATHER, comm, queue, type, HCL_COMM_SUM, 0, count, send, recv,
                num_wait, wait_list, out_event);
}

HCL_API hcl_status hcl_comm_reduce_scatter(hcl_comm comm, hcl_queue queue, hcl_dtype type, hcl_comm_op op, size_t count,
                                           hcl_buffer send, hcl_buffer recv, uint32_t num_wait,
                                           const hcl_event *wait_list, hcl_event *out_event) {
    return coll("hcl_comm_reduce_scatter", HCL__COLL_REDUCE_SCATTER, comm, queue, type, op, 0, count, send, recv,
                num_wait, wait_list, out_event);
}

HCL_API hcl_status hcl_comm_send(hcl_comm comm, hcl_queue queue, hcl_dtype type, size_t count, hcl_buffer buffer,
                                 uint32_t peer, uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event) {
    return coll("hcl_comm_send", HCL__COLL_SEND, comm, queue, type, HCL_COMM_SUM, peer, count, buffer, NULL, num_wait,
                wait_list, out_event);
}

HCL_API hcl_status hcl_comm_recv(hcl_comm comm, hcl_queue queue, hcl_dtype type, size_t count, hcl_buffer buffer,
                                 uint32_t peer, uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event) {
    return coll("hcl_comm_recv", HCL__COLL_RECV, comm, queue, type, HCL_COMM_SUM, peer, count, NULL, buffer, num_wait,
                wait_list, out_event);
}
