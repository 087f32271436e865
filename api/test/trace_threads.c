/* trace_threads DIR: the tracer under threads, on the host backend, for check_trace.py's "mt" case (run under ASan
 * and TSan too). Tracing is started and stopped with hcl_trace_start / hcl_trace_stop, from the main thread and from
 * other threads, while worker threads launch.
 *
 * Phase "exact" (DIR/exact.json): one trace around WORKERS threads, each with its own queue, launching a host kernel
 * (a finish every 16 launches); worker 0 launches fewer and exits while the others still launch (its buffer is handed
 * back at its exit), and a thread other than the main one stops the trace. Every call is inside the trace, so the
 * checker counts exactly: prints "exact_launches N".
 * Phase "restart" (DIR/restart-R.json, R = 0..ROUNDS-1): the workers launch without pause while the main thread
 * starts and stops traces (every other stop from a helper thread), and a short-lived thread launches and exits inside
 * each trace. The counts are not known in advance; the checker checks each file's structure.
 * Exit status: 0 done, 1 a call failed. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "hcl/hcl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WORKERS = 4, LAUNCHES = 400, EARLY = 60, ROUNDS = 4 };

static void host_touch(const hcl_host_launch *launch, void *const *args) {
    int *x = *(int *const *)args[0];
    x[launch->group_id.x] += 1;
}

static const hcl_host_function host_table[] = {{"touch", host_touch}};

static hcl_device dev;
static hcl_kernel kernel;
static atomic_int failed, go_on, early_gone;
static char dir[512];

/* Note a failed call (not fatal: the threads finish, the main thread reports). */
static int ok(hcl_status st, const char *what) {
    if (st == HCL_SUCCESS) return 1;
    fprintf(stderr, "trace_threads: %s: %s: %s\n", what, hcl_status_name(st), hcl_last_message());
    atomic_store(&failed, 1);
    return 0;
}

/* n launches on a queue of its own (n < 0: until go_on is cleared), a finish every 16. */
static void launch_some(long n) {
    hcl_queue q = NULL;
    hcl_buffer b = NULL;
    if (!ok(hcl_queue_create(dev, &q), "hcl_queue_create") || !ok(hcl_buffer_create(dev, 64, 0, &b), "buffer")) {
        if (q) hcl_queue_release(q);
        return;
    }
    const hcl_arg args[] = {hcl_arg_buffer(b)};
    const hcl_dim3 one = {1, 1, 1};
    for (long i = 0; n < 0 ? atomic_load(&go_on) : i < n; i++) {
        if (!ok(hcl_kernel_launch(q, kernel, one, one, 0, 1, args, 0, NULL, NULL), "hcl_kernel_launch")) break;
        if (i % 16 == 15 && !ok(hcl_queue_finish(q), "hcl_queue_finish")) break;
    }
    ok(hcl_queue_finish(q), "hcl_queue_finish");
    hcl_buffer_release(b);
    hcl_queue_release(q);
}

/* A worker of phase "exact": worker 0 launches EARLY times and exits; the others wait until it is gone (so it exits
 * mid-trace), then launch LAUNCHES times. */
static void *exact_worker(void *arg) {
    const long id = (long)(intptr_t)arg;
    if (id == 0) {
        launch_some(EARLY);
        return NULL;
    }
    launch_some(LAUNCHES / 2);
    while (!atomic_load(&early_gone)) {
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    launch_some(LAUNCHES - LAUNCHES / 2);
    return NULL;
}

static void *stopper(void *arg) {
    (void)arg;
    ok(hcl_trace_stop(), "hcl_trace_stop");
    return NULL;
}

static void *forever_worker(void *arg) {
    (void)arg;
    launch_some(-1);
    return NULL;
}

static void *short_worker(void *arg) {
    (void)arg;
    launch_some(10);
    return NULL;
}

static void sleep_ms(long ms) {
    const struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

/* Stop the trace from a thread of its own. */
static void stop_elsewhere(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, stopper, NULL)) {
        atomic_store(&failed, 1);
        return;
    }
    pthread_join(t, NULL);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: trace_threads DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char path[600];
    if (!ok(hcl_device_open("host", &dev), "hcl_device_open")) return 1;
    const hcl_module_source src = {HCL_SOURCE_HOST_TABLE, host_table, 1, NULL};
    hcl_module mod = NULL;
    if (!ok(hcl_module_create(dev, &src, 1, &mod), "hcl_module_create") ||
        !ok(hcl_kernel_create(mod, "touch", &kernel), "hcl_kernel_create"))
        return 1;

    /* phase "exact" */
    snprintf(path, sizeof path, "%s/exact.json", dir);
    if (!ok(hcl_trace_start(path), "hcl_trace_start")) return 1;
    pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        if (pthread_create(&t[i], NULL, exact_worker, (void *)(intptr_t)i)) return 1;
    pthread_join(t[0], NULL);
    atomic_store(&early_gone, 1);
    for (long i = 1; i < WORKERS; i++) pthread_join(t[i], NULL);
    stop_elsewhere();
    printf("exact_launches %d\n", EARLY + (WORKERS - 1) * LAUNCHES);

    /* phase "restart" */
    atomic_store(&go_on, 1);
    for (long i = 0; i < WORKERS; i++)
        if (pthread_create(&t[i], NULL, forever_worker, NULL)) return 1;
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(path, sizeof path, "%s/restart-%d.json", dir, r);
        sleep_ms(5); /* untraced launches between traces */
        if (!ok(hcl_trace_start(path), "hcl_trace_start")) break;
        sleep_ms(20);
        pthread_t s;
        if (pthread_create(&s, NULL, short_worker, NULL)) return 1;
        pthread_join(s, NULL); /* exits mid-trace */
        sleep_ms(20);
        if (r % 2)
            stop_elsewhere();
        else
            ok(hcl_trace_stop(), "hcl_trace_stop");
    }
    atomic_store(&go_on, 0);
    for (long i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
    printf("restart_rounds %d\n", ROUNDS);
    hcl_kernel_release(kernel);
    hcl_module_release(mod);
    hcl_device_release(dev);
    return atomic_load(&failed);
}
