/* Communicators on the staged engine (hcl_comm.h): devices of this process, two PoCL devices
 * (POCL_DEVICES="pthread pthread"), the host and a PoCL device, and (the collectives) three ranks over both PoCL
 * devices and the host. Every collective x op x type x count (0, 1, odd, large), in place and out of place where
 * allowed, in both usage forms (one thread issuing every rank's part inside a group; one thread per rank without
 * groups), send/recv in a ring, against a float64 reference; then the misuse cases and the timeout. A set of devices
 * that cannot be opened skips with the reason. */
#define _POSIX_C_SOURCE 200809L
#include "comm_cases.h"
#include "common.h"

#include <hcl/hcl_comm.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NR 2   /* ranks of the misuse and timeout cases */
#define NMAX 3 /* the most ranks of a case */

typedef struct comm_pair {
    int n; /* ranks */
    char sel[NMAX][24];
} comm_pair;

static struct criterion_test_params pair_params(void) {
    static comm_pair pairs[] = {{2, {"opencl:0", "opencl:1"}}, {2, {"host", "opencl:0"}}};
    return cr_make_param_array(comm_pair, pairs, sizeof pairs / sizeof pairs[0]);
}

/* The collectives also over three ranks: two ranks' sums are added on the devices, three ranks' on the host. */
static struct criterion_test_params rank_params(void) {
    static comm_pair sets[] = {
        {2, {"opencl:0", "opencl:1"}}, {2, {"host", "opencl:0"}}, {3, {"opencl:0", "host", "opencl:1"}}};
    return cr_make_param_array(comm_pair, sets, sizeof sets / sizeof sets[0]);
}

/* The state of one test: the devices, a queue each, the communicators. */
static int nr = NR; /* ranks of the current case */
static hcl_device devs[NMAX];
static hcl_queue queues[NMAX];
static hcl_comm comms[NMAX];

static bool open_pair(const comm_pair *p) {
    nr = p->n;
    for (int r = 0; r < nr; r++) {
        hcl_status st = hcl_device_open(p->sel[r], &devs[r]);
        if (st != HCL_SUCCESS) {
            for (int k = 0; k < r; k++) hcl_device_release(devs[k]);
            cr_skip_test("comm: cannot open \"%s\" (%s: %s); the staged cases need two devices: PoCL with "
                         "POCL_DEVICES=\"pthread pthread\" gives two",
                         p->sel[r], hcl_status_name(st), hcl_last_message());
        }
        if (!CHECK_ST(HCL_SUCCESS, hcl_queue_create(devs[r], &queues[r]))) return false;
        cr_log_info("comm: rank %d on \"%s\"", r, p->sel[r]);
    }
    return true;
}

static void close_pair(void) {
    for (int r = 0; r < nr; r++) {
        if (comms[r]) CHECK_ST(HCL_SUCCESS, hcl_comm_release(comms[r]));
        if (queues[r]) CHECK_ST(HCL_SUCCESS, hcl_queue_release(queues[r]));
        if (devs[r]) CHECK_ST(HCL_SUCCESS, hcl_device_release(devs[r]));
        comms[r] = NULL, queues[r] = NULL, devs[r] = NULL;
    }
}

static bool make_comms(void) {
    if (!CHECK_ST(HCL_SUCCESS, hcl_comm_create_all((uint32_t)nr, devs, NULL, comms))) return false;
    hcl_comm_info info;
    if (!CHECK_ST(HCL_SUCCESS, hcl_comm_get_info(comms[1], &info))) return false;
    return CHECK(strcmp(info.engine, "staged") == 0 && info.rank == 1 && info.size == (uint32_t)nr,
                 "comm info: engine %s rank %u size %u", info.engine, info.rank, info.size);
}

/* ---- one case ---- */

typedef enum { FORM_GROUP, FORM_THREADS } form;

typedef struct rank_call {
    kind k;
    hcl_dtype type;
    hcl_comm_op op;
    size_t count;
    uint32_t root;
    int rank;
    hcl_buffer send, recv;
    hcl_status st;
    char msg[512];
} rank_call;

