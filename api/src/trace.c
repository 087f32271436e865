/* The tracer: HCL_TRACE=FILE (read once when libhcl loads) or hcl_trace_start write a Chrome / Perfetto trace (the
 * Trace Event Format: {"traceEvents": [...]}, times in microseconds).
 *
 * - Host slices ("X", cat "api"): one per traced public call, on a track per OS thread of the program's own pid, with
 *   the call's key arguments and the status it returned (trace.h: HCL__TRACED).
 * - Device slices ("X", cat "device"): one per queued command, on a track per queue ("queue N") of a process per
 *   device ("<backend>:<index> <name>"), from the device times of the command's event. The core asks the driver for
 *   an event of every command while tracing (HCL__WANT_EVENT); when the caller did not ask for the event too, the
 *   core makes no event object of it and the tracer owns the driver's native events outright (event.c). The tracer
 *   keeps them in a pending node (recycled per queue, so no allocation per command) until it reads their times:
 *   when the queue is finished or released, when tracing stops, or (waiting for the oldest) when a queue has more
 *   than PENDING_MAX commands unread.
 * - Flows ("s" in the call's slice, "f" bound to the device slice, one id) from each call to its command.
 *
 * Clock alignment: the driver ABI gives device time only as differences (event_elapsed). So each queue gets an anchor:
 * on the idle queue the tracer takes the host clock, queues a marker, waits for it and takes the host clock again;
 * the marker's device instant is taken to be the midpoint of those two host times, give or take half their
 * difference (each device slice carries that as args.clock_err_us). A command's device end is then
 * anchor + elapsed(marker, command) and its start that minus elapsed(command, command). The anchor is taken again at
 * a finish when it is more than a second old, and at the first command of each trace, so device clock drift and the
 * float milliseconds of CUDA's elapsed time stay small.
 *
 * Recording: each thread appends its records to a buffer of its own (a ring of HCL_TRACE_EVENTS records, default
 * 1 << 16, 152 bytes each: the capacity is per thread) without taking a lock: only its thread writes records into
 * it, and only the writer (whoever holds `lock`) takes them out. A thread's buffer is made and put on the list of
 * threads the first time the thread records (the one time the hot path takes `lock`), and is handed back by a
 * pthread key's destructor when the thread exits: its records are written to the file then, and the buffer freed.
 * The writer formats and writes out every thread's records at hcl_trace_stop, at exit, and when a thread finds its
 * own buffer full (that thread writes them all, inside the call that filled it: an "hcl_trace_write" slice shows the
 * cost). Each record carries the trace it belongs to (`generation`): one appended by a call that raced a stop is
 * dropped by the next write, never written into a later trace. The file is valid JSON after every write: each write
 * seeks back over the closing footer, appends the records and writes the footer again (with counts in
 * "otherData"). Records may reach the file out of time order (each thread's in order); the format allows that.
 *
 * Texts (kernel names, selectors, track names) are interned once per process (at most STRINGS_MAX distinct, later
 * ones read "...") and kept for its life, so a record never points at freed text; each thread keeps a small cache of
 * the texts it interned, so a launch of a known kernel takes no lock for its name.
 *
 * Locks, in the order they may be taken: registry_lock, a queue's lock, names_lock, lock. */
#define _GNU_SOURCE /* syscall(SYS_gettid), strdup, readlink */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CAPACITY ((size_t)1 << 14)
#define MAX_CAPACITY ((size_t)1 << 26)
#define PENDING_MAX 4096
#define STRINGS_MAX 4096        /* distinct texts kept (kernel names, selectors, track names); later ones read "..." */
#define STRING_SLOTS 8192       /* the intern table: open addressing, at most half full */
#define CACHE_SLOTS 64          /* a thread's cache of texts it interned */
#define DEVICES_MAX 256         /* device track groups; more devices share the last */
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
    uint8_t gen; /* the low bits of the trace's generation: a record of an earlier trace is dropped at the write */
    uint32_t pid, tid;
    int64_t ts, dur;        /* ns since the trace started */
    int64_t aux;            /* REC_API: the status; REC_DEVICE: the clock alignment's error in ns */
    uint64_t id;            /* flows; REC_DEVICE: the flow it ends (0: none), written after the slice */
    const char *name, *api; /* static or interned; api: the call that queued a device slice's command */
    hcl__trace_args args;   /* REC_API, REC_DEVICE; REC_*_NAME: the name in args.text */
} rec;
_Static_assert(sizeof(rec) <= 152, "the documented size of a trace record (README: HCL_TRACE_EVENTS)");

