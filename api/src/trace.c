/* The tracer: HCL_TRACE=FILE (read once when libhcl loads) or hcl_trace_start write a Chrome / Perfetto trace (the
 * Trace Event Format: {"traceEvents": [...]}, times in microseconds).
 *
 * - Host slices ("X", cat "api"): one per traced public call, on a track per OS thread of the program's own pid, with
 *   the call's key arguments and the status it returned (trace.h: HCL__TRACED).
 * - Device slices ("X", cat "device"): one per queued command, on a track per queue ("queue N") of a process per
 *   device ("<backend>:<index> <name>"), from the device times of the command's event. The core asks the driver for
 *   an event of every command while tracing (HCL__WANT_EVENT), and the tracer keeps it until it reads its times:
 *   when the queue is finished or released, when tracing stops, or (waiting for the oldest) when a queue has more
 *   than PENDING_MAX commands unread.
 * - Flows ("s" in the call's slice, "f" bound to the device slice, one id) from each call to its command.
 *
 * Clock alignment: the driver ABI gives device time only as differences (event_elapsed). So each queue gets an anchor:
 * on the idle queue the tracer takes the host clock, queues a marker, waits for it and takes the host clock again;
 * the marker's device instant is taken to be the midpoint of those two host times, give or take half their
 * difference (each device slice carries that as args.clock_err_us). A command's device end is then
 * anchor + elapsed(marker, command) and its start that minus elapsed(command, command). The anchor is taken again at
 * a finish when it is more than a second old, so device clock drift and the float milliseconds of CUDA's elapsed
 * time stay small.
 *
 * Memory: records go into a buffer of HCL_TRACE_EVENTS records (default 1 << 18, 152 bytes each) under one mutex;
 * when it is full it is written out and reused. The file is valid JSON after every write: each write seeks back over
 * the closing footer, appends the records and writes the footer again (with counts in "otherData"). The last write is
 * at hcl_trace_stop or at exit. */
#define _GNU_SOURCE /* syscall(SYS_gettid), strdup, readlink */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CAPACITY ((size_t)1 << 18)
#define MAX_CAPACITY ((size_t)1 << 26)
#define PENDING_MAX 4096
#define STRINGS_MAX 4096        /* distinct texts kept (kernel names, selectors, track names); later ones read "..." */
#define DEVICE_PID_BASE 8388608 /* above Linux's largest pid (2^22): a device's track group never meets a real pid */
#define ANCHOR_MAX_AGE_NS 1000000000LL

atomic_int hcl__trace_enabled;

typedef enum rec_kind {
    REC_API,
    REC_DEVICE,
    REC_FLOW_START,
    REC_FLOW_END,
    REC_PROCESS_NAME,
    REC_THREAD_NAME,
    REC_WRITE /* the tracer writing its full buffer out, inside whatever call filled it: its cost made visible */
} rec_kind;

typedef struct rec {
    uint8_t kind;
    uint32_t pid, tid;
    int64_t ts, dur;        /* ns since the trace started */
    int64_t aux;            /* REC_API: the status; REC_DEVICE: the clock alignment's error in ns */
    uint64_t id;            /* flows */
    const char *name, *api; /* static or interned; api: the call that queued a device slice's command */
    hcl__trace_args args;   /* REC_API, REC_DEVICE; REC_*_NAME: the name in args.text */
} rec;
_Static_assert(sizeof(rec) <= 152, "the documented size of a trace record (README: HCL_TRACE_EVENTS)");

/* A command queued but not yet read. */
typedef struct pending {
    struct pending *next;
    hcl__event *ev;
    const char *name, *api;
    hcl__trace_args args;
    uint64_t flow;
} pending;

/* The tracer's state of one queue (hcl__queue.trace). */
struct hcl__trace_queue {
    pthread_mutex_t lock; /* guards the fields below */
    hcl__queue *q;
    uint32_t pid, tid;
    void *anchor_event; /* the marker (native) */
    int64_t anchor_ns, anchor_err_ns, anchor_taken_ns;
    int anchored;
    pending *head, *tail;
    uint32_t count;
    struct hcl__trace_queue *next; /* the registry */
};

/* ---- the trace: guarded by lock ---- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static char *out_path;
static rec *ring;
static size_t capacity, count;
static long footer_len;
static uint64_t written, flushes, untimed;
static uint32_t generation; /* one per trace started, so thread names are written again into a new file */
static int64_t origin_ns;   /* CLOCK_MONOTONIC at the start */
static uint32_t host_pid;
static char *strings[STRINGS_MAX];
static uint32_t string_count;
static const char *device_keys[256]; /* interned: the device's track group is DEVICE_PID_BASE + its index */
static uint32_t device_count;