/* Issue this rank's part (send/recv, a ring: each rank sends to the next and receives from the one before; rank 0
 * sends first then receives, the others the other way round, so that the blocking form pairs them). */
static hcl_status issue(rank_call *c) {
    const int r = c->rank;
    switch (c->k) {
    case K_ALL_REDUCE:
        return hcl_comm_all_reduce(comms[r], queues[r], c->type, c->op, c->count, c->send, c->recv, 0, NULL, NULL);
    case K_REDUCE:
        return hcl_comm_reduce(comms[r], queues[r], c->type, c->op, c->root, c->count, c->send, c->recv, 0, NULL, NULL);
    case K_BROADCAST:
        return hcl_comm_broadcast(comms[r], queues[r], c->type, c->root, c->count, c->send, c->recv, 0, NULL, NULL);
    case K_ALL_GATHER:
        return hcl_comm_all_gather(comms[r], queues[r], c->type, c->count, c->send, c->recv, 0, NULL, NULL);
    case K_REDUCE_SCATTER:
        return hcl_comm_reduce_scatter(comms[r], queues[r], c->type, c->op, c->count, c->send, c->recv, 0, NULL, NULL);
    case K_SENDRECV: {
        const uint32_t next = (uint32_t)((r + 1) % nr), prev = (uint32_t)((r + nr - 1) % nr);
        hcl_status st;
        if (r == 0) {
            st = hcl_comm_send(comms[r], queues[r], c->type, c->count, c->send, next, 0, NULL, NULL);
            if (st == HCL_SUCCESS)
                st = hcl_comm_recv(comms[r], queues[r], c->type, c->count, c->recv, prev, 0, NULL, NULL);
        } else {
            st = hcl_comm_recv(comms[r], queues[r], c->type, c->count, c->recv, prev, 0, NULL, NULL);
            if (st == HCL_SUCCESS)
                st = hcl_comm_send(comms[r], queues[r], c->type, c->count, c->send, next, 0, NULL, NULL);
        }
        return st;
    }
    }
    return HCL_ERROR_INVALID_ARGUMENT;
}

static void *rank_thread(void *arg) {
    rank_call *c = arg;
    c->st = issue(c);
    snprintf(c->msg, sizeof c->msg, "%s", c->st == HCL_SUCCESS ? "" : hcl_last_message());
    return NULL;
}

/* Host values of `type` (stored as floats) <-> the buffer's bytes. */
static void to_type(hcl_dtype type, const float *x, void *out, size_t n) {
    if (type == HCL_DTYPE_F32)
        memcpy(out, x, n * 4);
    else
        hcl_convert(type, out, HCL_DTYPE_F32, x, n);
}
static void from_type(hcl_dtype type, const void *in, float *x, size_t n) {
    if (type == HCL_DTYPE_F32)
        memcpy(x, in, n * 4);
    else
        hcl_convert(HCL_DTYPE_F32, x, type, in, n);
}

