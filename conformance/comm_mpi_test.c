/* hcl-comm-mpi-test: communicators on the mpi engine, one rank per process, started by mpirun (ctest comm-mpi-*).
 *
 *   hcl-comm-mpi-test collectives [host|opencl|mixed]   every collective x op x type x count (0, 1, 1009, 2^20 + 3;
 *                                                        and 3 2^20 + 5, several chunks of the engine's pipeline),
 *                                                        in place and out of place where allowed, checked on every
 *                                                        rank against a float64 reference (every rank regenerates
 *                                                        every rank's inputs from the seed rank 0 broadcasts)
 *   hcl-comm-mpi-test timeout [host|opencl|mixed]       rank 1 sleeps past the others' 0.5 s timeout: they get
 *                                                        HCL_ERROR_TIMEOUT in about that time, then stay broken;
 *                                                        rank 1's late call completes (MPI messages; shared
 *                                                        memory when all it waits for is in) or fails at once
 *                                                        saying who broke the communicator (shared memory)
 *   hcl-comm-mpi-test mismatch [host|opencl|mixed]      rank 0 sends 1000 floats, rank 1 receives 999: rank 1
 *                                                        fails with a status (shared memory: rank 0 too), no rank
 *                                                        hangs, and the next send/recv works or fails at once;
 *                                                        then a recv of 1001 from a send of 1000 fails too
 *   hcl-comm-mpi-test coll-mismatch [host|opencl|mixed] an all-reduce whose last rank gives one element fewer, a
 *                                                        broadcast whose ranks name different roots: every rank
 *                                                        gets HCL_ERROR_INVALID_ARGUMENT saying what differs (no
 *                                                        hang, no MPI abort); a matched all-reduce then works
 *   hcl-comm-mpi-test bench [host|opencl|mixed|cuda]    every collective in f32, 1 MiB to 256 MiB: time, algbw,
 *                                                        busbw and algbw over the slowest host-device link (the
 *                                                        first run of each size checked); MPI on host memory
 * Every mode checks that MPI_COMM_WORLD's error handler is MPI_ERRORS_RETURN while the communicator lives and the
 * default again after its release (not after a timeout or an MPI error: MPI may still hold a request then).
 * Devices: host (every rank on the host backend), opencl (PoCL), mixed (even ranks host, odd ranks opencl), cuda
 * (rank r on cuda:r: the mpi engine staging GPU memory, for the GPU machines).
 * Exit status: 0 passed, 1 failed, 77 skipped (the device asked for is absent), on every rank. */
#define _POSIX_C_SOURCE 200809L
#include <hcl/hcl.h>
#include <hcl/hcl_comm.h>
#include "comm_cases.h"
#include "hcl_testsupport.h"

#include <mpi.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nranks;
static unsigned failures;
static hcl_device dev;
static hcl_queue queue;
static hcl_comm comm;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        failures++;                                                                                                    \
        if (failures <= 20) {                                                                                          \
            fprintf(stderr, "rank %d: FAIL: ", rank);                                                                  \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)
#define OK(call)                                                                                                       \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        if (st_ != HCL_SUCCESS) FAIL("%s: %s: %s", #call, hcl_status_name(st_), hcl_last_message());                   \
    } while (0)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every rank's inputs from (seed, case, rank): splitmix64. */
static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static void inputs(uint64_t seed, unsigned case_no, int r, hcl_dtype type, hcl_comm_op op, float *x, size_t n) {
    uint64_t s = seed ^ ((uint64_t)case_no << 20) ^ ((uint64_t)r << 48);
    const float lo = op == HCL_COMM_PROD ? 0.5f : -1.0f, hi = op == HCL_COMM_PROD ? 2.0f : 1.0f;
    for (size_t i = 0; i < n; i++) {
        float v = lo + (hi - lo) * (float)((mix(&s) >> 40) * 0x1p-24);
        if (type == HCL_DTYPE_F16) v = hcl_f16_to_f32(hcl_f32_to_f16(v));
        if (type == HCL_DTYPE_BF16) v = hcl_bf16_to_f32(hcl_f32_to_bf16(v));
        x[i] = v;
    }
}