static atomic_uint next_thread = 1, next_queue = 1;
static atomic_ullong next_flow = 1;

/* ---- the queues: guarded by registry_lock (taken before a queue's lock, which is taken before lock) ---- */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hcl__trace_queue *registry;

static _Thread_local hcl__trace_call *current;
static _Thread_local uint32_t thread_tid, thread_generation;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec - origin_ns;
}

/* A lasting copy of s (lock held); equal texts share one copy. */
static const char *intern(const char *s) {
    if (!s) return NULL;
    for (uint32_t i = 0; i < string_count; i++)
        if (strcmp(strings[i], s) == 0) return strings[i];
    if (string_count == STRINGS_MAX) return "...";
    char *copy = strdup(s);
    if (!copy) return "...";
    strings[string_count++] = copy;
    return copy;
}

/* ---- writing JSON ---- */
/* The bytes at s that make one UTF-8 character (1-4), or, when they are not well-formed UTF-8, minus the length of
 * the ill-formed part to replace with one U+FFFD (Unicode's "maximal subpart": a lead byte and the continuation bytes
 * that fit it so far, else the one byte). The NUL that ends s is never a continuation byte, so it is never passed. */
static int utf8_length(const unsigned char *s) {
    const unsigned c = s[0];
    unsigned lo = 0x80, hi = 0xBF;
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c == 0xE0) /* no overlong forms */
        n = 3, lo = 0xA0;
    else if (c == 0xED) /* no UTF-16 surrogates */
        n = 3, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF)
        n = 3;
    else if (c == 0xF0)
        n = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
        n = 4;
    else if (c == 0xF4) /* nothing above U+10FFFF */
        n = 4, hi = 0x8F;
    else
        return -1;
    for (int i = 1; i < n; i++) {
        if (s[i] < lo || s[i] > hi) return -i;
        lo = 0x80, hi = 0xBF;
    }
    return n;
}

/* A JSON string. RFC 8259 texts are UTF-8: names that reach the trace from callers (selectors, kernel names) may be
 * any bytes, so a sequence that is not UTF-8 is written as U+FFFD, and the file stays JSON. */