/* Run one case; returns whether it held. */
static bool run_case(kind k, hcl_comm_op op, hcl_dtype type, size_t count, bool in_place, form f) {
    const size_t es = hcl_dtype_size(type);
    const size_t send_n = k == K_REDUCE_SCATTER ? nr * count : count;
    const size_t recv_n = k == K_ALL_GATHER ? nr * count : count;
    const uint32_t root = (uint32_t)(count % nr);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s count %zu %s, %s", kind_names[k], op_names[op], hcl_dtype_name(type), count,
             in_place ? "in place" : "out of place", f == FORM_GROUP ? "group in one thread" : "a thread per rank");
    float *x[NMAX], *got = malloc((recv_n + 1) * sizeof *got);
    void *raw = malloc((send_n > recv_n ? send_n : recv_n) * es + 4);
    double *ref = malloc((recv_n + 1) * sizeof *ref), *tol = malloc((recv_n + 1) * sizeof *tol);
    rank_call calls[NMAX];
    bool ok = got && raw && ref && tol;
    memset(calls, 0, sizeof calls);
    for (int r = 0; r < nr; r++) x[r] = malloc((send_n + 1) * sizeof(float));
    for (int r = 0; r < nr && ok; r++) {
        ok = x[r] != NULL;
        if (!ok) break;
        const float lo = op == HCL_COMM_PROD ? 0.5f : -1.0f, hi = op == HCL_COMM_PROD ? 2.0f : 1.0f;
        for (size_t i = 0; i < send_n; i++) x[r][i] = (float)hcl_ts_round_to(type, conf_rand_float(lo, hi));
        rank_call *c = &calls[r];
        c->k = k, c->type = type, c->op = op, c->count = count, c->root = root, c->rank = r;
        const size_t sb = send_n ? send_n * es : 4, rb = recv_n ? recv_n * es : 4;
        ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[r], sb, 0, &c->send));
        if (ok && in_place)
            c->recv = c->send;
        else if (ok)
            ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[r], rb, 0, &c->recv));
        if (!ok) break;
        /* poison what is written, then the input (in place: the input over the poison) */
        uint32_t *pz = raw;
        for (size_t i = 0; i < (rb + 3) / 4; i++) pz[i] = HCL_TS_POISON_BITS;
        ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_write(queues[r], c->recv, 0, rb, raw));
        to_type(type, x[r], raw, send_n);
        if (ok && send_n) ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_write(queues[r], c->send, 0, send_n * es, raw));
    }
    if (ok) {
        if (f == FORM_GROUP) {
            ok = CHECK_ST(HCL_SUCCESS, hcl_comm_group_start());
            for (int r = 0; r < nr && ok; r++)
                ok = CHECK(issue(&calls[r]) == HCL_SUCCESS, "%s: rank %d: %s", what, r, hcl_last_message());
            ok = CHECK(hcl_comm_group_end() == HCL_SUCCESS, "%s: group_end: %s", what, hcl_last_message()) && ok;
        } else {
            pthread_t th[NMAX];
            for (int r = 0; r < nr; r++) pthread_create(&th[r], NULL, rank_thread, &calls[r]);
            for (int r = 0; r < nr; r++) pthread_join(th[r], NULL);
            for (int r = 0; r < nr; r++)
                ok = CHECK(calls[r].st == HCL_SUCCESS, "%s: rank %d: %s: %s", what, r, hcl_status_name(calls[r].st),
                           calls[r].msg) &&
                     ok;
        }
    }
    const double u = hcl_ts_unit_roundoff(type), uacc = ldexp(1.0, -24);
    for (int r = 0; r < nr && ok; r++) {
        rank_call *c = &calls[r];
        const bool writes = !(k == K_REDUCE && (uint32_t)r != root);
        const size_t rb = recv_n ? recv_n * es : 4; /* count 0: the buffer's 4 poisoned bytes */
        ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_read(queues[r], c->recv, 0, rb, raw));
        if (!ok) break;
        from_type(type, raw, got, recv_n);
        if (count == 0 || (!writes && !in_place)) { /* nothing written: still the poison */
            const uint32_t *pz = raw;
            bool same = true;
            for (size_t i = 0; i < rb / 4; i++) same = same && pz[i] == HCL_TS_POISON_BITS;
            ok = CHECK(same, "%s: rank %d's recv was written", what, r);
            continue;
        }
        if (!writes) continue; /* reduce in place off the root: the input, untouched or not */
        for (size_t i = 0; i < recv_n; i++) {
            double mag = 0;
            const double v = comm_expected(k, op, (const float *const *)x, (size_t)nr, (size_t)r, root, count, i, &mag);
            ref[i] = v;
            /* float32 arithmetic over nr values, then one rounding to the type; copies and max/min are exact */
            if (k == K_ALL_REDUCE || k == K_REDUCE || k == K_REDUCE_SCATTER)
                tol[i] = op == HCL_COMM_SUM    ? nr * uacc * mag + (u + uacc) * fabs(v)
                         : op == HCL_COMM_PROD ? (nr * uacc + u) * fabs(v)
                                               : 0;
            else
                tol[i] = 0;
        }
        char w[200];
        snprintf(w, sizeof w, "%s: rank %d", what, r);
        ok = conf_compare(w, got, ref, tol, recv_n);
    }
    for (int r = 0; r < nr; r++) {
        if (calls[r].recv && calls[r].recv != calls[r].send) hcl_buffer_release(calls[r].recv);
        if (calls[r].send) hcl_buffer_release(calls[r].send);
        free(x[r]);
    }
    free(got), free(raw), free(ref), free(tol);
    return ok;
}