static hcl_status issue(kind k, hcl_dtype type, hcl_comm_op op, size_t count, uint32_t root, hcl_buffer send,
                        hcl_buffer recv, int grouped) {
    switch (k) {
    case K_ALL_REDUCE: return hcl_comm_all_reduce(comm, queue, type, op, count, send, recv, 0, NULL, NULL);
    case K_REDUCE: return hcl_comm_reduce(comm, queue, type, op, root, count, send, recv, 0, NULL, NULL);
    case K_BROADCAST: return hcl_comm_broadcast(comm, queue, type, root, count, send, recv, 0, NULL, NULL);
    case K_ALL_GATHER: return hcl_comm_all_gather(comm, queue, type, count, send, recv, 0, NULL, NULL);
    case K_REDUCE_SCATTER: return hcl_comm_reduce_scatter(comm, queue, type, op, count, send, recv, 0, NULL, NULL);
    case K_SENDRECV: { /* a ring: send to rank + 1, receive from rank - 1 */
        const uint32_t to = (uint32_t)((rank + 1) % nranks), from = (uint32_t)((rank + nranks - 1) % nranks);
        hcl_status st;
        if (grouped) {
            if ((st = hcl_comm_group_start()) != HCL_SUCCESS) return st;
            hcl_status a = hcl_comm_send(comm, queue, type, count, send, to, 0, NULL, NULL);
            hcl_status b = hcl_comm_recv(comm, queue, type, count, recv, from, 0, NULL, NULL);
            st = hcl_comm_group_end();
            return a != HCL_SUCCESS ? a : b != HCL_SUCCESS ? b : st;
        }
        if (rank % 2 == 0) { /* even ranks send first: the ring pairs without a group (even number of ranks) */
            st = hcl_comm_send(comm, queue, type, count, send, to, 0, NULL, NULL);
            return st == HCL_SUCCESS ? hcl_comm_recv(comm, queue, type, count, recv, from, 0, NULL, NULL) : st;
        }
        st = hcl_comm_recv(comm, queue, type, count, recv, from, 0, NULL, NULL);
        return st == HCL_SUCCESS ? hcl_comm_send(comm, queue, type, count, send, to, 0, NULL, NULL) : st;
    }
    }
    return HCL_ERROR_INVALID_ARGUMENT;
}

