/* trace_sample SELECTOR [MODE]: a small HCL program for the trace test (check_trace.py), run with HCL_TRACE set.
 * It opens the device SELECTOR ("host", "opencl", "cuda"), uses two queues, a transfer of each kind (blocking and
 * asynchronous), every built-in, a user kernel (OpenCL C, CUDA or HIP C++, or a host function table) and an event
 * wait, finishes and
 * releases everything. Exit status: 0 done, 77 the device is not there (the test is skipped), 1 a call failed.
 * MODE "launches N": instead, N launches of the user kernel on one work-item with nothing to do, then N finishes of the
 * idle queue, timed; prints "launch_us <mean> finish_us <mean>" (host time per call, for the tracing-on/off cost).
 * MODE "threads N": instead, N threads at once, each with its own queue: writes, vecadds, a read and a finish. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "hcl/hcl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const cl_source = "__kernel void scale(__global float *out, __global const float *in, float a,\n"
                                     "                    unsigned n) {\n"
                                     "    size_t i = get_global_id(0);\n"
                                     "    if (i < n) out[i] = a * in[i];\n"
                                     "}\n";

static const char *const cuda_source = "extern \"C\" __global__ void scale(float *out, const float *in, float a,\n"
                                       "                                  unsigned n) {\n"
                                       "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                       "    if (i < n) out[i] = a * in[i];\n"
                                       "}\n";

static void host_scale(const hcl_host_launch *launch, void *const *args) {
    float *out = *(float *const *)args[0];
    const float *in = *(const float *const *)args[1];
    const float a = *(const float *)args[2];
    const unsigned n = *(const unsigned *)args[3];
    for (uint32_t t = 0; t < launch->block.x; t++) {
        const size_t i = (size_t)launch->group_id.x * launch->block.x + t;
        if (i < n) out[i] = a * in[i];
    }
}

static const hcl_host_function host_table[] = {{"scale", host_scale}};

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        if (st_ != HCL_SUCCESS) {                                                                                      \
            fprintf(stderr, "trace_sample: %s failed: %s: %s\n", #call, hcl_status_name(st_), hcl_last_message());     \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

typedef struct worker {
    hcl_device dev;
    int failed;
} worker;

/* One thread of "threads N": its own queue and buffers; any failure is counted, not fatal. */
static void *work(void *arg) {
    worker *w = arg;
    enum { M = 1024 };
    float host[M];
    for (int i = 0; i < M; i++) host[i] = (float)i;
    hcl_queue q = NULL;
    hcl_buffer a = NULL, c = NULL;
    int ok = hcl_queue_create(w->dev, &q) == HCL_SUCCESS && hcl_buffer_create(w->dev, sizeof host, 0, &a) == 0 &&
             hcl_buffer_create(w->dev, sizeof host, 0, &c) == HCL_SUCCESS;
    for (int round = 0; ok && round < 8; round++)
        ok = hcl_buffer_write(q, a, 0, sizeof host, host) == HCL_SUCCESS &&
             hcl_vecadd_f32(q, M, a, a, c, NULL) == HCL_SUCCESS;
    ok = ok && hcl_buffer_read(q, c, 0, sizeof host, host) == HCL_SUCCESS && hcl_queue_finish(q) == HCL_SUCCESS &&
         host[5] == 10.0f;
    if (c) hcl_buffer_release(c);
    if (a) hcl_buffer_release(a);
    if (q) hcl_queue_release(q);
    w->failed = !ok;
    return NULL;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    const char *selector = argc > 1 ? argv[1] : "host";
    const long launches = argc > 3 && strcmp(argv[2], "launches") == 0 ? atol(argv[3]) : 0;
    const long threads = argc > 3 && strcmp(argv[2], "threads") == 0 ? atol(argv[3]) : 0;
    const int names = argc > 2 && strcmp(argv[2], "names") == 0;
    hcl_device dev;
    hcl_status st = hcl_device_open(selector, &dev);
    if (st == HCL_ERROR_BACKEND_UNAVAILABLE || st == HCL_ERROR_DEVICE_NOT_FOUND || st == HCL_ERROR_UNKNOWN_BACKEND) {
        printf("skipped: no device '%s': %s\n", selector, hcl_last_message());
        return 77;
    }
    CHECK(st);
    if (threads > 0) {
        worker w[16] = {{0}};
        pthread_t t[16];
        const long count = threads < 16 ? threads : 16;
        for (long i = 0; i < count; i++) {
            w[i].dev = dev;
            if (pthread_create(&t[i], NULL, work, &w[i])) return 1;
        }
        int failed = 0;
        for (long i = 0; i < count; i++) {
            pthread_join(t[i], NULL);
            failed |= w[i].failed;
        }
        CHECK(hcl_device_release(dev));
        if (failed) fprintf(stderr, "trace_sample: a thread's calls failed\n");
        return failed;
    }
    enum { N = 4096 };
    const size_t bytes = N * sizeof(float);
    hcl_queue q1, q2;
    CHECK(hcl_queue_create(dev, &q1));
    CHECK(hcl_queue_create(dev, &q2));
    hcl_buffer a, b, c, r;
    CHECK(hcl_buffer_create(dev, bytes, 0, &a));
    CHECK(hcl_buffer_create(dev, bytes, 0, &b));
    CHECK(hcl_buffer_create(dev, bytes, 0, &c));
    CHECK(hcl_buffer_create(dev, sizeof(float), 0, &r));
    float *host = malloc(bytes);
    for (int i = 0; i < N; i++) host[i] = (float)(i % 17) * 0.25f;

    const hcl_module_source sources[] = {
        {HCL_SOURCE_OPENCL_C, cl_source, strlen(cl_source), NULL},
        {HCL_SOURCE_CUDA_C, cuda_source, strlen(cuda_source), NULL},
        {HCL_SOURCE_HIP_C, cuda_source, strlen(cuda_source), NULL},
        {HCL_SOURCE_HOST_TABLE, host_table, 1, NULL},
    };
    hcl_module mod;
    hcl_kernel k;
    CHECK(hcl_module_create(dev, sources, sizeof sources / sizeof sources[0], &mod));
    CHECK(hcl_kernel_create(mod, "scale", &k));
    const float two = 2.0f;
    const unsigned n = N;
    const hcl_arg args[] = {hcl_arg_buffer(c), hcl_arg_buffer(a), hcl_arg_value(&two, sizeof two),
                            hcl_arg_value(&n, sizeof n)};
    const hcl_dim3 grid = {N / 64, 1, 1}, block = {64, 1, 1};

    if (names) {
        /* before the usual calls, names that are not UTF-8 (each call fails, and is traced with its name): a lone
         * byte 0xff; an overlong NUL, a UTF-16 surrogate, a code point above U+10FFFF and a sequence cut short,
         * after a well-formed 'é' */
        hcl_device no_dev = NULL;
        hcl_kernel no_kernel = NULL;
        if (hcl_device_open("op\xff", &no_dev) == HCL_SUCCESS) return 1;
        if (hcl_kernel_create(mod, "k\xc3\xa9\xc0\x80|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82", &no_kernel) ==
            HCL_SUCCESS)
            return 1;
    }
    if (launches > 0) {
        /* one work-item with n = 0: the launch's own cost, the kernel does nothing */
        const unsigned none = 0;
        const hcl_arg empty_args[] = {hcl_arg_buffer(c), hcl_arg_buffer(a), hcl_arg_value(&two, sizeof two),
                                      hcl_arg_value(&none, sizeof none)};
        const hcl_dim3 one = {1, 1, 1};
        CHECK(hcl_kernel_launch(q1, k, one, one, 0, 4, empty_args, 0, NULL, NULL)); /* warm-up */
        CHECK(hcl_queue_finish(q1));
        double t0 = now_s();
        for (long i = 0; i < launches; i++) CHECK(hcl_kernel_launch(q1, k, one, one, 0, 4, empty_args, 0, NULL, NULL));
        const double t1 = now_s();
        CHECK(hcl_queue_finish(q1));
        const double t2 = now_s();
        for (long i = 0; i < launches; i++) CHECK(hcl_queue_finish(q1));
        const double t3 = now_s();
        printf("launch_us %.4f finish_us %.4f\n", (t1 - t0) * 1e6 / (double)launches,
               (t3 - t2) * 1e6 / (double)launches);
    } else {
        const float zero = 0.0f;
        hcl_event ev;
        CHECK(hcl_buffer_write(q1, a, 0, bytes, host));
        CHECK(hcl_buffer_write_async(q2, b, 0, bytes, host, 0, NULL, &ev));
        CHECK(hcl_event_wait(ev));
        CHECK(hcl_event_release(ev));
        CHECK(hcl_buffer_fill(q1, c, 0, bytes, &zero, sizeof zero));
        CHECK(hcl_buffer_copy_async(q1, c, 0, a, 0, bytes, 0, NULL, NULL));
        CHECK(hcl_vecadd_f32(q1, N, a, b, c, NULL));
        CHECK(hcl_reduce_f32(q2, HCL_REDUCE_SUM, N, a, r, NULL));
        CHECK(hcl_softmax_f32(q1, 16, N / 16, a, c, NULL));
        CHECK(hcl_gemm_f32(q2, HCL_NO_TRANS, HCL_NO_TRANS, 32, 32, 32, 1.0f, a, 32, b, 32, 0.0f, c, 32, NULL));
        CHECK(hcl_queue_finish(q2));
        CHECK(hcl_kernel_launch(q1, k, grid, block, 0, 4, args, 0, NULL, &ev));
        CHECK(hcl_event_wait(ev));
        CHECK(hcl_event_release(ev));
        CHECK(hcl_buffer_read(q1, c, 0, bytes, host));
        if (host[3] != 2.0f * 0.75f) {
            fprintf(stderr, "trace_sample: scale gave %g for element 3, not 1.5\n", host[3]);
            return 1;
        }
        /* a failing call is traced too, with its status */
        if (hcl_buffer_read(q1, c, bytes, 4, host) != HCL_ERROR_OUT_OF_RANGE) return 1;
        CHECK(hcl_queue_finish(q1));
    }
    CHECK(hcl_kernel_release(k));
    CHECK(hcl_module_release(mod));
    CHECK(hcl_buffer_release(a));
    CHECK(hcl_buffer_release(b));
    CHECK(hcl_buffer_release(c));
    CHECK(hcl_buffer_release(r));
    CHECK(hcl_queue_release(q1));
    CHECK(hcl_queue_release(q2));
    CHECK(hcl_device_release(dev));
    free(host);
    return 0;
}