/* The last count is one staging chunk (2^20 elements a rank) and 3: a second, partial chunk. */
static const size_t counts[] = {0, 1, 1009, ((size_t)1 << 20) + 3};

/* Every op x type x count (x in place, out of place where the collective has both) of one collective, in one form;
 * the two-chunk count with every op in f32 and with the sum in the 16-bit types: the chunking does not depend on the
 * op, and every op's combine of a partial chunk runs at 1009. */
static void run_kind(const comm_pair *p, kind k, form f) {
    if (!open_pair(p) || !make_comms()) goto done;
    const int nops = k == K_ALL_REDUCE || k == K_REDUCE || k == K_REDUCE_SCATTER ? 4 : 1;
    const int places = k == K_ALL_REDUCE || k == K_REDUCE || k == K_BROADCAST ? 2 : 1;
    const size_t ncounts = sizeof counts / sizeof counts[0];
    for (int t = 0; t < HCL_DTYPE_COUNT; t++)
        for (size_t c = 0; c < ncounts; c++)
            for (int o = 0; o < nops; o++) {
                if (c == ncounts - 1 && t != HCL_DTYPE_F32 && o != HCL_COMM_SUM) continue;
                for (int ip = 0; ip < places; ip++)
                    if (!run_case(k, (hcl_comm_op)o, (hcl_dtype)t, counts[c], ip == 1, f)) goto done;
            }
done:
    close_pair();
}