static void run_case(uint64_t seed, unsigned case_no, kind k, hcl_comm_op op, hcl_dtype type, size_t count,
                     int in_place, int grouped) {
    const size_t es = hcl_dtype_size(type), P = (size_t)nranks;
    const size_t send_n = k == K_REDUCE_SCATTER ? P * count : count, recv_n = k == K_ALL_GATHER ? P * count : count;
    const uint32_t root = (uint32_t)(case_no % P);
    char what[200];
    snprintf(what, sizeof what, "%s %s %s count %zu %s%s (case %u)", kind_names[k], op_names[op], hcl_dtype_name(type),
             count, in_place ? "in place" : "out of place", grouped ? ", in a group" : "", case_no);
    float **x = calloc(P, sizeof *x), *got = malloc((recv_n + 1) * 4);
    unsigned char *raw = malloc((send_n > recv_n ? send_n : recv_n) * es + 4);
    hcl_buffer send = NULL, recv = NULL;
    for (size_t r = 0; r < P; r++) {
        x[r] = malloc((send_n + 1) * 4);
        inputs(seed, case_no, (int)r, type, op, x[r], send_n);
    }
    const size_t sb = send_n ? send_n * es : 4, rb = recv_n ? recv_n * es : 4;
    OK(hcl_buffer_create(dev, sb, 0, &send));
    if (in_place)
        recv = send;
    else
        OK(hcl_buffer_create(dev, rb, 0, &recv));
    if (!send || !recv) goto done;
    uint32_t *pz = (uint32_t *)raw;
    for (size_t i = 0; i < (rb + 3) / 4; i++) pz[i] = 0x7fc0deadu; /* the poison */
    OK(hcl_buffer_write(queue, recv, 0, rb, raw));
    if (type == HCL_DTYPE_F32)
        memcpy(raw, x[rank], send_n * 4);
    else
        hcl_convert(type, raw, HCL_DTYPE_F32, x[rank], send_n);
    if (send_n) OK(hcl_buffer_write(queue, send, 0, send_n * es, raw));
    hcl_status st = grouped && k != K_SENDRECV ? hcl_comm_group_start() : HCL_SUCCESS;
    if (st == HCL_SUCCESS) st = issue(k, type, op, count, root, send, recv, grouped);
    if (grouped && k != K_SENDRECV) {
        hcl_status e = hcl_comm_group_end();
        if (st == HCL_SUCCESS) st = e;
    }
    if (st != HCL_SUCCESS) {
        FAIL("%s: %s: %s", what, hcl_status_name(st), hcl_last_message());
        goto done;
    }
    OK(hcl_buffer_read(queue, recv, 0, rb, raw));
    const int writes = !(k == K_REDUCE && (uint32_t)rank != root);
    if (count == 0 || (!writes && !in_place)) {
        for (size_t i = 0; i < rb / 4; i++)
            if (pz[i] != 0x7fc0deadu) {
                FAIL("%s: the recv was written (byte %zu)", what, 4 * i);
                break;
            }
        goto done;
    }
    if (!writes) goto done;
    if (type == HCL_DTYPE_F32)
        memcpy(got, raw, recv_n * 4);
    else
        hcl_convert(HCL_DTYPE_F32, got, type, raw, recv_n);
    /* MPI combines ranks pairwise in the buffer's type: 16-bit results are rounded after each of the P - 1 combines */
    const double u = type == HCL_DTYPE_F32 ? 0x1p-24 : type == HCL_DTYPE_F16 ? 0x1p-11 : 0x1p-8;
    size_t bad = 0;
    for (size_t i = 0; i < recv_n; i++) {
        double mag = 0, tol = 0;
        const double v = comm_expected(k, op, (const float *const *)x, P, (size_t)rank, root, count, i, &mag);
        if (k == K_ALL_REDUCE || k == K_REDUCE || k == K_REDUCE_SCATTER)
            tol = op == HCL_COMM_SUM    ? (double)P * (u + 0x1p-24) * mag
                  : op == HCL_COMM_PROD ? (double)P * (u + 0x1p-24) * fabs(v)
                                        : 0;
        const double g = got[i];
        if (!(fabs(g - v) <= tol)) {
            if (bad++ < 3) FAIL("%s: element %zu: got %.9g, want %.9g (tolerance %.3g)", what, i, g, v, tol);
        }
    }
    if (bad > 3) FAIL("%s: %zu of %zu elements wrong", what, bad, recv_n);
done:
    if (recv && recv != send) hcl_buffer_release(recv);
    if (send) hcl_buffer_release(send);
    for (size_t r = 0; r < P; r++) free(x[r]);
    free(x), free(got), free(raw);
}

static int open_device(const char *which) {
    char gpu[32], ocl[32] = "opencl";
    snprintf(gpu, sizeof gpu, "cuda:%d", rank);
    /* opencl: a device per rank where the backend has several (two GPUs), else its one device for every rank */
    uint32_t nb = 0;
    hcl_backend_count(&nb);
    for (uint32_t b = 0; b < nb; b++) {
        hcl_backend_info bi;
        if (hcl_backend_get_info(b, &bi) == HCL_SUCCESS && bi.available && !strcmp(bi.name, "opencl") &&
            bi.device_count > 1)
            snprintf(ocl, sizeof ocl, "opencl:%u", (unsigned)rank % bi.device_count);
    }
    const char *sel = strcmp(which, "opencl") == 0              ? ocl
                      : strcmp(which, "cuda") == 0              ? gpu
                      : strcmp(which, "mixed") == 0 && rank % 2 ? "opencl"
                                                                : "host";
    hcl_status st = hcl_device_open(sel, &dev);
    int ok = st == HCL_SUCCESS, all_ok = 0;
    if (!ok)
        fprintf(stderr, "rank %d: cannot open \"%s\": %s: %s\n", rank, sel, hcl_status_name(st), hcl_last_message());
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) return 0;
    hcl_device_info info;
    hcl_device_get_info(dev, &info);
    printf("rank %d of %d: device %s:%u \"%s\"\n", rank, nranks, info.backend, info.index, info.name);
    return hcl_queue_create(dev, &queue) == HCL_SUCCESS;
}