static void put_string(FILE *f, const char *s) {
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        const unsigned char c = *p;
        const int n = utf8_length(p);
        if (n < 0)
            fputs("\\ufffd", f);
        else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fwrite(p, 1, (size_t)n, f);
        p += n < 0 ? -n : n;
    }
    fputc('"', f);
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static void put_us(FILE *f, int64_t ns) {
    uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    fprintf(f, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
}

/* The integer arguments named by the comma-separated schema. */
static void put_args(FILE *f, const hcl__trace_args *a) {
    const char *key = a->schema;
    for (uint32_t i = 0; key && i < a->count; i++) {
        const char *end = strchr(key, ',');
        size_t len = end ? (size_t)(end - key) : strlen(key);
        if (len >= 4 && strncmp(key + len - 4, "type", 4) == 0) /* an hcl_dtype: its name */
            fprintf(f, ",\"%.*s\":\"%s\"", (int)len, key, hcl_dtype_name((hcl_dtype)a->values[i]));
        else
            fprintf(f, ",\"%.*s\":%lld", (int)len, key, (long long)a->values[i]);
        if (!end) break;
        key = end + 1;
    }
    if (a->text_key) {
        fprintf(f, ",\"%s\":", a->text_key);
        put_string(f, a->text ? a->text : "(null)");
    }
}

static void put_rec(FILE *f, const rec *r) {
    static const char *const ph[] = {"X", "X", "s", "f", "M", "M", "X"};
    fputs("{\"ph\":\"", f);
    fputs(ph[r->kind], f);
    fprintf(f, "\",\"pid\":%u,\"tid\":%u,\"name\":", r->pid, r->tid);
    switch ((rec_kind)r->kind) {
    case REC_WRITE:
        fputs("\"hcl_trace_write\",\"cat\":\"trace\",\"ts\":", f);
        put_us(f, r->ts);
        fputs(",\"dur\":", f);
        put_us(f, r->dur);
        fprintf(f, ",\"args\":{\"records\":%lld}", (long long)r->aux);
        break;
    case REC_API:
    case REC_DEVICE:
        put_string(f, r->name);
        fputs(r->kind == REC_API ? ",\"cat\":\"api\",\"ts\":" : ",\"cat\":\"device\",\"ts\":", f);
        put_us(f, r->ts);
        fputs(",\"dur\":", f);
        put_us(f, r->dur);
        fputs(",\"args\":{", f);
        if (r->kind == REC_API) {
            fprintf(f, "\"status\":\"%s\"", hcl_status_name((hcl_status)r->aux));
        } else {
            fputs("\"api\":", f);
            put_string(f, r->api);
            fputs(",\"clock_err_us\":", f);
            put_us(f, r->aux);
        }
        put_args(f, &r->args);
        fputc('}', f);
        break;
    case REC_FLOW_START:
    case REC_FLOW_END:
        fputs("\"submit\",\"cat\":\"flow\",\"ts\":", f);
        put_us(f, r->ts);
        fprintf(f, ",\"id\":%llu%s", (unsigned long long)r->id, r->kind == REC_FLOW_END ? ",\"bp\":\"e\"" : "");
        break;
    case REC_PROCESS_NAME:
    case REC_THREAD_NAME:
        fputs(r->kind == REC_PROCESS_NAME ? "\"process_name\"" : "\"thread_name\"", f);
        fputs(",\"args\":{\"name\":", f);
        put_string(f, r->args.text);
        fputc('}', f);
        break;
    }
    fputc('}', f);
}

/* Write the buffered records and the footer (lock held). The footer closes the array and the object, so the file
 * is a whole JSON document after every write; the next write starts where the footer started. */
static void flush_locked(void) {
    if (!out) return;
    if (footer_len && fseek(out, -footer_len, SEEK_END) != 0) footer_len = 0;
    for (size_t i = 0; i < count; i++) {
        fputs(written++ ? ",\n" : "\n", out);
        put_rec(out, &ring[i]);
    }
    count = 0;
    flushes++;
    long before = ftell(out);
    fprintf(out,
            "\n],\"otherData\":{\"hcl_version\":\"%s\",\"capacity\":%zu,\"flushes\":%llu,\"events\":%llu,"
            "\"commands_untimed\":%llu}}\n",
            hcl_version(NULL, NULL, NULL), capacity, (unsigned long long)flushes, (unsigned long long)written,
            (unsigned long long)untimed);
    footer_len = ftell(out) - before;
    fflush(out);
}

/* A slot for one record (lock held, tracing on); writes the buffer out first when it is full. */
static uint32_t thread_track_locked(void);

static rec *add_locked(rec_kind kind) {
    if (count == capacity) {
        const int64_t t0 = now_ns();
        const size_t records = count;
        flush_locked();
        const uint32_t tid = thread_track_locked(); /* may add its name: there is room again */
        if (count == capacity) flush_locked();      /* a capacity of 1 */
        rec *w = &ring[count++];
        memset(w, 0, sizeof *w);
        w->kind = REC_WRITE;
        w->pid = host_pid;
        w->tid = tid;
        w->ts = t0;
        w->dur = now_ns() - t0;
        w->aux = (int64_t)records;
    }
    if (count == capacity) flush_locked(); /* a tiny capacity: the write's own records filled it */
    rec *r = &ring[count++];
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)kind;
    return r;
}

static void name_track_locked(rec_kind kind, uint32_t pid, uint32_t tid, const char *name) {
    rec *r = add_locked(kind);
    r->pid = pid;
    r->tid = tid;
    r->args.text = intern(name);
}

/* This thread's track (lock held): named in the trace the first time it appears in it. */
static uint32_t thread_track_locked(void) {
    if (!thread_tid) thread_tid = atomic_fetch_add(&next_thread, 1);
    if (thread_generation != generation) {
        thread_generation = generation;
        char name[64];
        long os_tid = syscall(SYS_gettid);
        if (os_tid == (long)getpid())
            snprintf(name, sizeof name, "main thread (tid %ld)", os_tid);
        else
            snprintf(name, sizeof name, "thread %u (tid %ld)", thread_tid, os_tid);
        name_track_locked(REC_THREAD_NAME, host_pid, thread_tid, name);
    }
    return thread_tid;
}

