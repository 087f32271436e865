/* hcl-thread-stress: many threads sharing one device, queue and module, with releases racing with use.
 *
 *   hcl-thread-stress <backend>...   (HCL_STRESS_THREADS, default 12; HCL_STRESS_ITERS, default 20; HCL_STRESS_ROUNDS,
 *                                     default 1: each round starts afresh with a new device, queue and module)
 *
 * Per backend: the main thread opens a device and makes a queue, a module (a user kernel "twice") and a kernel, all
 * shared. Each worker thread then, at once with the others:
 *   - takes its own kernel from the shared module and its own buffers on the shared device;
 *   - opens its own handle of the same device, makes a queue, a buffer, a module and a kernel on it, and releases
 *     the module and the device handle at once: the kernel, queue and buffer keep them alive while the thread uses
 *     them;
 *   - per iteration: a buffer storm (create, write, read back, release), launches of the shared kernel and of its
 *     own on the shared queue, the built-in vecadd on the shared queue, work on its own queue, and an event handed to
 *     the next thread, which waits on it and releases it (events waited on across threads);
 * while the main thread releases the shared module as soon as every worker has its kernel of it (the kernels keep it
 * alive while they launch). Before all that, the process's first HCL calls (device count, open, release of the first
 * backend) are made by all threads at once, so the loader's set-up races too. Every result is checked. Under ThreadSanitizer (tsan-run.sh)
 * the test passes only with no report in HCL code. Exit 0: every backend with a device passed; 1: a failure; 77: no
 * backend had a device. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */
#include "hcl/hcl.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twice_kernel.h"

#define N 256
#define MAX_THREADS 64

typedef struct shared {
    const char *backend;
    hcl_device dev;
    hcl_queue q;
    hcl_module m;
    hcl_kernel k;
    int threads, iters;
    pthread_barrier_t start;
    _Atomic(hcl_event) handoff[MAX_THREADS]; /* slot t: an event thread t made for thread t+1 */
    atomic_int failures;
    atomic_int kernels_taken; /* workers that took their kernel of the shared module (or gave up) */
} shared;

typedef struct worker {
    shared *s;
    int id;
} worker;

static void fail(shared *s, int id, const char *what, hcl_status st) {
    fprintf(stderr, "thread %d on %s: %s: %s: %s\n", id, s->backend, what, hcl_status_name(st), hcl_last_message());
    atomic_fetch_add(&s->failures, 1);
}

#define TRY(what, call)                                                                                                \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        if (st_ != HCL_SUCCESS) {                                                                                      \
            fail(s, id, what, st_);                                                                                    \
            goto out;                                                                                                  \
        }                                                                                                              \
    } while (0)

/* x[i] = scale * (i + seed) expected in out */
static int check(shared *s, int id, const char *what, const float *out, float scale, int seed) {
    for (int i = 0; i < N; i++)
        if (out[i] != scale * (float)(i + seed)) {
            fprintf(stderr, "thread %d on %s: %s: element %d is %g, expected %g\n", id, s->backend, what, i,
                    (double)out[i], (double)(scale * (float)(i + seed)));
            atomic_fetch_add(&s->failures, 1);
            return 0;
        }
    return 1;
}

static hcl_status launch_twice(hcl_queue q, hcl_kernel k, hcl_buffer b) {
    unsigned n = N;
    hcl_arg args[2] = {hcl_arg_buffer(b), hcl_arg_value(&n, sizeof n)};
    return hcl_kernel_launch(q, k, (hcl_dim3){N / 64, 1, 1}, (hcl_dim3){64, 1, 1}, 0, 2, args, 0, NULL, NULL);
}

