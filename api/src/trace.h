/* The tracer's hooks in the core (trace.c). With tracing off each hook is one predictable branch on a global flag:
 * the public calls below run their untraced body directly and no event is asked of a driver that the caller did not
 * ask for. With tracing on (HCL_TRACE=FILE at load, or hcl_trace_start), a public call is a host slice on its
 * thread's track, recorded into that thread's own buffer without a lock; each queued command keeps its native events
 * until the tracer has read its device times (at the queue's finish or release, or when tracing stops), then it is a
 * device slice on its queue's track, with a flow from the call that submitted it. */
#ifndef HCL_TRACE_H
#define HCL_TRACE_H

#include "hcl/hcl.h"

#include <stdatomic.h>
#include <stdint.h>

struct hcl__queue;
struct hcl__event;

/* 1 while a trace is being written (trace.c alone stores it). */
extern atomic_int hcl__trace_enabled __attribute__((visibility("hidden")));

static inline int hcl__trace_on(void) {
    return __builtin_expect(atomic_load_explicit(&hcl__trace_enabled, memory_order_relaxed), 0);
}

#define HCL__TRACE_MAX_ARGS 7

/* A call's arguments as the trace shows them, on its host slice and on the device slice of its command. */
typedef struct hcl__trace_args {
    const char *schema;   /* the integer arguments' names, comma separated ("size,offset"): static, or NULL */
    const char *text_key; /* the name of the one text argument ("kernel", "selector"): static, or NULL */
    const char *text;     /* its value: the tracer's copy */
    int64_t values[HCL__TRACE_MAX_ARGS];
    uint32_t count;
} hcl__trace_args;

/* One public call in progress on this thread (on the caller's stack; calls nest). */
typedef struct hcl__trace_call {
    const char *name; /* "hcl_kernel_launch": static */
    hcl__trace_args args;
    int64_t t0;    /* ns since the trace started */
    uint64_t flow; /* the flow to the device slice of the command this call queued; 0: none yet */
    unsigned gen;  /* the trace the call began in: it is recorded only if that trace still runs at its end */
    struct hcl__trace_call *outer;
} hcl__trace_call;

__attribute__((visibility("hidden"))) void hcl__trace_call_begin(hcl__trace_call *c, const char *name,
                                                                 const char *text_key, const char *text,
                                                                 const char *schema, const int64_t *args,
                                                                 uint32_t nargs);
/* Ends the call begun with hcl__trace_call_begin: records its slice with `status`, and returns `status`. */
__attribute__((visibility("hidden"))) hcl_status hcl__trace_call_end(hcl__trace_call *c, hcl_status status);

/* The body of a traced public call: `return HCL__TRACED(...)` runs `call` (an hcl_status expression) and, when
 * tracing is on, records it as the slice `name` with the text argument (text_key, text: NULL when none) and the
 * integer arguments named in `schema` (the variadic values, converted to int64_t). text and the values are only
 * evaluated when tracing is on. */
#define HCL__TRACED(name, call, text_key, text, schema, ...)                                                           \
    do {                                                                                                               \
        hcl__trace_call hcl__tcall;                                                                                    \
        const int hcl__traced = hcl__trace_on();                                                                       \
        if (hcl__traced) {                                                                                             \
            const int64_t hcl__targs[] = {0, __VA_ARGS__};                                                             \
            hcl__trace_call_begin(&hcl__tcall, name, text_key, text, schema, hcl__targs + 1,                           \
                                  (uint32_t)(sizeof hcl__targs / sizeof hcl__targs[0] - 1));                           \
        }                                                                                                              \
        const hcl_status hcl__status = (call); /* one call site: the body is inlined here */                           \
        return hcl__traced ? hcl__trace_call_end(&hcl__tcall, hcl__status) : hcl__status;                              \
    } while (0)

/* For the body of a hot traced call (launches, transfers, finishes): inlined into its wrapper, so that with tracing off
 * the call costs what it cost before the wrapper, plus the flag's test. */
#define HCL__TRACED_BODY static inline __attribute__((always_inline))

/* Whether a command's native event must be asked of the driver: the caller wants the event, or the tracer will time
 * the command. */
#define HCL__WANT_EVENT(out_event) ((out_event) != NULL || hcl__trace_on())

/* A command just queued on q (tracing on), whose native events are first (its group's first command's, or NULL) and
 * last: the tracer links it to the calling thread's current call and reads its times later. ev: the event object the
 * caller gets, on which the tracer takes a reference (lifetime.c); or NULL, and the tracer owns first and last and
 * gives them back to the driver (the caller wants no event, so no object is made for the tracer alone). */
__attribute__((visibility("hidden"))) void hcl__trace_command(struct hcl__queue *q, struct hcl__event *ev, void *first,
                                                              void *last);
/* The queue's commands completed (hcl_queue_finish): read their device times now. */
__attribute__((visibility("hidden"))) void hcl__trace_queue_idle(struct hcl__queue *q);
/* A queue is destroyed (finished first): read what is pending and drop the tracer's state of it. */
__attribute__((visibility("hidden"))) void hcl__trace_queue_release(struct hcl__queue *q);
/* A new queue (tracing on): pair its device clock with the host clock now, while it is idle. */
__attribute__((visibility("hidden"))) void hcl__trace_queue_created(struct hcl__queue *q);

#endif /* HCL_TRACE_H */