#define COMM_CASE(Name, Kind, Form)                                                                                    \
    ParameterizedTestParameters(comm, Name) { return rank_params(); }                                                  \
    ParameterizedTest(comm_pair *p, comm, Name, .timeout = CONF_TIMEOUT_S) {                                           \
        conf_begin_global("comm", #Name);                                                                              \
        run_kind(p, Kind, Form);                                                                                       \
        conf_end();                                                                                                    \
    }

/* A collective in both forms: comm/<name>_group and comm/<name>_threads. */
#define COMM_CASES(Name, Kind)                                                                                         \
    COMM_CASE(Name##_group, Kind, FORM_GROUP)                                                                          \
    COMM_CASE(Name##_threads, Kind, FORM_THREADS)

COMM_CASES(all_reduce, K_ALL_REDUCE)
COMM_CASES(reduce, K_REDUCE)
COMM_CASES(broadcast, K_BROADCAST)
COMM_CASES(all_gather, K_ALL_GATHER)
COMM_CASES(reduce_scatter, K_REDUCE_SCATTER)
COMM_CASES(send_recv, K_SENDRECV)

/* Messages of several staging chunks (the engine stages 2^20 elements per rank at a time through two buffers, so
 * from the third chunk on a buffer is refilled: 3 * 2^20 + 5 elements make four chunks, the last partial), every
 * collective, f32 and bf16, in place and out of place where the collective has both. */
ParameterizedTestParameters(comm, multi_chunk) { return rank_params(); }
ParameterizedTest(comm_pair *p, comm, multi_chunk, .timeout = CONF_TIMEOUT_S) {
    conf_begin_global("comm", "multi_chunk");
    static const kind kinds[] = {K_ALL_REDUCE, K_REDUCE, K_BROADCAST, K_ALL_GATHER, K_REDUCE_SCATTER, K_SENDRECV};
    static const hcl_dtype types[] = {HCL_DTYPE_F32, HCL_DTYPE_BF16};
    const size_t count = ((size_t)3 << 20) + 5;
    if (!open_pair(p) || !make_comms()) goto done;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const kind k = kinds[i];
        const int places = k == K_ALL_REDUCE || k == K_REDUCE || k == K_BROADCAST ? 2 : 1;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int ip = 0; ip < places; ip++)
                if (!run_case(k, HCL_COMM_SUM, types[t], count, ip == 1, FORM_GROUP)) goto done;
    }
done:
    close_pair();
    conf_end();
}

/* ---- misuse ---- */

ParameterizedTestParameters(comm, misuse) { return pair_params(); }
ParameterizedTest(comm_pair *p, comm, misuse, .timeout = CONF_TIMEOUT_S) {
    conf_begin_global("comm", "misuse");
    hcl_buffer a = NULL, b = NULL, small = NULL, other = NULL;
    hcl_event ev = NULL;
    if (!open_pair(p) || !make_comms()) goto done;
    const size_t n = 64;
    if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[0], n * 4, 0, &a)) ||
        !CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[0], n * 4, 0, &b)) ||
        !CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[0], n * 2, 0, &small)) ||
        !CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[1], n * 4, 0, &other)))
        goto done;
    /* a queue of another device */
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH,
             hcl_comm_all_reduce(comms[0], queues[1], HCL_DTYPE_F32, HCL_COMM_SUM, n, a, b, 0, NULL, NULL));
    /* a buffer of another device */
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH,
             hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, other, b, 0, NULL, NULL));
    /* too small: recv named */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE,
             hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, a, small, 0, NULL, NULL));
    CHECK_MSG_HAS("recv");
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE,
             hcl_comm_all_gather(comms[0], queues[0], HCL_DTYPE_F32, n, a, b, 0, NULL, NULL)); /* recv needs 2n */
    CHECK_MSG_HAS("recv");
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE,
             hcl_comm_reduce_scatter(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, a, b, 0, NULL, NULL));
    CHECK_MSG_HAS("send");
    /* root and peer out of range, peer = self */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_comm_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, NR, n, a, b, 0, NULL, NULL));
    CHECK_MSG_HAS("root");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_comm_broadcast(comms[0], queues[0], HCL_DTYPE_F32, 7, n, a, b, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_send(comms[0], queues[0], HCL_DTYPE_F32, n, a, NR, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_send(comms[0], queues[0], HCL_DTYPE_F32, n, a, 0, 0, NULL, NULL));
    /* bad op, bad type */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, (hcl_comm_op)9, n, a, b, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_comm_all_reduce(comms[0], queues[0], (hcl_dtype)42, HCL_COMM_SUM, n, a, b, 0, NULL, NULL));
    /* a NULL or released buffer where one is read or written: buffers are handles, so HCL_ERROR_INVALID_HANDLE as
     * everywhere in hcl.h (a copy's buffer, a kernel's buffer argument), named in the message */
    hcl_buffer dead = NULL;
    if (CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[0], n * 4, 0, &dead)))
        CHECK_ST(HCL_SUCCESS, hcl_buffer_release(dead));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE,
             hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, NULL, b, 0, NULL, NULL));
    CHECK_MSG_HAS("send");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE,
             hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, a, NULL, 0, NULL, NULL));
    CHECK_MSG_HAS("recv");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE,
             hcl_comm_reduce_scatter(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n / 2, a, dead, 0, NULL, NULL));
    CHECK_MSG_HAS("recv");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_comm_broadcast(comms[0], queues[0], HCL_DTYPE_F32, 0, n, NULL, b, 0, NULL,
                                                          NULL)); /* the root's send */
    CHECK_ST(HCL_ERROR_INVALID_HANDLE,
             hcl_comm_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, 0, n, a, NULL, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_comm_send(comms[0], queues[0], HCL_DTYPE_F32, n, NULL, 1, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_comm_recv(comms[0], queues[0], HCL_DTYPE_F32, n, dead, 1, 0, NULL, NULL));
    CHECK_MSG_HAS("buffer");
    /* send == recv where there is no in-place form */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_comm_all_gather(comms[0], queues[0], HCL_DTYPE_F32, 1, a, a, 0, NULL, NULL));
    /* out_event inside a group; group_end without start */
    if (CHECK_ST(HCL_SUCCESS, hcl_comm_group_start())) {
        CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
                 hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, a, b, 0, NULL, &ev));
        CHECK(ev == NULL, "no event made");
        CHECK_ST(HCL_SUCCESS, hcl_comm_group_end());
    }
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_group_end());
    /* create_all with one device twice; an unknown engine; nccl for non-CUDA devices; staged has no id */
    hcl_device twice[NR] = {devs[0], devs[0]};
    hcl_comm more[NR] = {NULL, NULL};
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_create_all(NR, twice, NULL, more));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_create_all(NR, devs, "carrier-pigeon", more));
    CHECK_ST(HCL_ERROR_UNSUPPORTED, hcl_comm_create_all(NR, devs, "nccl", more));
    CHECK_MSG_HAS("nccl");
    hcl_comm_id id;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_get_id(devs[0], "staged", &id));
    CHECK(more[0] == NULL && more[1] == NULL, "failed create_all made no communicator");
    /* the communicators still work after all that */
    float one[64], got[64];
    for (int i = 0; i < 64; i++) one[i] = (float)i;
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(queues[0], a, 0, sizeof one, one));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(queues[1], other, 0, sizeof one, one));
    if (CHECK_ST(HCL_SUCCESS, hcl_comm_group_start())) {
        CHECK_ST(HCL_SUCCESS,
                 hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, n, a, a, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS,
                 hcl_comm_all_reduce(comms[1], queues[1], HCL_DTYPE_F32, HCL_COMM_SUM, n, other, other, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_comm_group_end());
    }
    CHECK_ST(HCL_SUCCESS, hcl_buffer_read(queues[1], other, 0, sizeof got, got));
    for (int i = 0; i < 64; i++) CHECK(got[i] == 2.0f * (float)i, "element %d: %g, want %g", i, got[i], 2.0 * i);
    /* a buffer this rank does not use may be NULL: a reduce's recv and a broadcast's send off the root */
    if (CHECK_ST(HCL_SUCCESS, hcl_comm_group_start())) {
        CHECK_ST(HCL_SUCCESS,
                 hcl_comm_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, 0, n, a, b, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS,
                 hcl_comm_reduce(comms[1], queues[1], HCL_DTYPE_F32, HCL_COMM_SUM, 0, n, other, NULL, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_comm_broadcast(comms[0], queues[0], HCL_DTYPE_F32, 0, n, b, b, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_comm_broadcast(comms[1], queues[1], HCL_DTYPE_F32, 0, n, NULL, other, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_comm_group_end());
    }
    CHECK_ST(HCL_SUCCESS, hcl_buffer_read(queues[1], other, 0, sizeof got, got));
    for (int i = 0; i < 64; i++) CHECK(got[i] == 4.0f * (float)i, "element %d: %g, want %g", i, got[i], 4.0 * i);
done:
    if (a) hcl_buffer_release(a);
    if (b) hcl_buffer_release(b);
    if (small) hcl_buffer_release(small);
    if (other) hcl_buffer_release(other);
    close_pair();
    conf_end();
}

/* ---- a rank that never posts ---- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void timeout_case(const comm_pair *p, bool group) {
    hcl_buffer a = NULL, b = NULL;
    if (!open_pair(p) || !make_comms()) goto done;
    const double limit = 0.5;
    CHECK_ST(HCL_SUCCESS, hcl_comm_set_timeout(comms[0], limit));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_set_timeout(comms[0], 0));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_comm_set_timeout(comms[0], NAN));
    if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[0], 4096, 0, &a)) ||
        !CHECK_ST(HCL_SUCCESS, hcl_buffer_create(devs[1], 4096, 0, &b)))
        goto done;
    const double t0 = now_s();
    hcl_status st;
    if (group) {
        CHECK_ST(HCL_SUCCESS, hcl_comm_group_start());
        CHECK_ST(HCL_SUCCESS, hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, 1024, a, a, 0, NULL,
                                                  NULL)); /* recorded only */
        st = hcl_comm_group_end();
    } else {
        st = hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, 1024, a, a, 0, NULL, NULL);
    }
    const double dt = now_s() - t0;
    CHECK(st == HCL_ERROR_TIMEOUT, "rank 0 alone: %s (%s), want HCL_ERROR_TIMEOUT", hcl_status_name(st),
          hcl_last_message());
    CHECK(strstr(hcl_last_message(), "rank 1") != NULL, "the message names the missing rank: %s", hcl_last_message());
    CHECK(dt >= limit * 0.9 && dt < limit + 2.0, "timed out after %.3f s with a timeout of %.1f s", dt, limit);
    cr_log_info("comm: rank 0 alone timed out after %.3f s (timeout %.1f s): %s", dt, limit, hcl_last_message());
    /* broken for both ranks from now on */
    CHECK_ST(HCL_ERROR_TIMEOUT,
             hcl_comm_all_reduce(comms[0], queues[0], HCL_DTYPE_F32, HCL_COMM_SUM, 1024, a, a, 0, NULL, NULL));
    CHECK_MSG_HAS("broken");
    CHECK_ST(HCL_ERROR_TIMEOUT,
             hcl_comm_all_reduce(comms[1], queues[1], HCL_DTYPE_F32, HCL_COMM_SUM, 1024, b, b, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_TIMEOUT, hcl_comm_finish(comms[1], queues[1]));
done:
    if (a) hcl_buffer_release(a);
    if (b) hcl_buffer_release(b);
    close_pair();
}

ParameterizedTestParameters(comm, timeout) { return pair_params(); }
ParameterizedTest(comm_pair *p, comm, timeout, .timeout = CONF_TIMEOUT_S) {
    conf_begin_global("comm", "timeout");
    timeout_case(p, false);
    conf_end();
}

ParameterizedTestParameters(comm, timeout_group) { return pair_params(); }
ParameterizedTest(comm_pair *p, comm, timeout_group, .timeout = CONF_TIMEOUT_S) {
    conf_begin_global("comm", "timeout_group");
    timeout_case(p, true);
    conf_end();
}

/* ---- engines ---- */

/* HCL_MPI_LIBRARY names a library that is not there: the mpi engine is reported unavailable with the dlerror text
 * and the name tried, and an mpi id cannot be made (the reason in the message). Runs whether or not MPI is installed
 * (each Criterion test is a process of its own, so the engine is opened here for the first time). */
CONF_GLOBAL_TEST(comm, mpi_unavailable) {
    setenv("HCL_MPI_LIBRARY", "libhcl-no-such-mpi.so.40", 1);
    uint32_t n = 0;
    REQUIRE_OK(hcl_comm_engine_count(&n));
    CHECK(n == 4, "%u engines, want 4 (nccl, rccl, mpi, staged)", n);
    bool seen = false;
    for (uint32_t i = 0; i < n; i++) {
        hcl_comm_engine_info info;
        REQUIRE_OK(hcl_comm_engine_get_info(i, &info));
        cr_log_info("engine %s (%s): %s%s%s", info.name, info.backends,
                    info.available ? "available " : "unavailable: ", info.available ? info.library : info.reason,
                    info.version);
        if (strcmp(info.name, "staged") == 0) CHECK(info.available, "the staged engine needs no library");
        if (strcmp(info.name, "mpi") != 0) continue;
        seen = true;
        CHECK(!info.available, "mpi available through HCL_MPI_LIBRARY=libhcl-no-such-mpi.so.40");
        CHECK(strstr(info.reason, "libhcl-no-such-mpi.so.40") != NULL, "the reason names the library: %s", info.reason);
    }
    CHECK(seen, "no engine named mpi");
    hcl_device d = NULL;
    hcl_comm_id id;
    if (CHECK_ST(HCL_SUCCESS, hcl_device_open("host", &d))) {
        CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_comm_get_id(d, "mpi", &id));
        CHECK_MSG_HAS("libhcl-no-such-mpi.so.40");
        CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_comm_get_id(d, NULL, &id)); /* the host's default engine */
        CHECK_ST(HCL_SUCCESS, hcl_device_release(d));
    }
}