/* One thread's records: a ring that only its thread appends to and only the writer (holding `lock`) takes from. */
typedef struct tbuf {
    rec *recs;
    size_t cap;         /* records in recs (changed only under `lock`, by the owner) */
    atomic_size_t head; /* records appended so far: stored by the owner (release) */
    atomic_size_t tail; /* records taken so far: stored under `lock` (release) */
    size_t slot;        /* head % cap: where the owner appends next */
    unsigned named;     /* the generation whose trace has this thread's track named (owner) */
    uint32_t tid;       /* the track, for the thread's life */
    long os_tid;        /* for the track's name */
    struct tbuf *next;  /* the list of threads (`lock`) */
} tbuf;

/* A command queued but not yet read (recycled through its queue's spare list). */
typedef struct pending {
    struct pending *next;
    hcl__event *ev;     /* the event object, referenced by the tracer; NULL when the tracer owns the natives */
    void *first, *last; /* the native events: the command's group's first (or NULL) and last */
    const char *name, *api;
    hcl__trace_args args;
    uint64_t flow;
} pending;

/* The tracer's state of one queue (hcl__queue.trace): made at the queue's first traced use, freed with the queue. */
struct hcl__trace_queue {
    pthread_mutex_t lock; /* guards the fields below */
    hcl__queue *q;
    unsigned gen; /* the trace whose commands it records; 0: none (before the first, and after a stop) */
    uint32_t pid, tid;
    void *anchor_event; /* the marker (native) */
    int64_t anchor_ns, anchor_err_ns, anchor_taken_ns;
    int anchored;
    pending *head, *tail, *spare;
    uint32_t count;
    struct hcl__trace_queue *next; /* the registry */
};

/* ---- the trace file and the list of threads: guarded by lock ---- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static char *out_path;
static size_t capacity; /* of each thread's buffer, for this trace */
static long footer_len;
static uint64_t written, flushes;
static tbuf *threads;
static char obuf[1 << 16]; /* the JSON being written */
static size_t olen;

/* ---- read on the hot path without a lock ---- */
static atomic_uint generation;    /* one per trace started: stored under lock */
static _Atomic int64_t origin_ns; /* CLOCK_MONOTONIC at the start */
static atomic_uint host_pid;
static atomic_ullong untimed;
static atomic_uint next_thread = 1, next_queue = 1;
static atomic_ullong next_flow = 1;

/* ---- interned texts and device track groups: guarded by names_lock; kept for the process's life ---- */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static char *strings[STRING_SLOTS];
static uint32_t string_count;
static const char *device_keys[DEVICES_MAX]; /* interned: the device's track group is DEVICE_PID_BASE + its index */
static unsigned device_named[DEVICES_MAX];   /* the generation whose trace has the group named */
static uint32_t device_count;

/* ---- the queues: guarded by registry_lock ---- */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hcl__trace_queue *registry;

/* ---- this thread's ---- */
static _Thread_local hcl__trace_call *current;
static _Thread_local tbuf *self;
static _Thread_local struct { const char *key, *copy; } cache[CACHE_SLOTS];

static pthread_key_t thread_key;
static int thread_key_made;

/* Nanoseconds since the trace started. */
static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec - atomic_load_explicit(&origin_ns, memory_order_relaxed);
}

static unsigned current_generation(void) { return atomic_load_explicit(&generation, memory_order_acquire); }

/* ---- texts ---- */
/* A lasting copy of s (names_lock held); equal texts share one copy, owned by the table for the process's life. */
static const char *intern_locked(const char *s) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 16777619u;
    for (uint32_t i = h % STRING_SLOTS;; i = (i + 1) % STRING_SLOTS) {
        if (!strings[i]) {
            if (string_count == STRINGS_MAX) return "...";
            char *copy = strdup(s);
            if (!copy) return "...";
            string_count++;
            return strings[i] = copy;
        }
        if (strcmp(strings[i], s) == 0) return strings[i];
    }
}

/* intern_locked, taking names_lock. */
static const char *intern(const char *s) {
    pthread_mutex_lock(&names_lock);
    const char *copy = intern_locked(s);
    pthread_mutex_unlock(&names_lock);
    return copy;
}