/* ---- calls ---- */
void hcl__trace_call_begin(hcl__trace_call *c, const char *name, const char *text_key, const char *text,
                           const char *schema, const int64_t *args, uint32_t nargs) {
    c->name = name;
    memset(&c->args, 0, sizeof c->args);
    c->args.schema = schema;
    c->args.text_key = text_key;
    c->args.count = nargs < HCL__TRACE_MAX_ARGS ? nargs : HCL__TRACE_MAX_ARGS;
    memcpy(c->args.values, args, c->args.count * sizeof *args);
    c->flow = 0;
    if (text_key) {
        pthread_mutex_lock(&lock);
        c->args.text = intern(text ? text : "(null)");
        pthread_mutex_unlock(&lock);
    }
    c->outer = current;
    current = c;
    c->t0 = now_ns();
}

hcl_status hcl__trace_call_end(hcl__trace_call *c, hcl_status status) {
    int64_t t1 = now_ns();
    current = c->outer;
    pthread_mutex_lock(&lock);
    if (out) {
        uint32_t tid = thread_track_locked();
        rec *r = add_locked(REC_API);
        r->pid = host_pid;
        r->tid = tid;
        r->ts = c->t0;
        r->dur = t1 - c->t0;
        r->aux = status;
        r->name = c->name;
        r->args = c->args;
    }
    pthread_mutex_unlock(&lock);
    return status;
}

/* ---- queues and commands ---- */
/* Pair the queue's device clock with the host clock (queue lock held): finish the queue, then time a marker. */
static void anchor(struct hcl__trace_queue *tq) {
    hcl__queue *q = tq->q;
    const hcl_driver_table *drv = q->dev->drv;
    if (drv->queue_finish(q->native) != HCL_SUCCESS) return;
    /* the tightest of three tries: a busy host can stretch one */
    for (int attempt = 0; attempt < 3; attempt++) {
        void *marker = NULL;
        int64_t before = now_ns();
        hcl_status st = drv->queue_marker(q->native, 0, NULL, &marker);
        if (st == HCL_SUCCESS) st = drv->event_wait(marker);
        int64_t after = now_ns();
        if (st != HCL_SUCCESS) {
            if (marker) drv->event_release(marker);
            hcl__log(HCL_LOG_WARN, "trace", "queue %u: no marker to align device times with (%s)", tq->tid,
                     hcl_last_message());
            return;
        }
        const int64_t err = (after - before + 1) / 2;
        if (attempt > 0 && err >= tq->anchor_err_ns) {
            drv->event_release(marker);
            continue;
        }
        if (tq->anchor_event) drv->event_release(tq->anchor_event);
        tq->anchor_event = marker;
        tq->anchor_ns = before + (after - before) / 2;
        tq->anchor_err_ns = err;
        tq->anchor_taken_ns = after;
        tq->anchored = 1;
    }
}

/* The device's track group (lock held): named the first time. */
static uint32_t device_pid_locked(const hcl__device *dev) {
    char key[HCL_NAME_MAX + 64];
    snprintf(key, sizeof key, "%s:%u %s", dev->backend->name, dev->index, dev->info.name);
    const char *k = intern(key);
    for (uint32_t i = 0; i < device_count; i++)
        if (device_keys[i] == k) return DEVICE_PID_BASE + i;
    uint32_t i = device_count < 256 ? device_count++ : 255;
    device_keys[i] = k;
    name_track_locked(REC_PROCESS_NAME, DEVICE_PID_BASE + i, 0, k);
    return DEVICE_PID_BASE + i;
}

static struct hcl__trace_queue *queue_state(hcl__queue *q) {
    struct hcl__trace_queue *tq = atomic_load(&q->trace);
    if (tq) return tq;
    tq = calloc(1, sizeof *tq);
    if (!tq) return NULL;
    pthread_mutex_init(&tq->lock, NULL);
    tq->q = q;
    tq->tid = atomic_fetch_add(&next_queue, 1);
    struct hcl__trace_queue *expected = NULL;
    if (!atomic_compare_exchange_strong(&q->trace, &expected, tq)) {
        pthread_mutex_destroy(&tq->lock);
        free(tq);
        return expected;
    }
    pthread_mutex_lock(&lock);
    tq->pid = device_pid_locked(q->dev);
    char name[48];
    snprintf(name, sizeof name, "queue %u", tq->tid);
    name_track_locked(REC_THREAD_NAME, tq->pid, tq->tid, name);
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&registry_lock);
    tq->next = registry;
    registry = tq;
    pthread_mutex_unlock(&registry_lock);
    pthread_mutex_lock(&tq->lock);
    anchor(tq);
    pthread_mutex_unlock(&tq->lock);
    return tq;
}