static void *work(void *arg) {
    worker *w = arg;
    shared *s = w->s;
    const int id = w->id;
    float in[N], in2[N], out[N];
    hcl_kernel own_k = NULL, dev_k = NULL;
    hcl_module dev_m = NULL;
    hcl_buffer a = NULL, b = NULL, c = NULL, own_buf = NULL;
    hcl_device own_dev = NULL;
    hcl_queue own_q = NULL;
    pthread_barrier_wait(&s->start);
    {
        /* every worker's first call, at once, on the fresh shared queue: a marker (the OpenCL driver makes the queue's
         * marker buffer on first use) */
        hcl_event first = NULL;
        TRY("hcl_queue_marker (first)", hcl_queue_marker(s->q, &first));
        TRY("hcl_event_release (first)", hcl_event_release(first));
    }

    hcl_status kst = hcl_kernel_create(s->m, "twice", &own_k);
    atomic_fetch_add(&s->kernels_taken, 1);
    TRY("hcl_kernel_create (own kernel of the shared module)", kst);
    TRY("hcl_buffer_create a", hcl_buffer_create(s->dev, sizeof in, 0, &a));
    TRY("hcl_buffer_create b", hcl_buffer_create(s->dev, sizeof in, 0, &b));
    TRY("hcl_buffer_create c", hcl_buffer_create(s->dev, sizeof in, 0, &c));
    /* its own device reference, released while its queue and buffer still use the device */
    TRY("hcl_device_open (own handle)", hcl_device_open(s->backend, &own_dev));
    TRY("hcl_queue_create (own queue)", hcl_queue_create(own_dev, &own_q));
    TRY("hcl_buffer_create (own device)", hcl_buffer_create(own_dev, sizeof in, 0, &own_buf));
    TRY("hcl_module_create (own device)", hcl_module_create(own_dev, twice_sources, TWICE_SOURCES, &dev_m));
    TRY("hcl_kernel_create (own device)", hcl_kernel_create(dev_m, "twice", &dev_k));
    TRY("hcl_module_release (own device)", hcl_module_release(dev_m));
    dev_m = NULL;
    TRY("hcl_device_release (own handle)", hcl_device_release(own_dev));
    own_dev = NULL;

    for (int it = 0; it < s->iters; it++) {
        const int seed = id * 1000 + it;
        for (int i = 0; i < N; i++) in[i] = (float)(i + seed), in2[i] = (float)(i + seed);
        /* a storm of buffers on the shared device */
        for (int r = 0; r < 3; r++) {
            hcl_buffer t = NULL;
            TRY("hcl_buffer_create (storm)", hcl_buffer_create(s->dev, (size_t)(r + 1) * 1024, 0, &t));
            hcl_status st = hcl_buffer_write(s->q, t, 0, sizeof in, in);
            if (st == HCL_SUCCESS) st = hcl_buffer_read(s->q, t, 0, sizeof out, out);
            hcl_status rs = hcl_buffer_release(t);
            TRY("hcl_buffer_write/read (storm)", st);
            TRY("hcl_buffer_release (storm)", rs);
            check(s, id, "storm round trip", out, 1.0f, seed);
        }
        /* the shared kernel and its own, on the shared queue */
        TRY("hcl_buffer_write a", hcl_buffer_write(s->q, a, 0, sizeof in, in));
        TRY("hcl_kernel_launch (shared kernel)", launch_twice(s->q, s->k, a));
        TRY("hcl_kernel_launch (own kernel)", launch_twice(s->q, own_k, a));
        TRY("hcl_buffer_read a", hcl_buffer_read(s->q, a, 0, sizeof out, out));
        check(s, id, "two launches of twice", out, 4.0f, seed);
        /* the built-in on the shared queue */
        TRY("hcl_buffer_write b", hcl_buffer_write(s->q, b, 0, sizeof in2, in2));
        TRY("hcl_vecadd_f32", hcl_vecadd_f32(s->q, N, b, b, c, NULL));
        TRY("hcl_buffer_read c", hcl_buffer_read(s->q, c, 0, sizeof out, out));
        check(s, id, "vecadd", out, 2.0f, seed);
        /* its own queue on the device whose handle it released */
        TRY("hcl_buffer_write (own queue)", hcl_buffer_write(own_q, own_buf, 0, sizeof in, in));
        TRY("hcl_kernel_launch (own queue)", launch_twice(own_q, dev_k, own_buf));
        TRY("hcl_buffer_read (own queue)", hcl_buffer_read(own_q, own_buf, 0, sizeof out, out));
        check(s, id, "own queue", out, 2.0f, seed);
        /* an event for the next thread; wait on and release the one the previous thread left */
        hcl_event ev = NULL;
        TRY("hcl_queue_marker", hcl_queue_marker(s->q, &ev));
        hcl_event old = atomic_exchange(&s->handoff[id], ev);
        if (old) TRY("hcl_event_release (not taken)", hcl_event_release(old));
        hcl_event theirs = atomic_exchange(&s->handoff[(id + s->threads - 1) % s->threads], NULL);
        if (theirs) {
            hcl_status st = hcl_event_wait(theirs);
            hcl_status rs = hcl_event_release(theirs);
            TRY("hcl_event_wait (another thread's event)", st);
            TRY("hcl_event_release (another thread's event)", rs);
        }
    }
out:
    if (own_buf && hcl_buffer_release(own_buf) != HCL_SUCCESS) fail(s, id, "release own buffer", HCL_ERROR_INTERNAL);
    if (own_q && hcl_queue_release(own_q) != HCL_SUCCESS) fail(s, id, "release own queue", HCL_ERROR_INTERNAL);
    if (dev_k && hcl_kernel_release(dev_k) != HCL_SUCCESS)
        fail(s, id, "release own device's kernel", HCL_ERROR_INTERNAL);
    if (dev_m) hcl_module_release(dev_m);
    if (own_dev) hcl_device_release(own_dev);
    hcl_buffer bufs[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (bufs[i] && hcl_buffer_release(bufs[i]) != HCL_SUCCESS) fail(s, id, "release buffer", HCL_ERROR_INTERNAL);
    if (own_k && hcl_kernel_release(own_k) != HCL_SUCCESS) fail(s, id, "release own kernel", HCL_ERROR_INTERNAL);
    return NULL;
}

/* Returns 0 passed, 1 failed, 77 no device. */
static int stress(const char *backend, int threads, int iters) {
    static shared s;
    memset(&s, 0, sizeof s);
    s.backend = backend;
    s.threads = threads;
    s.iters = iters;
    hcl_status st = hcl_device_open(backend, &s.dev);
    if (st == HCL_ERROR_BACKEND_UNAVAILABLE || st == HCL_ERROR_DEVICE_NOT_FOUND) {
        printf("thread-stress: %s: skipped, no device: %s\n", backend, hcl_last_message());
        return 77;
    }
    if (st != HCL_SUCCESS || (st = hcl_queue_create(s.dev, &s.q)) != HCL_SUCCESS ||
        (st = hcl_module_create(s.dev, twice_sources, TWICE_SOURCES, &s.m)) != HCL_SUCCESS ||
        (st = hcl_kernel_create(s.m, "twice", &s.k)) != HCL_SUCCESS) {
        fprintf(stderr, "thread-stress: %s: setup: %s: %s\n", backend, hcl_status_name(st), hcl_last_message());
        return 1;
    }
    pthread_barrier_init(&s.start, NULL, (unsigned)threads + 1);
    pthread_t tid[MAX_THREADS];
    worker w[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){&s, i};
        pthread_create(&tid[i], NULL, work, &w[i]);
    }
    pthread_barrier_wait(&s.start);
    /* the shared module goes as soon as every worker has its kernel of it, while they launch: the kernels (its
     * own and the shared one) keep it alive */
    while (atomic_load(&s.kernels_taken) < threads) sched_yield();
    if ((st = hcl_module_release(s.m)) != HCL_SUCCESS) fail(&s, -1, "hcl_module_release (shared)", st);
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&s.start);
    for (int i = 0; i < threads; i++) {
        hcl_event ev = atomic_exchange(&s.handoff[i], NULL);
        if (ev && (st = hcl_event_release(ev)) != HCL_SUCCESS) fail(&s, -1, "hcl_event_release (left over)", st);
    }
    if ((st = hcl_kernel_release(s.k)) != HCL_SUCCESS) fail(&s, -1, "hcl_kernel_release (shared)", st);
    if ((st = hcl_queue_finish(s.q)) != HCL_SUCCESS) fail(&s, -1, "hcl_queue_finish (shared)", st);
    if ((st = hcl_queue_release(s.q)) != HCL_SUCCESS) fail(&s, -1, "hcl_queue_release (shared)", st);
    if ((st = hcl_device_release(s.dev)) != HCL_SUCCESS) fail(&s, -1, "hcl_device_release (shared)", st);
    int failures = atomic_load(&s.failures);
    printf("thread-stress: %s: %d threads x %d iterations: %s (%d failures)\n", backend, threads, iters,
           failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}