/* intern through this thread's cache: a text met again at the same address (a kernel's name) takes no lock. The
 * cached copy is compared, so an address reused for another text is interned anew. */
static const char *intern_cached(const char *s) {
    const uintptr_t a = (uintptr_t)s;
    const unsigned i = (unsigned)((a >> 3) ^ (a >> 10)) & (CACHE_SLOTS - 1);
    if (cache[i].key == s && strcmp(cache[i].copy, s) == 0) return cache[i].copy;
    const char *copy = intern(s);
    cache[i].key = s;
    cache[i].copy = copy;
    return copy;
}

/* ---- writing JSON into obuf (lock held) ---- */
static void o_flush(void) {
    if (olen && out) fwrite(obuf, 1, olen, out);
    olen = 0;
}

/* n bytes; short ones (literals: O_LIT) are copied inline. */
static inline void o_raw(const char *p, size_t n) {
    if (__builtin_expect(n <= sizeof obuf - olen, 1)) {
        memcpy(obuf + olen, p, n);
        olen += n;
        return;
    }
    while (n) {
        if (olen == sizeof obuf) o_flush();
        const size_t room = sizeof obuf - olen, k = n < room ? n : room;
        memcpy(obuf + olen, p, k);
        olen += k, p += k, n -= k;
    }
}

#define O_LIT(s) o_raw(s, sizeof(s) - 1) /* a string literal */

static void o_str(const char *s) { o_raw(s, strlen(s)); }

static inline void o_ch(char c) {
    if (__builtin_expect(olen == sizeof obuf, 0)) o_flush();
    obuf[olen++] = c;
}