void hcl__trace_queue_created(hcl__queue *q) { queue_state(q); }

/* Read the device times of the oldest n pending commands and record their slices (queue lock held). */
static void resolve(struct hcl__trace_queue *tq, uint32_t n) {
    const hcl_driver_table *drv = tq->q->dev->drv;
    while (tq->head && n--) {
        pending *p = tq->head;
        tq->head = p->next;
        if (!tq->head) tq->tail = NULL;
        tq->count--;
        double to_end = 0, duration = 0;
        hcl__event *ev = p->ev;
        int ok = tq->anchored && drv->event_elapsed(tq->anchor_event, ev->native, &to_end) == HCL_SUCCESS &&
                 drv->event_elapsed(ev->first ? ev->first : ev->native, ev->native, &duration) == HCL_SUCCESS;
        pthread_mutex_lock(&lock);
        if (out && ok) {
            int64_t end = tq->anchor_ns + (int64_t)(to_end * 1e9);
            int64_t dur = (int64_t)(duration * 1e9);
            rec *r = add_locked(REC_DEVICE);
            r->pid = tq->pid;
            r->tid = tq->tid;
            r->ts = end - dur;
            r->dur = dur;
            r->aux = tq->anchor_err_ns;
            r->name = p->name;
            r->api = p->api;
            r->args = p->args;
            if (p->flow) {
                rec *f = add_locked(REC_FLOW_END);
                f->pid = tq->pid;
                f->tid = tq->tid;
                f->ts = end - dur;
                f->id = p->flow;
            }
        } else if (out) {
            untimed++;
        }
        pthread_mutex_unlock(&lock);
        hcl__event_unref(ev);
        free(p);
    }
}

void hcl__trace_command(hcl__queue *q, hcl__event *ev) {
    struct hcl__trace_queue *tq = queue_state(q);
    pending *p = tq ? calloc(1, sizeof *p) : NULL;
    if (!p) return;
    hcl__trace_call *c = current;
    pthread_mutex_lock(&lock);
    if (!out) {
        pthread_mutex_unlock(&lock);
        free(p);
        return;
    }
    if (c) {
        /* the device slice is named for what ran: a kernel's name, else the call without its "hcl_" */
        p->name = c->args.text && c->args.text_key && strcmp(c->args.text_key, "kernel") == 0 ? c->args.text
                  : strncmp(c->name, "hcl_", 4) == 0                                          ? c->name + 4
                                                                                              : c->name;
        p->api = c->name;
        p->args = c->args;
        if (!c->flow) {
            c->flow = atomic_fetch_add(&next_flow, 1);
            uint32_t tid = thread_track_locked();
            rec *s = add_locked(REC_FLOW_START);
            s->pid = host_pid;
            s->tid = tid;
            s->ts = now_ns();
            s->id = c->flow;
            p->flow = c->flow;
        }
    } else {
        p->name = p->api = "command";
    }
    pthread_mutex_unlock(&lock);
    hcl__event_ref(ev);
    p->ev = ev;
    pthread_mutex_lock(&tq->lock);
    if (tq->tail)
        tq->tail->next = p;
    else
        tq->head = p;
    tq->tail = p;
    if (++tq->count > PENDING_MAX) resolve(tq, PENDING_MAX / 2); /* waits for the oldest: bounded memory */
    pthread_mutex_unlock(&tq->lock);
}

void hcl__trace_queue_idle(hcl__queue *q) {
    struct hcl__trace_queue *tq = atomic_load(&q->trace);
    if (!tq) return;
    pthread_mutex_lock(&tq->lock);
    resolve(tq, UINT32_MAX);
    if (hcl__trace_on() && now_ns() - tq->anchor_taken_ns > ANCHOR_MAX_AGE_NS) anchor(tq);
    pthread_mutex_unlock(&tq->lock);
}

/* Read what is pending and free the state (no other thread uses the queue). */
static void queue_state_free(struct hcl__trace_queue *tq) {
    resolve(tq, UINT32_MAX);
    if (tq->anchor_event) tq->q->dev->drv->event_release(tq->anchor_event);
    pthread_mutex_destroy(&tq->lock);
    free(tq);
}