/* Under AddressSanitizer: LLVM (inside PoCL) gives each thread that runs it an alternate signal stack from malloc, and
 * ASan's thread exit then tries to munmap that stack and dies ("unable to unmap"); ASan's own alternate stacks are
 * not needed here (docs/known-vendor-limits.md). Only ASan builds read this. */
const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__asan_default_options(void) { return "use_sigaltstack=0"; }

/* The process's first HCL calls, from all threads at once: the loader, the backend list and the log level are set
 * up under the race. */
static pthread_barrier_t g_cold;
static void *cold_open(void *arg) {
    const char *backend = arg;
    pthread_barrier_wait(&g_cold);
    hcl_device d = NULL;
    uint32_t n = 0;
    hcl_status st = hcl_device_count(&n);
    if (st == HCL_SUCCESS) st = hcl_device_open(backend, &d);
    if (st == HCL_SUCCESS) st = hcl_device_release(d);
    return (void *)(intptr_t)(st == HCL_SUCCESS || st == HCL_ERROR_BACKEND_UNAVAILABLE ||
                                      st == HCL_ERROR_DEVICE_NOT_FOUND
                                  ? 0
                                  : 1);
}

static int cold_start(const char *backend, int threads) {
    pthread_t tid[MAX_THREADS];
    int bad = 0;
    pthread_barrier_init(&g_cold, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) pthread_create(&tid[i], NULL, cold_open, (void *)backend);
    for (int i = 0; i < threads; i++) {
        void *r = NULL;
        pthread_join(tid[i], &r);
        bad += r != NULL;
    }
    pthread_barrier_destroy(&g_cold);
    if (bad) fprintf(stderr, "thread-stress: %s: %d threads failed the cold start\n", backend, bad);
    return bad;
}

int main(int argc, char **argv) {
    int threads = getenv("HCL_STRESS_THREADS") ? atoi(getenv("HCL_STRESS_THREADS")) : 12;
    int iters = getenv("HCL_STRESS_ITERS") ? atoi(getenv("HCL_STRESS_ITERS")) : 20;
    if (threads < 2 || threads > MAX_THREADS || iters < 1 || argc < 2) {
        fprintf(stderr, "usage: %s <backend>... (HCL_STRESS_THREADS 2..%d, HCL_STRESS_ITERS >= 1)\n", argv[0],
                MAX_THREADS);
        return 2;
    }
    int rounds = getenv("HCL_STRESS_ROUNDS") ? atoi(getenv("HCL_STRESS_ROUNDS")) : 1;
    int ran = 0, failed = cold_start(argv[1], threads) != 0;
    for (int round = 0; round < rounds; round++)
        for (int i = 1; i < argc; i++) {
            int r = stress(argv[i], threads, iters);
            if (r == 0) ran++;
            if (r == 1) ran++, failed++;
        }
    return failed ? 1 : ran ? 0 : 77;
}
