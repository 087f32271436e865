/* hcl-fault-flow: the conformance flow that the fault-injection walk (fault-walk.sh) runs once per injectable site.
 *
 *   hcl-fault-flow <backend> [count]
 *
 * One run of the flow: device open, queue, three buffers written, the built-in vecadd, a user kernel (OpenCL C on
 * opencl, CUDA C on cuda and hip, a host function table on host) launched, results read and checked, everything
 * released. The program does three runs in one process (A with a cold kernel cache, B with a warm one, C); `count`
 * does only A and B, so that HCL_FAULT_COUNT=1 gives the number of sites the walk fails one by one. With
 * HCL_FAULT_AT=N (a build with -DHCL_FAULT_INJECTION=ON) the N-th site hit fails in A or B. The run that meets it
 * must end with a non-success status and a message, or succeed with correct results where the failure is absorbed (a
 * cache miss, a log line); every later run must succeed with correct results: the device still works. Prints one
 * line per run; exits 0 when the rules hold, 1 when not, 77 when the backend has no device here. */
#include "hcl/hcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twice_kernel.h"

#define N 1000

typedef struct flow {
    hcl_device dev;
    hcl_queue q;
    hcl_buffer a, b, c;
    hcl_module m;
    hcl_kernel k;
} flow;

static hcl_status flow_release(flow *f, hcl_status st) {
    /* the queue finished first (hcl.h: a buffer that pending commands use must not be released; a run that failed
     * half-way may leave commands queued), its status ignored: the run's own is what counts; then release in reverse
     * order; a release never fails on a handle the flow holds */
    if (f->q) (void)hcl_queue_finish(f->q);
    hcl_status r = HCL_SUCCESS;
#define REL(call, h)                                                                                                   \
    if (h && (r = call(h)) != HCL_SUCCESS) fprintf(stderr, #call ": %s: %s\n", hcl_status_name(r), hcl_last_message());
    REL(hcl_kernel_release, f->k)
    REL(hcl_module_release, f->m)
    REL(hcl_buffer_release, f->c)
    REL(hcl_buffer_release, f->b)
    REL(hcl_buffer_release, f->a)
    REL(hcl_queue_release, f->q)
    REL(hcl_device_release, f->dev)
#undef REL
    return st;
}

/* One run of the flow. On failure *message holds the message of the failing call. */
static hcl_status run(const char *backend, char *message, size_t message_size) {
    flow f = {0};
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 0.5f * (float)i, out[i] = -1.0f;
    hcl_status st;
    message[0] = '\0';
#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((st = (call)) != HCL_SUCCESS) {                                                                            \
            snprintf(message, message_size, "%s", hcl_last_message());                                                 \
            return flow_release(&f, st);                                                                               \
        }                                                                                                              \
    } while (0)
    TRY(hcl_device_open(backend, &f.dev));
    TRY(hcl_queue_create(f.dev, &f.q));
    TRY(hcl_buffer_create(f.dev, sizeof x, 0, &f.a));
    TRY(hcl_buffer_create(f.dev, sizeof y, 0, &f.b));
    TRY(hcl_buffer_create(f.dev, sizeof out, 0, &f.c));
    TRY(hcl_buffer_write(f.q, f.a, 0, sizeof x, x));
    TRY(hcl_buffer_write(f.q, f.b, 0, sizeof y, y));
    TRY(hcl_vecadd_f32(f.q, N, f.a, f.b, f.c, NULL));
    TRY(hcl_module_create(f.dev, twice_sources, TWICE_SOURCES, &f.m));
    TRY(hcl_kernel_create(f.m, "twice", &f.k));
    unsigned n = N;
    hcl_arg args[2] = {hcl_arg_buffer(f.c), hcl_arg_value(&n, sizeof n)};
    TRY(hcl_kernel_launch(f.q, f.k, (hcl_dim3){(N + 63) / 64, 1, 1}, (hcl_dim3){64, 1, 1}, 0, 2, args, 0, NULL, NULL));
    TRY(hcl_buffer_read(f.q, f.c, 0, sizeof out, out));
    TRY(hcl_queue_finish(f.q));
#undef TRY
    for (int i = 0; i < N; i++)
        if (out[i] != 2.0f * (x[i] + y[i])) {
            snprintf(message, message_size, "WRONG RESULT at %d: %g, expected %g", i, (double)out[i],
                     2.0 * (double)(x[i] + y[i]));
            return flow_release(&f, HCL_ERROR_INTERNAL);
        }
    return flow_release(&f, HCL_SUCCESS);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "count") != 0)) {
        fprintf(stderr, "usage: %s <backend> [count]\n", argv[0]);
        return 2;
    }
    /* A: a cold cache (the build path), B: a warm one (the cache-load path), C: the check that the device works */
    const int runs = argc == 3 ? 2 : 3;
    static char message[4096];
    int ok = 1, failed_before = 0;
    for (int r = 0; r < runs; r++) {
        hcl_status st = run(argv[1], message, sizeof message);
        printf("run %c: %s %s\n", 'A' + r, hcl_status_name(st), message);
        if (r == 0 && (st == HCL_ERROR_BACKEND_UNAVAILABLE || st == HCL_ERROR_DEVICE_NOT_FOUND) &&
            !getenv("HCL_FAULT_AT"))
            return 77; /* no such device here: nothing to walk */
        if (strncmp(message, "WRONG", 5) == 0) printf("FAIL: run %c computed a wrong result\n", 'A' + r), ok = 0;
        if (st == HCL_SUCCESS) continue;
        if (message[0] == '\0') printf("FAIL: run %c failed without a message\n", 'A' + r), ok = 0;
        if (failed_before || r == runs - 1)
            printf("FAIL: run %c failed after the injected failure: the device did not recover\n", 'A' + r), ok = 0;
        failed_before = 1;
    }
    return ok ? 0 : 1;
}