static void collectives(void) {
    static const size_t counts[] = {0, 1, 1009, ((size_t)1 << 20) + 3};
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
    const char *env = getenv("HCL_SEED");
    if (env && *env) seed = strtoull(env, NULL, 10);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("seed HCL_SEED=%llu\n", (unsigned long long)seed);
    unsigned case_no = 0;
    for (int k = 0; k <= K_SENDRECV; k++) {
        const int reduces = k == K_ALL_REDUCE || k == K_REDUCE || k == K_REDUCE_SCATTER;
        const int places = k == K_ALL_REDUCE || k == K_REDUCE || k == K_BROADCAST ? 2 : 1;
        for (int t = 0; t < HCL_DTYPE_COUNT; t++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int o = 0; o < (reduces ? 4 : 1); o++)
                    for (int ip = 0; ip < places; ip++, case_no++)
                        run_case(seed, case_no, (kind)k, (hcl_comm_op)o, (hcl_dtype)t, counts[c], ip, case_no % 3 == 0);
    }
    /* messages of several 4 MiB chunks, so that the engine's pipeline reuses its two host slots */
    const size_t big = ((size_t)3 << 20) + 5;
    for (int k = 0; k <= K_SENDRECV; k++, case_no++)
        run_case(seed, case_no, (kind)k, HCL_COMM_SUM, HCL_DTYPE_F32, big, k == K_ALL_REDUCE, 0);
    run_case(seed, case_no++, K_ALL_REDUCE, HCL_COMM_MAX, HCL_DTYPE_BF16, 2 * big, 0, 1);
    if (rank == 0) printf("%u cases per rank\n", case_no);
}

static void timeout_test(void) {
    const double limit = 0.5;
    hcl_buffer b = NULL;
    OK(hcl_buffer_create(dev, 4096, 0, &b));
    if (rank != 1) OK(hcl_comm_set_timeout(comm, limit));
    if (rank == 1) sleep(3); /* stops answering for longer than the others wait */
    const double t0 = now_s();
    hcl_status st = hcl_comm_all_reduce(comm, queue, HCL_DTYPE_F32, HCL_COMM_SUM, 1024, b, b, 0, NULL, NULL);
    const double dt = now_s() - t0;
    if (rank != 1) {
        if (st != HCL_ERROR_TIMEOUT)
            FAIL("all_reduce without rank 1: %s (%s), want HCL_ERROR_TIMEOUT", hcl_status_name(st), hcl_last_message());
        else if (dt < limit * 0.9 || dt > limit + 2.0)
            FAIL("timed out after %.3f s with a timeout of %.1f s", dt, limit);
        else
            printf("rank %d: HCL_ERROR_TIMEOUT after %.3f s (timeout %.1f s): %s\n", rank, dt, limit,
                   hcl_last_message());
        st = hcl_comm_all_reduce(comm, queue, HCL_DTYPE_F32, HCL_COMM_SUM, 1024, b, b, 0, NULL, NULL);
        if (st != HCL_ERROR_TIMEOUT || !strstr(hcl_last_message(), "broken"))
            FAIL("after the timeout: %s (%s), want HCL_ERROR_TIMEOUT (broken)", hcl_status_name(st),
                 hcl_last_message());
    } else if (st != HCL_SUCCESS &&
               !(st == HCL_ERROR_TIMEOUT && strstr(hcl_last_message(), "broke the communicator"))) {
        /* MPI messages: the others' requests are still with MPI and rank 1's part completes them; shared memory: the
         * others marked it broken, and rank 1 learns that at once (not after its own timeout), unless every part it
         * waits for was in before they gave up (then it completes) */
        FAIL("rank 1's late all_reduce: %s: %s", hcl_status_name(st), hcl_last_message());
    } else if (dt > 2.0) {
        FAIL("rank 1's late all_reduce took %.3f s", dt);
    } else {
        printf("rank 1: late all_reduce: %s after %.3f s%s%s\n", hcl_status_name(st), dt, st ? ": " : "",
               st ? hcl_last_message() : "");
    }
    hcl_buffer_release(b);
}

/* Seconds of `reps` runs of what (a collective or a transfer), after a barrier: the slowest rank's mean (a rank with
 * reps 0 only takes part in the barrier and the maximum). */
static double timed(int reps, hcl_status (*what)(void *), void *arg) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now_s();
    for (int r = 0; r < reps; r++) OK(what(arg));
    OK(hcl_queue_finish(queue));
    double t = reps ? (now_s() - t0) / reps : 0.0, slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

typedef struct bench_call {
    kind k;
    size_t count;
    hcl_buffer send, recv;
    void *host;
    size_t bytes;
} bench_call;