void hcl__trace_queue_release(hcl__queue *q) {
    struct hcl__trace_queue *tq = atomic_exchange(&q->trace, NULL);
    if (!tq) return;
    pthread_mutex_lock(&registry_lock);
    for (struct hcl__trace_queue **p = &registry; *p; p = &(*p)->next)
        if (*p == tq) {
            *p = tq->next;
            break;
        }
    pthread_mutex_unlock(&registry_lock);
    queue_state_free(tq);
}

/* ---- starting and stopping ---- */
static size_t capacity_from_env(void) {
    const char *v = getenv("HCL_TRACE_EVENTS");
    if (!v || !*v) return DEFAULT_CAPACITY;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 0);
    if (errno || *end || n < 1 || n > MAX_CAPACITY) {
        /* on stderr whatever HCL_LOG says, as log.c reports a bad HCL_LOG: a setting that is ignored must be seen */
        fprintf(stderr, "hcl[trace] warn: HCL_TRACE_EVENTS=\"%.32s\" is not a record count from 1 to %zu; using %zu\n",
                v, MAX_CAPACITY, DEFAULT_CAPACITY);
        return DEFAULT_CAPACITY;
    }
    return (size_t)n;
}

static void stop_at_exit(void) { hcl_trace_stop(); }

static void register_exit(void) { atexit(stop_at_exit); }

HCL_API hcl_status hcl_trace_start(const char *path) {
    static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
    if (!path || !*path)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_trace_start: path is %s", path ? "empty" : "NULL");
    const size_t cap = capacity_from_env();
    pthread_mutex_lock(&lock);
    if (out) {
        hcl_status st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                         "hcl_trace_start: a trace is being written already (to %s); call "
                                         "hcl_trace_stop first",
                                         out_path);
        pthread_mutex_unlock(&lock);
        return st;
    }
    FILE *f = fopen(path, "w");
    rec *buffer = f ? malloc(cap * sizeof *buffer) : NULL;
    char *copy = buffer ? strdup(path) : NULL;
    if (!copy) {
        int err = errno;
        if (f) fclose(f);
        free(buffer);
        pthread_mutex_unlock(&lock);
        return hcl__set_message(f ? HCL_ERROR_OUT_OF_MEMORY : HCL_ERROR_INVALID_ARGUMENT, "hcl_trace_start: %s %s: %s",
                                f ? "no memory for a trace into" : "cannot write", path, strerror(err));
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    origin_ns = (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
    out = f;
    out_path = copy;
    ring = buffer;
    capacity = cap;
    count = 0;
    written = flushes = untimed = 0;
    footer_len = 0;
    device_count = 0;
    generation++;
    host_pid = (uint32_t)getpid();
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    char name[300];
    char exe[256] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    snprintf(name, sizeof name, "%s (pid %u)", n > 0 ? (base ? base + 1 : exe) : "program", host_pid);
    name_track_locked(REC_PROCESS_NAME, host_pid, 0, name);
    flush_locked();
    atomic_store(&hcl__trace_enabled, 1);
    pthread_mutex_unlock(&lock);
    pthread_once(&exit_once, register_exit);
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_trace_stop(void) {
    if (!atomic_exchange(&hcl__trace_enabled, 0)) return HCL_SUCCESS;
    /* the commands still unread: their queues are alive (a released queue left the registry) */
    pthread_mutex_lock(&registry_lock);
    struct hcl__trace_queue *all = registry;
    registry = NULL;
    pthread_mutex_unlock(&registry_lock);
    while (all) {
        struct hcl__trace_queue *tq = all;
        all = tq->next;
        atomic_store(&tq->q->trace, NULL);
        queue_state_free(tq);
    }
    pthread_mutex_lock(&lock);
    flush_locked();
    int failed = ferror(out) != 0;
    failed |= fclose(out) != 0;
    out = NULL;
    hcl_status st = HCL_SUCCESS;
    if (failed) st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_trace_stop: writing %s failed", out_path);
    free(out_path);
    out_path = NULL;
    free(ring);
    ring = NULL;
    for (uint32_t i = 0; i < string_count; i++) free(strings[i]);
    string_count = 0;
    pthread_mutex_unlock(&lock);
    return st;
}

/* HCL_TRACE=FILE: trace from the moment libhcl is loaded. */
__attribute__((constructor)) static void trace_from_environment(void) {
    const char *path = getenv("HCL_TRACE");
    if (path && *path && hcl_trace_start(path) != HCL_SUCCESS)
        hcl__log(HCL_LOG_ERROR, "trace", "HCL_TRACE: %s", hcl_last_message());
}