/* The decimal digits of v, ending at end; returns where they start. */
static char *digits(char *end, uint64_t v) {
    do *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

static void o_u64(uint64_t v) {
    char t[24], *const end = t + sizeof t;
    const char *p = digits(end, v);
    o_raw(p, (size_t)(end - p));
}

static void o_i64(int64_t v) {
    char t[24], *const end = t + sizeof t;
    char *p = digits(end, v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v);
    if (v < 0) *--p = '-';
    o_raw(p, (size_t)(end - p));
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static void o_us(int64_t ns) {
    const uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    char t[32], *const end = t + sizeof t;
    const unsigned f = (unsigned)(a % 1000);
    end[-1] = (char)('0' + f % 10);
    end[-2] = (char)('0' + f / 10 % 10);
    end[-3] = (char)('0' + f / 100);
    end[-4] = '.';
    char *p = digits(end - 4, a / 1000);
    if (ns < 0) *--p = '-';
    o_raw(p, (size_t)(end - p));
}

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
static void o_string(const char *s) {
    static const char hex[] = "0123456789abcdef";
    o_ch('"');
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        const unsigned char *run = p; /* printable ASCII that needs no escape: copied as one run */
        while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') p++;
        if (p != run) o_raw((const char *)run, (size_t)(p - run));
        if (!*p) break;
        const unsigned char c = *p;
        const int n = utf8_length(p);
        if (n < 0) {
            O_LIT("\\ufffd");
        } else if (c == '"' || c == '\\') {
            o_ch('\\');
            o_ch((char)c);
        } else if (c < 0x20) {
            O_LIT("\\u00");
            o_ch(hex[c >> 4]);
            o_ch(hex[c & 15]);
        } else {
            o_raw((const char *)p, (size_t)n);
        }
        p += n < 0 ? -n : n;
    }
    o_ch('"');
}

/* The integer arguments named by the comma-separated schema. */
static void o_args(const hcl__trace_args *a) {
    const char *key = a->schema;
    for (uint32_t i = 0; key && i < a->count; i++) {
        const char *end = strchr(key, ',');
        const size_t len = end ? (size_t)(end - key) : strlen(key);
        O_LIT(",\"");
        o_raw(key, len);
        O_LIT("\":");
        if (len >= 4 && memcmp(key + len - 4, "type", 4) == 0) { /* an hcl_dtype: its name */
            o_ch('"');
            o_str(hcl_dtype_name((hcl_dtype)a->values[i]));
            o_ch('"');
        } else {
            o_i64(a->values[i]);
        }
        if (!end) break;
        key = end + 1;
    }
    if (a->text_key) {
        O_LIT(",\"");
        o_str(a->text_key);
        O_LIT("\":");
        o_string(a->text ? a->text : "(null)");
    }
}

/* ts and dur of a slice. */
static void o_span(const rec *r) {
    O_LIT(",\"ts\":");
    o_us(r->ts);
    O_LIT(",\"dur\":");
    o_us(r->dur);
}

/* One record as a JSON object. */
static void o_rec(const rec *r) {
    static const char ph[] = "XXsfMMX";
    O_LIT("{\"ph\":\"");
    o_ch(ph[r->kind]);
    O_LIT("\",\"pid\":");
    o_u64(r->pid);
    O_LIT(",\"tid\":");
    o_u64(r->tid);
    O_LIT(",\"name\":");
    switch ((rec_kind)r->kind) {
    case REC_WRITE:
        O_LIT("\"hcl_trace_write\",\"cat\":\"trace\"");
        o_span(r);
        O_LIT(",\"args\":{\"records\":");
        o_i64(r->aux);
        o_ch('}');
        break;
    case REC_API:
    case REC_DEVICE:
        o_string(r->name);
        o_str(r->kind == REC_API ? ",\"cat\":\"api\"" : ",\"cat\":\"device\"");
        o_span(r);
        O_LIT(",\"args\":{");
        if (r->kind == REC_API) {
            O_LIT("\"status\":\"");
            o_str(hcl_status_name((hcl_status)r->aux));
            o_ch('"');
        } else {
            O_LIT("\"api\":");
            o_string(r->api);
            O_LIT(",\"clock_err_us\":");
            o_us(r->aux);
        }
        o_args(&r->args);
        o_ch('}');
        break;
    case REC_FLOW_START:
    case REC_FLOW_END:
        O_LIT("\"submit\",\"cat\":\"flow\",\"ts\":");
        o_us(r->ts);
        O_LIT(",\"id\":");
        o_u64(r->id);
        if (r->kind == REC_FLOW_END) O_LIT(",\"bp\":\"e\"");
        break;
    case REC_PROCESS_NAME:
    case REC_THREAD_NAME:
        o_str(r->kind == REC_PROCESS_NAME ? "\"process_name\"" : "\"thread_name\"");
        O_LIT(",\"args\":{\"name\":");
        o_string(r->args.text);
        o_ch('}');
        break;
    }
    o_ch('}');
}

/* Take the records out of one thread's buffer (lock held): those of the trace being written go to the file, the rest
 * (of an earlier trace, or any when none is being written) are dropped. */
static void take_locked(tbuf *b) {
    const size_t h = atomic_load_explicit(&b->head, memory_order_acquire);
    const uint8_t gen = (uint8_t)atomic_load_explicit(&generation, memory_order_relaxed);
    for (size_t t = atomic_load_explicit(&b->tail, memory_order_relaxed); out && t != h; t++) {
        const rec *r = &b->recs[t % b->cap];
        if (r->gen != gen) continue;
        o_str(written++ ? ",\n" : "\n");
        o_rec(r);
        if (r->kind == REC_DEVICE && r->id) { /* the end of the flow from the call that queued the command */
            rec f;
            memset(&f, 0, sizeof f);
            f.kind = REC_FLOW_END;
            f.pid = r->pid;
            f.tid = r->tid;
            f.ts = r->ts;
            f.id = r->id;
            written++;
            o_str(",\n");
            o_rec(&f);
        }
    }
    atomic_store_explicit(&b->tail, h, memory_order_release);
}

/* Write the records of one thread (only), or of every thread (only NULL), and the footer (lock held). The footer
 * closes the array and the object, so the file is a whole JSON document after every write; the next write starts
 * where the footer started. Without a trace being written the records are dropped. */
static void write_locked(tbuf *only) {
    if (out && footer_len && fseek(out, -footer_len, SEEK_END) != 0) footer_len = 0;
    for (tbuf *b = only ? only : threads; b; b = only ? NULL : b->next) take_locked(b);
    if (!out) return;
    o_flush();
    flushes++;
    char footer[256];
    const int n =
        snprintf(footer, sizeof footer,
                 "\n],\"otherData\":{\"hcl_version\":\"%s\",\"capacity\":%zu,\"flushes\":%llu,\"events\":%llu,"
                 "\"commands_untimed\":%llu}}\n",
                 hcl_version(NULL, NULL, NULL), capacity, (unsigned long long)flushes, (unsigned long long)written,
                 (unsigned long long)atomic_load(&untimed));
    footer_len = n > 0 ? n : 0;
    fwrite(footer, 1, (size_t)footer_len, out);
    fflush(out);
}

/* ---- this thread's buffer ---- */
/* A thread exits (its key's destructor): its records go to the file, and its buffer leaves the list and is freed. */
static void thread_gone(void *arg) {
    tbuf *b = arg;
    pthread_mutex_lock(&lock);
    write_locked(b);
    for (tbuf **p = &threads; *p; p = &(*p)->next)
        if (*p == b) {
            *p = b->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    free(b->recs);
    free(b);
    if (self == b) self = NULL;
}

static void make_thread_key(void) { thread_key_made = pthread_key_create(&thread_key, thread_gone) == 0; }

/* libhcl unloaded (dlclose): the key goes, so a thread that exits later does not call into unmapped code (its buffer
 * is left, as the process ends or the library is gone). */
__attribute__((destructor)) static void drop_thread_key(void) {
    if (thread_key_made) pthread_key_delete(thread_key);
    thread_key_made = 0;
}

static rec *append(tbuf *b, rec_kind kind, unsigned gen);
static void commit(tbuf *b);

/* A track's name record. */
static void name_track(tbuf *b, unsigned gen, rec_kind kind, uint32_t pid, uint32_t tid, const char *name) {
    rec *r = append(b, kind, gen);
    r->pid = pid;
    r->tid = tid;
    r->args.text = name;
    commit(b);
}

/* This thread's buffer, ready for records of trace `gen`, or NULL (no memory, or that trace is over): the first
 * time, it is made and put on the list; the first time in a trace, it is sized to that trace's capacity (what it
 * still holds is of an earlier trace: dropped) and the thread's track is named. */
static tbuf *thread_join(unsigned gen) {
    static pthread_once_t key_once = PTHREAD_ONCE_INIT;
    tbuf *b = self;
    if (!b) {
        pthread_once(&key_once, make_thread_key);
        if (!(b = calloc(1, sizeof *b))) return NULL;
        b->tid = atomic_fetch_add(&next_thread, 1);
        b->os_tid = syscall(SYS_gettid);
        pthread_mutex_lock(&lock);
        b->next = threads;
        threads = b;
        pthread_mutex_unlock(&lock);
        if (thread_key_made) pthread_setspecific(thread_key, b);
        self = b;
    }
    pthread_mutex_lock(&lock);
    const int live = out && gen == atomic_load_explicit(&generation, memory_order_relaxed);
    if (live) {
        if (b->cap != capacity) {
            rec *recs = malloc(capacity * sizeof *recs);
            if (recs) {
                /* its pages are touched here, not by the calls traced (a page fault each 27 records otherwise, the
                 * largest part of a traced launch on the host backend): written through a volatile pointer, as a
                 * malloc and memset to zero is compiled to calloc, which leaves fresh pages untouched */
                volatile char *page = (volatile char *)recs;
                for (size_t at = 0; at < capacity * sizeof *recs; at += 4096) page[at] = 0;
                free(b->recs);
                b->recs = recs;
                b->cap = capacity;
                atomic_store(&b->head, 0);
                b->slot = 0;
            }
        }
        atomic_store(&b->tail, atomic_load(&b->head)); /* what is left is of earlier traces */
    }
    pthread_mutex_unlock(&lock);
    if (!live || !b->recs) return NULL;
    b->named = gen;
    char name[64];
    if (b->os_tid == (long)getpid())
        snprintf(name, sizeof name, "main thread (tid %ld)", b->os_tid);
    else
        snprintf(name, sizeof name, "thread %u (tid %ld)", b->tid, b->os_tid);
    name_track(b, gen, REC_THREAD_NAME, atomic_load_explicit(&host_pid, memory_order_relaxed), b->tid, intern(name));
    return b;
}

/* This thread's buffer for records of trace `gen` (see thread_join), without a lock once joined. */
static tbuf *mine(unsigned gen) {
    tbuf *b = self;
    return __builtin_expect(b && b->named == gen, 1) ? b : thread_join(gen);
}

/* Write every thread's records out because this thread's buffer is full, and record that as a slice. */
static void write_full(tbuf *b, unsigned gen) {
    const int64_t t0 = now_ns();
    pthread_mutex_lock(&lock);
    const int traced = out != NULL;
    write_locked(NULL);
    pthread_mutex_unlock(&lock);
    if (traced) {
        rec *w = &b->recs[b->slot];
        memset(w, 0, sizeof *w);
        w->kind = REC_WRITE;
        w->gen = (uint8_t)gen;
        w->pid = atomic_load_explicit(&host_pid, memory_order_relaxed);
        w->tid = b->tid;
        w->ts = t0;
        w->dur = now_ns() - t0;
        w->aux = (int64_t)b->cap;
        commit(b);
    }
    if (b->cap == 1) { /* the write's own record filled it */
        pthread_mutex_lock(&lock);
        write_locked(NULL);
        pthread_mutex_unlock(&lock);
    }
}

/* The next record of this thread's buffer b, with its kind and trace set (owner only): the caller sets the fields
 * that o_rec writes for that kind (not zeroed: a launch's records are written at full speed), then commit() publishes
 * it. A full buffer is written out first. */
static rec *append(tbuf *b, rec_kind kind, unsigned gen) {
    const size_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
    if (h - atomic_load_explicit(&b->tail, memory_order_acquire) >= b->cap) write_full(b, gen);
    rec *r = &b->recs[b->slot];
    r->kind = (uint8_t)kind;
    r->gen = (uint8_t)gen;
    return r;
}

/* Publish the record append() gave: from here the writer may take it. */
static void commit(tbuf *b) {
    if (++b->slot == b->cap) b->slot = 0;
    atomic_store_explicit(&b->head, atomic_load_explicit(&b->head, memory_order_relaxed) + 1, memory_order_release);
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
    c->gen = current_generation();
    if (text_key) c->args.text = intern_cached(text ? text : "(null)");
    c->outer = current;
    current = c;
    c->t0 = now_ns();
}

hcl_status hcl__trace_call_end(hcl__trace_call *c, hcl_status status) {
    const int64_t t1 = now_ns();
    current = c->outer;
    tbuf *b;
    if (!hcl__trace_on() || c->gen != current_generation() || !(b = mine(c->gen))) return status;
    rec *r = append(b, REC_API, c->gen);
    r->pid = atomic_load_explicit(&host_pid, memory_order_relaxed);
    r->tid = b->tid;
    r->ts = c->t0;
    r->dur = t1 - c->t0;
    r->aux = status;
    r->name = c->name;
    r->args = c->args;
    commit(b);
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

/* The device's track group in trace gen: named (from this thread's buffer b) the first time in that trace. */
static uint32_t device_pid(const hcl__device *dev, tbuf *b, unsigned gen) {
    char key[HCL_NAME_MAX + 64];
    snprintf(key, sizeof key, "%s:%u %s", dev->backend->name, dev->index, dev->info.name);
    pthread_mutex_lock(&names_lock);
    const char *k = intern_locked(key);
    uint32_t i = 0;
    while (i < device_count && device_keys[i] != k) i++;
    if (i == device_count) {
        i = device_count < DEVICES_MAX ? device_count++ : DEVICES_MAX - 1;
        device_keys[i] = k;
    }
    if (device_named[i] != gen) { /* recorded under names_lock: a stop's write, which takes it first, sees it */
        device_named[i] = gen;
        name_track(b, gen, REC_PROCESS_NAME, DEVICE_PID_BASE + i, 0, k);
    }
    pthread_mutex_unlock(&names_lock);
    return DEVICE_PID_BASE + i;
}

/* The tracer's state of q, made and put in the registry at the queue's first traced use; NULL without memory. It
 * lives as long as the queue (hcl__trace_queue_release frees it), so a thread that holds it cannot see it freed. */
static struct hcl__trace_queue *queue_state(hcl__queue *q) {
    struct hcl__trace_queue *tq = atomic_load_explicit(&q->trace, memory_order_acquire);
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
    pthread_mutex_lock(&registry_lock);
    tq->next = registry;
    registry = tq;
    pthread_mutex_unlock(&registry_lock);
    return tq;
}

/* Make tq record the commands of trace gen (queue lock held; b: this thread's buffer in that trace): its track and
 * its device's named, its clock anchored. Nothing when that trace is over. */
static void queue_join(struct hcl__trace_queue *tq, tbuf *b, unsigned gen) {
    if (tq->gen == gen || !hcl__trace_on() || current_generation() != gen) return;
    tq->pid = device_pid(tq->q->dev, b, gen);
    char name[48];
    snprintf(name, sizeof name, "queue %u", tq->tid);
    name_track(b, gen, REC_THREAD_NAME, tq->pid, tq->tid, intern(name));
    tq->anchored = 0;
    anchor(tq);
    tq->gen = gen;
}

/* Give the command's events back: to the event object, or to the driver when the tracer owned the natives. */
static void pending_release(hcl__device *dev, hcl__event *ev, void *first, void *last) {
    if (ev)
        hcl__event_unref(ev);
    else
        hcl__event_natives_release(dev, first, last);
}

/* Read the device times of the oldest n pending commands and record their slices in this thread's buffer (queue
 * lock held); their events are given back, their nodes kept for reuse. */
static void resolve(struct hcl__trace_queue *tq, uint32_t n) {
    if (!tq->head) return;
    hcl__device *dev = tq->q->dev;
    const hcl_driver_table *drv = dev->drv;
    tbuf *b = tq->gen ? mine(tq->gen) : NULL;
    while (tq->head && n--) {
        pending *p = tq->head;
        tq->head = p->next;
        if (!tq->head) tq->tail = NULL;
        tq->count--;
        double to_end = 0, duration = 0;
        int ok = b && tq->anchored && drv->event_elapsed(tq->anchor_event, p->last, &to_end) == HCL_SUCCESS &&
                 drv->event_elapsed(p->first ? p->first : p->last, p->last, &duration) == HCL_SUCCESS;
        if (ok) {
            const int64_t end = tq->anchor_ns + (int64_t)(to_end * 1e9);
            const int64_t dur = (int64_t)(duration * 1e9);
            rec *r = append(b, REC_DEVICE, tq->gen);
            r->pid = tq->pid;
            r->tid = tq->tid;
            r->ts = end - dur;
            r->dur = dur;
            r->aux = tq->anchor_err_ns;
            r->name = p->name;
            r->api = p->api;
            r->args = p->args;
            r->id = p->flow; /* its flow's end ("f" at the slice's start) is written from this record too */
            commit(b);
        } else if (b) {
            atomic_fetch_add(&untimed, 1);
        }
        pending_release(dev, p->ev, p->first, p->last);
        p->next = tq->spare;
        tq->spare = p;
    }
}

void hcl__trace_command(hcl__queue *q, hcl__event *ev, void *first, void *last) {
    hcl__trace_call *c = current;
    const unsigned gen = current_generation();
    struct hcl__trace_queue *tq = queue_state(q);
    tbuf *b = tq ? mine(gen) : NULL;
    pending *p = NULL;
    if (b) {
        pthread_mutex_lock(&tq->lock);
        queue_join(tq, b, gen);
        /* under the queue's lock: a stop either read the queue before (then its state is of no trace) or reads
         * this command after */
        if (tq->gen == gen && hcl__trace_on() && ((p = tq->spare) || (p = malloc(sizeof *p)))) {
            if (p == tq->spare) tq->spare = p->next;
            p->next = NULL;
            p->ev = ev;
            p->first = first;
            p->last = last;
            p->flow = 0;
            if (c) {
                /* the device slice is named for what ran: a kernel's name, else the call without its "hcl_" */
                p->name = c->args.text && c->args.text_key && strcmp(c->args.text_key, "kernel") == 0 ? c->args.text
                          : strncmp(c->name, "hcl_", 4) == 0                                          ? c->name + 4
                                                                                                      : c->name;
                p->api = c->name;
                p->args = c->args;
                if (c->gen == gen && !c->flow) {
                    c->flow = atomic_fetch_add(&next_flow, 1);
                    rec *s = append(b, REC_FLOW_START, gen);
                    s->pid = atomic_load_explicit(&host_pid, memory_order_relaxed);
                    s->tid = b->tid;
                    s->ts = c->t0; /* inside the call's slice, which is the innermost there: the flow binds to it */
                    s->id = c->flow;
                    commit(b);
                    p->flow = c->flow;
                }
            } else {
                p->name = p->api = "command";
                memset(&p->args, 0, sizeof p->args);
            }
            if (ev) hcl__event_ref(ev);
            if (tq->tail)
                tq->tail->next = p;
            else
                tq->head = p;
            tq->tail = p;
            if (++tq->count > PENDING_MAX) resolve(tq, PENDING_MAX / 2); /* waits for the oldest: bounded memory */
        }
        pthread_mutex_unlock(&tq->lock);
    }
    if (!p && !ev) hcl__event_natives_release(q->dev, first, last); /* not kept: the tracer owned them */
}

void hcl__trace_queue_created(hcl__queue *q) {
    const unsigned gen = current_generation();
    struct hcl__trace_queue *tq = queue_state(q);
    tbuf *b = tq ? mine(gen) : NULL;
    if (!b) return;
    pthread_mutex_lock(&tq->lock);
    queue_join(tq, b, gen);
    pthread_mutex_unlock(&tq->lock);
}

void hcl__trace_queue_idle(hcl__queue *q) {
    struct hcl__trace_queue *tq = atomic_load_explicit(&q->trace, memory_order_acquire);
    if (!tq) return;
    pthread_mutex_lock(&tq->lock);
    resolve(tq, UINT32_MAX);
    if (tq->gen && hcl__trace_on() && now_ns() - tq->anchor_taken_ns > ANCHOR_MAX_AGE_NS) anchor(tq);
    pthread_mutex_unlock(&tq->lock);
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
    /* no other thread uses the queue now: read what is pending, free the state */
    resolve(tq, UINT32_MAX);
    if (tq->anchor_event) q->dev->drv->event_release(tq->anchor_event);
    while (tq->spare) {
        pending *p = tq->spare;
        tq->spare = p->next;
        free(p);
    }
    pthread_mutex_destroy(&tq->lock);
    free(tq);
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
    char *copy = f ? strdup(path) : NULL;
    if (!copy) {
        int err = errno;
        if (f) fclose(f);
        pthread_mutex_unlock(&lock);
        return hcl__set_message(f ? HCL_ERROR_OUT_OF_MEMORY : HCL_ERROR_INVALID_ARGUMENT, "hcl_trace_start: %s %s: %s",
                                f ? "no memory for a trace into" : "cannot write", path, strerror(err));
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    atomic_store(&origin_ns, (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec);
    out = f;
    out_path = copy;
    capacity = cap;
    written = flushes = 0;
    atomic_store(&untimed, 0);
    footer_len = 0;
    olen = 0;
    const uint32_t pid = (uint32_t)getpid();
    atomic_store(&host_pid, pid);
    unsigned gen = atomic_load(&generation) + 1;
    if (!gen) gen = 1; /* 0 is no trace */
    atomic_store_explicit(&generation, gen, memory_order_release);
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    atomic_store(&hcl__trace_enabled, 1);
    pthread_mutex_unlock(&lock);
    char name[300];
    char exe[256] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    snprintf(name, sizeof name, "%s (pid %u)", n > 0 ? (base ? base + 1 : exe) : "program", pid);
    tbuf *b = mine(gen);
    if (b) name_track(b, gen, REC_PROCESS_NAME, pid, 0, intern(name));
    pthread_mutex_lock(&lock);
    if (out == f) write_locked(NULL); /* the file is JSON from the start */
    pthread_mutex_unlock(&lock);
    pthread_once(&exit_once, register_exit);
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_trace_stop(void) {
    if (!atomic_exchange(&hcl__trace_enabled, 0)) return HCL_SUCCESS;
    /* the commands still unread; each queue's state then belongs to no trace until its next traced command */
    pthread_mutex_lock(&registry_lock);
    for (struct hcl__trace_queue *tq = registry; tq; tq = tq->next) {
        pthread_mutex_lock(&tq->lock);
        resolve(tq, UINT32_MAX);
        tq->gen = 0;
        pthread_mutex_unlock(&tq->lock);
    }
    pthread_mutex_unlock(&registry_lock);
    /* a device's name recorded under names_lock before this is in its thread's buffer now */
    pthread_mutex_lock(&names_lock);
    pthread_mutex_unlock(&names_lock);
    pthread_mutex_lock(&lock);
    write_locked(NULL);
    int failed = ferror(out) != 0;
    failed |= fclose(out) != 0;
    out = NULL;
    hcl_status st = HCL_SUCCESS;
    if (failed) st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_trace_stop: writing %s failed", out_path);
    free(out_path);
    out_path = NULL;
    pthread_mutex_unlock(&lock);
    return st;
}

/* HCL_TRACE=FILE: trace from the moment libhcl is loaded. */
__attribute__((constructor)) static void trace_from_environment(void) {
    const char *path = getenv("HCL_TRACE");
    if (path && *path && hcl_trace_start(path) != HCL_SUCCESS)
        hcl__log(HCL_LOG_ERROR, "trace", "HCL_TRACE: %s", hcl_last_message());
}