static hcl_status bench_collective(void *arg) {
    const bench_call *c = arg;
    return issue(c->k, HCL_DTYPE_F32, HCL_COMM_SUM, c->count, 0, c->send, c->recv, 1);
}
static hcl_status bench_h2d(void *arg) {
    const bench_call *c = arg;
    return hcl_buffer_write(queue, c->send, 0, c->bytes, c->host);
}
static hcl_status bench_d2h(void *arg) {
    const bench_call *c = arg;
    return hcl_buffer_read(queue, c->send, 0, c->bytes, c->host);
}

/* Whether the messages path was asked for (HCL_MPI_SHM=0); else ranks on one host take shared memory. */
static int messages_path(void) {
    const char *env = getenv("HCL_MPI_SHM");
    return env && strcmp(env, "0") == 0;
}

/* A send and a recv of different counts: the receiver gets an error status, and neither rank hangs. Through shared
 * memory the sender fails too (INVALID_ARGUMENT, the receiver's cause); through MPI messages it may complete (MPI takes
 * a short send eagerly). Then a matched send/recv: it works or fails at once (the communicator broken), never waits out
 * the timeout. */
static void mismatch_test(void) {
    hcl_buffer b = NULL;
    OK(hcl_buffer_create(dev, 4096, 0, &b));
    OK(hcl_comm_set_timeout(comm, 5.0));
    double t0 = now_s();
    hcl_status st = HCL_SUCCESS;
    if (rank == 0) st = hcl_comm_send(comm, queue, HCL_DTYPE_F32, 1000, b, 1, 0, NULL, NULL);
    if (rank == 1) st = hcl_comm_recv(comm, queue, HCL_DTYPE_F32, 999, b, 0, 0, NULL, NULL);
    double dt = now_s() - t0;
    if (rank == 1 && st == HCL_SUCCESS) FAIL("a recv of 999 floats from a send of 1000 succeeded");
    if (rank == 0 && !messages_path() &&
        (st != HCL_ERROR_INVALID_ARGUMENT || !strstr(hcl_last_message(), "4000") ||
         !strstr(hcl_last_message(), "3996")))
        FAIL("shared memory: a send of 1000 floats to a recv of 999: %s (%s), want HCL_ERROR_INVALID_ARGUMENT naming "
             "both sizes (4000 and 3996 bytes)",
             hcl_status_name(st), st ? hcl_last_message() : "");
    if (rank <= 1 && dt > 4.0) FAIL("the mismatched send/recv took %.3f s", dt);
    if (rank <= 1)
        printf("rank %d: %s after %.3f s%s%s\n", rank, hcl_status_name(st), dt, st ? ": " : "",
               st ? hcl_last_message() : "");
    t0 = now_s();
    st = HCL_SUCCESS;
    if (rank == 0) st = hcl_comm_send(comm, queue, HCL_DTYPE_F32, 1000, b, 1, 0, NULL, NULL);
    if (rank == 1) st = hcl_comm_recv(comm, queue, HCL_DTYPE_F32, 1000, b, 0, 0, NULL, NULL);
    dt = now_s() - t0;
    if (rank <= 1 && (st == HCL_ERROR_TIMEOUT || dt > 4.0))
        FAIL("the send/recv after the mismatch: %s after %.3f s (%s), want it to work or fail at once",
             hcl_status_name(st), dt, st ? hcl_last_message() : "");
    else if (rank <= 1)
        printf("rank %d: next send/recv: %s after %.3f s%s%s\n", rank, hcl_status_name(st), dt, st ? ": " : "",
               st ? hcl_last_message() : "");
    /* a recv longer than the send, on a second communicator (the first is broken): MPI takes it without an error */
    hcl_comm_id id;
    hcl_comm longer = NULL;
    memset(&id, 0, sizeof id);
    if (rank == 0) OK(hcl_comm_get_id(dev, "mpi", &id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    OK(hcl_comm_create(dev, (uint32_t)nranks, (uint32_t)rank, &id, &longer));
    if (longer) {
        OK(hcl_comm_set_timeout(longer, 5.0));
        t0 = now_s();
        st = HCL_SUCCESS;
        if (rank == 0) st = hcl_comm_send(longer, queue, HCL_DTYPE_F32, 1000, b, 1, 0, NULL, NULL);
        if (rank == 1) st = hcl_comm_recv(longer, queue, HCL_DTYPE_F32, 1001, b, 0, 0, NULL, NULL);
        dt = now_s() - t0;
        if (rank == 1 && (st != HCL_ERROR_INVALID_ARGUMENT || !strstr(hcl_last_message(), "4000")))
            FAIL("a recv of 1001 floats from a send of 1000: %s (%s), want HCL_ERROR_INVALID_ARGUMENT naming the "
                 "send's size (4000 bytes)",
                 hcl_status_name(st), st ? hcl_last_message() : "");
        if (rank == 0 && !messages_path() && st != HCL_ERROR_INVALID_ARGUMENT)
            FAIL("shared memory: a send of 1000 floats to a recv of 1001: %s (%s), want HCL_ERROR_INVALID_ARGUMENT",
                 hcl_status_name(st), st ? hcl_last_message() : "");
        if (rank <= 1 && dt > 4.0) FAIL("the send/recv with the longer recv took %.3f s", dt);
        if (rank <= 1)
            printf("rank %d: longer recv: %s after %.3f s%s%s\n", rank, hcl_status_name(st), dt, st ? ": " : "",
                   st ? hcl_last_message() : "");
        OK(hcl_comm_release(longer));
    }
    hcl_buffer_release(b);
}

/* Collectives whose ranks disagree: an all-reduce where the last rank gives one element fewer, a broadcast where the
 * ranks name different roots. Every rank must get HCL_ERROR_INVALID_ARGUMENT naming what differs, within a second or
 * two (no hang, no MPI abort of the job: issue 33); nothing moved, so a matched all-reduce then works. */
static void coll_mismatch_test(void) {
    enum { N = 1000 };
    hcl_buffer b = NULL;
    float x[N], got[N];
    OK(hcl_buffer_create(dev, N * 4, 0, &b));
    if (!b) return;
    OK(hcl_comm_set_timeout(comm, 5.0));
    for (int i = 0; i < N; i++) x[i] = (float)(rank + 1 + i);
    OK(hcl_buffer_write(queue, b, 0, sizeof x, x));
    /* a NULL buffer is a handle's error, found before the engine sees the call (hcl_comm.h) */
    hcl_status st = hcl_comm_all_reduce(comm, queue, HCL_DTYPE_F32, HCL_COMM_SUM, N, NULL, b, 0, NULL, NULL);
    if (st != HCL_ERROR_INVALID_HANDLE)
        FAIL("an all_reduce from a NULL buffer: %s, want HCL_ERROR_INVALID_HANDLE", hcl_status_name(st));
    const size_t count = rank == nranks - 1 ? N - 1 : N;
    double t0 = now_s();
    st = hcl_comm_all_reduce(comm, queue, HCL_DTYPE_F32, HCL_COMM_SUM, count, b, b, 0, NULL, NULL);
    double dt = now_s() - t0;
    if (st != HCL_ERROR_INVALID_ARGUMENT || !strstr(hcl_last_message(), "count"))
        FAIL("an all_reduce of %zu elements where another rank gives %d: %s (%s), want HCL_ERROR_INVALID_ARGUMENT "
             "saying the counts differ",
             count, count == N ? N - 1 : N, hcl_status_name(st), st ? hcl_last_message() : "");
    else if (dt > 4.0)
        FAIL("the mismatched all_reduce took %.3f s", dt);
    else
        printf("rank %d: all_reduce of %zu: %s after %.3f s: %s\n", rank, count, hcl_status_name(st), dt,
               hcl_last_message());
    t0 = now_s();
    st = hcl_comm_broadcast(comm, queue, HCL_DTYPE_F32, rank == 0 ? 0 : 1, N, b, b, 0, NULL, NULL);
    dt = now_s() - t0;
    if (st != HCL_ERROR_INVALID_ARGUMENT || !strstr(hcl_last_message(), "root") || dt > 4.0)
        FAIL("a broadcast whose ranks name roots 0 and 1: %s after %.3f s (%s), want HCL_ERROR_INVALID_ARGUMENT "
             "saying the roots differ",
             hcl_status_name(st), dt, st ? hcl_last_message() : "");
    /* the communicator still works */
    OK(hcl_buffer_write(queue, b, 0, sizeof x, x));
    OK(hcl_comm_all_reduce(comm, queue, HCL_DTYPE_F32, HCL_COMM_SUM, N, b, b, 0, NULL, NULL));
    OK(hcl_buffer_read(queue, b, 0, sizeof got, got));
    for (int i = 0; i < N; i++) {
        const float want = (float)nranks * (float)(i + 1) + (float)(nranks * (nranks - 1) / 2);
        if (got[i] != want) {
            FAIL("the all_reduce after the mismatches: element %d is %g, want %g", i, got[i], want);
            break;
        }
    }
    hcl_buffer_release(b);
}

/* MPI_COMM_WORLD's error handler: Open MPI reports errors of non-blocking collectives through it, so HCL makes it
 * MPI_ERRORS_RETURN while it holds an mpi communicator (want_return 1), and puts back the program's (here the default,
 * MPI_ERRORS_ARE_FATAL: want_return 0) when it has released its last one. */
static void check_world_errhandler(const char *when, int want_return) {
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h) != MPI_SUCCESS) {
        FAIL("%s: MPI_Comm_get_errhandler failed", when);
        return;
    }
    const MPI_Errhandler want = want_return ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL;
    if (h != want)
        FAIL("%s: MPI_COMM_WORLD's error handler is not %s", when,
             want_return ? "MPI_ERRORS_RETURN" : "MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&h);
}

/* Every collective in f32 (sum) from 1 MiB to 256 MiB: time, algbw and busbw (nccl-tests' sizes and formulas), and
 * algbw over the slowest page-locked host-device link of the ranks, each measured alone; the first run of each size
 * checked. Then MPI on host memory for the same bytes (MPI_Allreduce, an MPI_Sendrecv ring): MPI's own speed. */
static void bench(void) {
    static const size_t sizes[] = {(size_t)1 << 20, (size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20};
    const size_t big = sizes[sizeof sizes / sizeof sizes[0] - 1];
    bench_call link = {.bytes = big};
    OK(hcl_buffer_create(dev, big, 0, &link.send));
    OK(hcl_host_alloc(dev, big, &link.host));
    if (!link.send || !link.host) return;
    memset(link.host, 0, big);
    double slowest = 1e30;
    for (int r = 0; r < nranks; r++) { /* each rank's link alone, in turn: best of three */
        double h2d = 1e30, d2h = 1e30;
        for (int i = 0; i < 3; i++) {
            const double a = rank == r ? timed(1, bench_h2d, &link) : timed(0, bench_h2d, &link);
            const double b = rank == r ? timed(1, bench_d2h, &link) : timed(0, bench_d2h, &link);
            h2d = a < h2d ? a : h2d, d2h = b < d2h ? b : d2h;
        }
        const double lo = (double)big / (h2d > d2h ? h2d : d2h) / 1e9;
        if (rank == 0)
            printf("link of rank %d alone (page-locked, %zu MiB): H2D %6.2f GB/s, D2H %6.2f GB/s\n", r, big >> 20,
                   (double)big / h2d / 1e9, (double)big / d2h / 1e9);
        slowest = lo < slowest ? lo : slowest;
    }
    if (rank == 0) printf("slowest link: %.2f GB/s\n", slowest);
    hcl_host_free(dev, link.host);
    hcl_buffer_release(link.send);
    for (int k = K_ALL_REDUCE; k <= K_SENDRECV; k++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const size_t bytes = sizes[i], per = k == K_ALL_GATHER || k == K_REDUCE_SCATTER ? bytes / nranks : bytes;
            const size_t send_bytes = k == K_REDUCE_SCATTER ? bytes : per, recv_bytes = k == K_ALL_GATHER ? bytes : per;
            bench_call c = {.k = (kind)k, .count = per / 4};
            OK(hcl_buffer_create(dev, send_bytes, 0, &c.send));
            OK(hcl_buffer_create(dev, recv_bytes, 0, &c.recv));
            if (!c.send || !c.recv) return;
            OK(hcl_buffer_fill(queue, c.send, 0, send_bytes, &(float){1.0f}, 4));
            OK(hcl_buffer_fill(queue, c.recv, 0, recv_bytes, &(float){-1.0f}, 4));
            timed(1, bench_collective, &c); /* warm up, checked */
            const int sums = k == K_ALL_REDUCE || k == K_REDUCE_SCATTER || (k == K_REDUCE && rank == 0);
            float ends[2] = {0, 0};
            OK(hcl_buffer_read(queue, c.recv, 0, 4, &ends[0]));
            OK(hcl_buffer_read(queue, c.recv, recv_bytes - 4, 4, &ends[1]));
            const float want = sums ? (float)nranks : k == K_REDUCE ? -1.0f : 1.0f;
            if (ends[0] != want || ends[1] != want)
                FAIL("bench %s of %zu bytes: %g ... %g, want %g", kind_names[k], bytes, ends[0], ends[1], want);
            const double t = timed(5, bench_collective, &c), algbw = (double)bytes / t / 1e9;
            const double factor = k == K_ALL_REDUCE                            ? 2.0 * (nranks - 1) / nranks
                                  : k == K_ALL_GATHER || k == K_REDUCE_SCATTER ? (double)(nranks - 1) / nranks
                                                                               : 1.0;
            if (rank == 0)
                printf("%-14s f32 %8zu KiB: %9.3f ms  algbw %6.2f GB/s  busbw %6.2f GB/s  /slowest link %5.2f\n",
                       kind_names[k], bytes >> 10, t * 1e3, algbw, algbw * factor, algbw / slowest);
            hcl_buffer_release(c.send);
            hcl_buffer_release(c.recv);
        }
    /* MPI on host memory, called directly: its all-reduce, and its transport alone (a ring of MPI_Sendrecv) */
    const size_t n = big / 4;
    float *h = malloc(big), *g = malloc(big);
    if (h && g) {
        for (size_t e = 0; e < n; e++) h[e] = 1.0f;
        MPI_Allreduce(h, g, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        const double r0 = now_s();
        MPI_Allreduce(h, g, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        const double traw = now_s() - r0;
        const int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
        MPI_Barrier(MPI_COMM_WORLD);
        const double x0 = now_s();
        MPI_Sendrecv(h, (int)n, MPI_FLOAT, next, 7, g, (int)n, MPI_FLOAT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const double tx = now_s() - x0;
        if (rank == 0)
            printf("on host memory, %zu MiB: MPI_Allreduce %.3f ms (busbw %.2f GB/s); MPI_Sendrecv ring %.2f GB/s a "
                   "rank\n",
                   big >> 20, traw * 1e3, (double)big / traw / 1e9 * 2.0 * (nranks - 1) / nranks,
                   (double)big / tx / 1e9);
    }
    free(h);
    free(g);
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *mode = argc > 1 ? argv[1] : "collectives", *which = argc > 2 ? argv[2] : "host";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!open_device(which)) {
        if (rank == 0) printf("skipped: a rank could not open its device (%s)\n", which);
        MPI_Finalize();
        return 77;
    }
    hcl_comm_id id;
    memset(&id, 0, sizeof id);
    if (rank == 0) OK(hcl_comm_get_id(dev, "mpi", &id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD); /* as hcl_comm.h says: the id is plain bytes */
    OK(hcl_comm_create(dev, (uint32_t)nranks, (uint32_t)rank, &id, &comm));
    if (comm) {
        check_world_errhandler("with a communicator", 1);
        hcl_comm second = NULL;
        hcl_status st = hcl_comm_create(dev, (uint32_t)nranks, (uint32_t)rank, &id, &second);
        if (st != HCL_ERROR_UNSUPPORTED)
            FAIL("a second rank of one id in this process: %s, want HCL_ERROR_UNSUPPORTED", hcl_status_name(st));
        if (second) hcl_comm_release(second);
        if (rank == 0) {
            hcl_comm_engine_info info;
            for (uint32_t i = 0; hcl_comm_engine_get_info(i, &info) == HCL_SUCCESS; i++)
                if (strcmp(info.name, "mpi") == 0) printf("engine mpi: %s%s\n", info.library, info.version);
        }
        if (strcmp(mode, "timeout") == 0)
            timeout_test();
        else if (strcmp(mode, "mismatch") == 0)
            mismatch_test();
        else if (strcmp(mode, "coll-mismatch") == 0)
            coll_mismatch_test();
        else if (strcmp(mode, "bench") == 0)
            bench();
        else
            collectives();
        OK(hcl_comm_release(comm));
        /* not after a timeout or an MPI error (the recv's MPI_ERR_TRUNCATE of a mismatch through MPI messages): MPI
         * may still hold requests then, whose errors must not abort the job */
        if (strcmp(mode, "timeout") != 0 && !(strcmp(mode, "mismatch") == 0 && messages_path()))
            check_world_errhandler("after hcl_comm_release", 0);
    }
    hcl_queue_release(queue);
    hcl_device_release(dev);
    unsigned total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hcl-comm-mpi-test %s on %d ranks (%s): %s (%u failures)\n", mode, nranks, which,
               total ? "FAILED" : "passed", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
