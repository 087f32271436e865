/* bench --comm, section 3: the collectives over every device of the selected backend in this process
 * (hcl_comm_create_all; --comm-engine names the engine), one thread issuing each collective for every rank between
 * hcl_comm_group_start and hcl_comm_group_end, sizes --comm-min-bytes to --comm-max-bytes by factors of 2 (nccl-tests
 * -b 8 -e 1G -f 2), in each --types type, with NCCL called directly on the same buffers and streams as the baseline
 * on CUDA devices.
 *
 * Input: rank r's send[i] = ((i + 3r + seed) mod 17) - 8, small integers, so every sum over up to 16 ranks is exact
 * in f32, f16 and bf16 and every rank's result must equal the float64 reference exactly: the check reports the
 * largest error, and anything above 0 (a poisoned NaN that was not overwritten included) fails. */
#define _POSIX_C_SOURCE 200809L

#include "comm_lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int value_of(int r, size_t i, unsigned salt) { return (int)((i + 3u * (unsigned)r + salt) % 17u) - 8; }

typedef struct coll_ctx {
    comm_run *cr;
    hcl_comm *comms;
    hcl_queue *queues;
    hcl_buffer *send, *recv;
    int n, op;
    hcl_dtype dtype;
    size_t count;  /* per call: all_gather's send count, reduce_scatter's recv count, else the buffer's */
    nccl_base *nb; /* NULL: HCL */
    hcl_status last;
} coll_ctx;

static hcl_status issue(coll_ctx *c, int r) {
    hcl_comm m = c->comms[r];
    hcl_queue q = c->queues[r];
    switch (c->op) {
    case OP_ALL_REDUCE:
        return hcl_comm_all_reduce(m, q, c->dtype, HCL_COMM_SUM, c->count, c->send[r], c->recv[r], 0, NULL, NULL);
    case OP_ALL_GATHER: return hcl_comm_all_gather(m, q, c->dtype, c->count, c->send[r], c->recv[r], 0, NULL, NULL);
    case OP_REDUCE_SCATTER:
        return hcl_comm_reduce_scatter(m, q, c->dtype, HCL_COMM_SUM, c->count, c->send[r], c->recv[r], 0, NULL, NULL);
    case OP_BROADCAST: return hcl_comm_broadcast(m, q, c->dtype, 0, c->count, c->send[r], c->recv[r], 0, NULL, NULL);
    case OP_REDUCE:
        return hcl_comm_reduce(m, q, c->dtype, HCL_COMM_SUM, 0, c->count, c->send[r], c->recv[r], 0, NULL, NULL);
    default: {
        hcl_status st = hcl_comm_send(m, q, c->dtype, c->count, c->send[r], (uint32_t)((r + 1) % c->n), 0, NULL, NULL);
        if (st != HCL_SUCCESS) return st;
        return hcl_comm_recv(m, q, c->dtype, c->count, c->recv[r], (uint32_t)((r + c->n - 1) % c->n), 0, NULL, NULL);
    }
    }
}

static int coll_iter(void *ctx, int finish, char *err, size_t err_size) {
    coll_ctx *c = ctx;
    hcl_status st = HCL_SUCCESS;
    if (c->nb) {
        if (nccl_base_issue(c->nb, c->op, c->dtype, c->count, err, err_size)) return 1;
    } else {
        hcl_comm_group_start();
        int failed_rank = -1;
        for (int r = 0; r < c->n && st == HCL_SUCCESS; r++)
            if ((st = issue(c, r)) != HCL_SUCCESS) failed_rank = r;
        if (st != HCL_SUCCESS) {
            hcl_ts_status_text(err, err_size, st, "hcl_comm_%s rank %d", comm_op_names[c->op], failed_rank);
            hcl_comm_group_end(); /* closes the group; the recorded calls' statuses do not matter any more */
            c->last = st;
            return 1;
        }
        if ((st = hcl_comm_group_end()) != HCL_SUCCESS) {
            hcl_ts_status_text(err, err_size, st, "hcl_comm_group_end (%s)", comm_op_names[c->op]);
            c->last = st;
            return 1;
        }
    }
    for (int r = 0; finish && r < c->n; r++) {
        st = c->nb ? hcl_queue_finish(c->queues[r]) : hcl_comm_finish(c->comms[r], c->queues[r]);
        if (st != HCL_SUCCESS) {
            hcl_ts_status_text(err, err_size, st, "%s rank %d", c->nb ? "hcl_queue_finish" : "hcl_comm_finish", r);
            c->last = st;
            return 1;
        }
    }
    return 0;
}

/* Elements that rank r's recv holds after op (0: it is not written there). */
static size_t recv_elems(int op, int r, int n, size_t count) {
    if (op == OP_ALL_GATHER) return count * (size_t)n;
    if (op == OP_REDUCE && r != 0) return 0;
    return count;
}

static double reference(int op, int r, int n, size_t i, size_t count, unsigned salt) {
    double s = 0.0;
    switch (op) {
    case OP_ALL_REDUCE:
    case OP_REDUCE:
        for (int q = 0; q < n; q++) s += value_of(q, i, salt);
        return s;
    case OP_ALL_GATHER: return value_of((int)(i / count), i % count, salt);
    case OP_REDUCE_SCATTER:
        for (int q = 0; q < n; q++) s += value_of(q, (size_t)r * count + i, salt);
        return s;
    case OP_BROADCAST: return value_of(0, i, salt);
    default: return value_of((r + n - 1) % n, i, salt);
    }
}

/* Poison what every rank's recv will hold, run one more iteration, and compare every rank's result with the
 * reference. */
static int verify(coll_ctx *c, void *host, float *vals, unsigned salt, measure *m) {
    const size_t esize = hcl_dtype_size(c->dtype);
    const uint16_t poison = 0xFFFF; /* a NaN in f16 and bf16, and two of them a NaN in f32 */
    hcl_status st = HCL_SUCCESS;
    for (int r = 0; r < c->n && st == HCL_SUCCESS; r++) {
        size_t e = recv_elems(c->op, r, c->n, c->count);
        if (e) st = hcl_buffer_fill(c->queues[r], c->recv[r], 0, e * esize, &poison, 2);
    }
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(m->error, sizeof m->error, st, "hcl_buffer_fill (poison)");
        return m->failed = 1;
    }
    if (coll_iter(c, 1, m->error, sizeof m->error)) return m->failed = 1;
    double worst = 0.0;
    size_t checked = 0;
    for (int r = 0; r < c->n; r++) {
        size_t e = recv_elems(c->op, r, c->n, c->count);
        if (!e) continue;
        if ((st = hcl_buffer_read(c->queues[r], c->recv[r], 0, e * esize, host)) == HCL_SUCCESS)
            st = hcl_convert(HCL_DTYPE_F32, vals, c->dtype, host, e);
        if (st != HCL_SUCCESS) {
            hcl_ts_status_text(m->error, sizeof m->error, st, "reading rank %d's result", r);
            return m->failed = 1;
        }
        for (size_t i = 0; i < e; i++) {
            double d = fabs((double)vals[i] - reference(c->op, r, c->n, i, c->count, salt));
            if (!(d <= worst)) worst = isnan(d) ? INFINITY : d;
        }
        checked += e;
    }
    m->checked = 1;
    m->tol = 0.0;
    m->err = worst;
    snprintf(m->check, sizeof m->check, "%zu elements of %d rank%s, exact", checked, c->n, c->n == 1 ? "" : "s");
    return 0;
}

static int unavailable(hcl_status st) { return st == HCL_ERROR_UNSUPPORTED || st == HCL_ERROR_BACKEND_UNAVAILABLE; }

static void fill_rates(coll_row *r, int n) {
    double f = comm_bus_factor(r->op, n);
    if (measure_ok(&r->hcl) && r->hcl.med_s > 0) {
        r->algbw = (double)r->bytes / r->hcl.med_s / 1e9;
        r->busbw = r->algbw * f;
    }
    if (r->base.present && measure_ok(&r->base) && r->base.med_s > 0)
        r->base_busbw = (double)r->bytes / r->base.med_s / 1e9 * f;
}

void comm_print_coll_header(void) {
    printf("  %12s %12s %-4s %10s %8s %8s %-6s %8s %10s %8s %8s\n", "size", "count", "type", "time us", "algbw",
           "busbw", "check", "max err", "NCCL us", "busbw", "HCL/NCCL");
}

void comm_print_coll_row(const comm_run *cr, const coll_row *r) {
    (void)cr;
    char sz[32], cnt[32], alg[16], bus[16], err[16] = "-", bt[16] = "-", bb[16], ratio[16] = "-", t[16] = "-";
    comm_size_text(r->bytes, sz, sizeof sz);
    snprintf(cnt, sizeof cnt, "%zu", r->bytes / hcl_dtype_size(bench_dtype(r->type)));
    if (r->skipped[0]) {
        char head[96];
        snprintf(head, sizeof head, "  %12s %12s %-4s skipped: ", sz, cnt, type_names[r->type]);
        print_wrapped(stdout, head, "      ", r->skipped);
        return;
    }
    format_rate(alg, sizeof alg, r->algbw);
    format_rate(bus, sizeof bus, r->busbw);
    if (r->algbw > 0 && !(r->busbw > 0)) snprintf(bus, sizeof bus, "0");
    format_rate(bb, sizeof bb, r->base_busbw);
    if (r->hcl.ran) snprintf(t, sizeof t, "%.1f", 1e6 * r->hcl.med_s);
    if (r->base.present && r->base.ran) snprintf(bt, sizeof bt, "%.1f", 1e6 * r->base.med_s);
    if (r->busbw > 0 && r->base_busbw > 0) snprintf(ratio, sizeof ratio, "%.3f", r->busbw / r->base_busbw);
    if (r->hcl.checked) snprintf(err, sizeof err, "%.3g", r->hcl.err);
    const char *check = (r->hcl.checked && !(r->hcl.err <= r->hcl.tol))                                       ? "FAILED"
                        : r->hcl.failed                                                                       ? "ERROR"
                        : (r->base.present && (r->base.failed || (r->base.checked && !(r->base.err <= 0.0)))) ? "FAILED"
                        : r->hcl.checked                                                                      ? "ok"
                                                                                                              : "-";
    printf("  %12s %12s %-4s %10s %8s %8s %-6s %8s %10s %8s %8s\n", sz, cnt, type_names[r->type], t, alg, bus, check,
           err, bt, bb, ratio);
    if (r->hcl.error[0]) print_wrapped(stdout, "      error: ", "        ", r->hcl.error);
    if (r->base.error[0])
        print_wrapped(stdout, "      NCCL error: ", "        ", r->base.error);
    else if (r->base.checked && !(r->base.err <= 0.0))
        print_wrappedf(stdout, "      ", "        ", "NCCL's result differs: max err %.3g", r->base.err);
}

static void op_header(const comm_run *cr, int op) {
    static const char *const how[OP_COUNT] = {
        "sum; size = count x element, busbw = algbw x 2(n-1)/n",
        "size = the gathered buffer (n x each rank's count), busbw = algbw x (n-1)/n",
        "sum; size = each rank's send buffer (n x its result), busbw = algbw x (n-1)/n",
        "root 0; size = count x element, busbw = algbw",
        "sum to root 0; size = count x element, busbw = algbw",
        "rank r sends to r+1 and receives from r-1 (mod n); size = count x element, busbw = algbw"};
    char first[64];
    snprintf(first, sizeof first, "  %s: ", comm_op_names[op]);
    print_wrappedf(stdout, first, "    ", "%s; %d rank%s, engine %s", how[op], cr->nranks, cr->nranks == 1 ? "" : "s",
                   cr->engine[0] ? cr->engine : "-");
}

static coll_row *new_row(comm_run *cr, int op, int type, size_t bytes) {
    if (cr->ncolls == cr->cap_colls) {
        cr->cap_colls = cr->cap_colls ? 2 * cr->cap_colls : 256;
        coll_row *p = realloc(cr->colls, (size_t)cr->cap_colls * sizeof *p);
        if (!p) {
            fprintf(stderr, "bench: out of host memory\n");
            exit(1);
        }
        cr->colls = p;
    }
    coll_row *r = &cr->colls[cr->ncolls++];
    memset(r, 0, sizeof *r);
    r->op = op, r->type = type, r->bytes = bytes;
    snprintf(r->hcl.name, sizeof r->hcl.name, "HCL");
    return r;
}

/* One op in one type at every size. */
static void run_op(comm_run *cr, coll_ctx *c, nccl_base *nb, int op, int type, const size_t *sizes, int nsizes,
                   void *host, float *vals, unsigned salt) {
    const size_t esize = hcl_dtype_size(bench_dtype(type));
    const int n = cr->nranks;
    char skip[320] = "";
    if (op == OP_SENDRECV && n == 1) { /* one row for every size */
        coll_row *r = new_row(cr, op, type, 0);
        snprintf(r->skipped, sizeof r->skipped, "one rank: no peer to send to (every size)");
        comm_print_coll_row(cr, r);
        return;
    }
    for (int k = 0; k < nsizes; k++) {
        size_t elems = sizes[k] / esize, count = elems;
        if (op == OP_ALL_GATHER || op == OP_REDUCE_SCATTER) count = elems / (size_t)n;
        size_t bytes = (op == OP_ALL_GATHER || op == OP_REDUCE_SCATTER ? count * (size_t)n : count) * esize;
        if (k && bytes == cr->colls[cr->ncolls - 1].bytes) continue; /* a size the element rounding repeats */
        coll_row *r = new_row(cr, op, type, bytes);
        r->count = count;
        if (skip[0]) {
            copy_text(r->skipped, sizeof r->skipped, skip);
            comm_print_coll_row(cr, r);
            continue;
        }
        c->op = op, c->count = count, c->nb = NULL, c->last = HCL_SUCCESS;
        char what[128];
        snprintf(what, sizeof what, "%s %zu bytes %s", comm_op_names[op], bytes, type_names[type]);
        /* a probe: a type or op the engine cannot do is a skipped row (and the same for the op's larger sizes) */
        char err[320] = "";
        if (coll_iter(c, 1, err, sizeof err) && unavailable(c->last)) {
            copy_text(skip, sizeof skip, err);
            copy_text(r->skipped, sizeof r->skipped, err);
            comm_print_coll_row(cr, r);
            continue;
        }
        /* HCL and NCCL called directly, timed together (their groups alternate), each then checked */
        coll_ctx base = *c;
        base.nb = nb;
        char what_base[160];
        snprintf(what_base, sizeof what_base, "%s NCCL", what);
        if (nb) snprintf(r->base.name, sizeof r->base.name, "NCCL");
        const comm_timing t[2] = {{what, coll_iter, c, &r->hcl}, {what_base, coll_iter, &base, &r->base}};
        const int failed = comm_timed_pair(cr->opt, t, nb ? 2 : 1);
        if (!(failed & 1)) verify(c, host, vals, salt, &r->hcl);
        if (nb && !(failed & 2)) verify(&base, host, vals, salt, &r->base);
        fill_rates(r, n);
        progress_done();
        comm_print_coll_row(cr, r);
    }
}

void comm_collectives(comm_run *cr) {
    const options *o = cr->opt;
    const int n = cr->nranks;
    hcl_device devs[COMM_MAX_DEVICES];
    hcl_comm comms[COMM_MAX_DEVICES] = {0};
    hcl_queue queues[COMM_MAX_DEVICES];
    hcl_buffer send[COMM_MAX_DEVICES] = {0}, recv[COMM_MAX_DEVICES] = {0};
    int mixed = 0;
    for (int i = 0; i < n; i++) {
        devs[i] = cr->devs[i].device, queues[i] = cr->devs[i].queue;
        mixed |= strcmp(cr->devs[i].info.backend, cr->devs[0].info.backend) != 0;
    }
    printf("3. collectives over %d device%s of %s (hcl_comm_create_all, engine %s; one thread, hcl_comm_group_start/"
           "end):\n",
           n, n == 1 ? "" : "s", mixed ? "mixed backends" : cr->devs[0].info.backend,
           o->comm_engine ? o->comm_engine : "default");
    size_t sizes[COMM_MAX_SIZES];
    int nsizes = comm_sizes(o->comm_min, o->comm_max, 2, sizes, COMM_MAX_SIZES);
    size_t max_bytes = sizes[nsizes - 1];
    hcl_status st = hcl_comm_create_all((uint32_t)n, devs, o->comm_engine, comms);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(cr->coll_skipped, sizeof cr->coll_skipped, st, "hcl_comm_create_all");
        cr->coll_failed = !unavailable(st); /* a bad --comm-engine name, a failing engine: not a skip */
    } else {
        hcl_comm_info ci;
        if (hcl_comm_get_info(comms[0], &ci) == HCL_SUCCESS) copy_text(cr->engine, sizeof cr->engine, ci.engine);
        for (int i = 0; i < n && st == HCL_SUCCESS; i++) {
            st = hcl_buffer_create(devs[i], max_bytes, 0, &send[i]);
            if (st == HCL_SUCCESS) st = hcl_buffer_create(devs[i], max_bytes, 0, &recv[i]);
            if (st != HCL_SUCCESS) {
                hcl_ts_status_text(cr->coll_skipped, sizeof cr->coll_skipped, st, "hcl_buffer_create(%zu) on %s",
                                   max_bytes, cr->devs[i].selector);
                cr->coll_failed = 1;
            }
        }
    }
    /* the baseline: NCCL over the same devices, when every one is a CUDA device */
    nccl_base *nb = NULL;
    int all_cuda = 1;
    for (int i = 0; i < n; i++) all_cuda &= !strcmp(cr->devs[i].info.backend, "cuda");
    if (!o->baselines)
        snprintf(cr->base_note, sizeof cr->base_note, "none: --no-baselines");
    else if (!all_cuda)
        snprintf(cr->base_note, sizeof cr->base_note, "none: the NCCL baseline is for CUDA devices");
    else if (!cr->coll_skipped[0] && nccl_base_open(cr->devs, n, send, recv, &nb, cr->base_note, sizeof cr->base_note))
        nb = NULL;
    print_wrapped(stdout, "  baseline: ", "    ", cr->base_note[0] ? cr->base_note : "-");
    void *host = malloc(max_bytes + 16);
    float *vals = malloc((max_bytes / 2 + 4) * sizeof *vals);
    if (!cr->coll_skipped[0] && (!host || !vals)) {
        snprintf(cr->coll_skipped, sizeof cr->coll_skipped, "out of host memory for %zu bytes", max_bytes);
        cr->coll_failed = 1;
    }
    if (cr->coll_skipped[0])
        print_wrapped(stdout, cr->coll_failed ? "  error: " : "  skipped: ", "    ", cr->coll_skipped);
    const unsigned salt = (unsigned)(o->seed % 17u);
    coll_ctx c = {cr, comms, queues, send, recv, n, 0, HCL_DTYPE_F32, 0, NULL, HCL_SUCCESS};
    for (int type = 0; type < BT_COUNT; type++) {
        if (!(o->types & (1u << type)) || type == BT_TF32) continue;
        c.dtype = bench_dtype(type);
        const size_t esize = hcl_dtype_size(c.dtype), elems = max_bytes / esize;
        /* every rank's send buffer once per type: each size and op reads a prefix of it */
        for (int r = 0; r < n && !cr->coll_skipped[0]; r++) {
            for (size_t i = 0; i < elems; i++) vals[i] = (float)value_of(r, i, salt);
            st = hcl_convert(c.dtype, host, HCL_DTYPE_F32, vals, elems);
            if (st == HCL_SUCCESS) st = hcl_buffer_write(queues[r], send[r], 0, elems * esize, host);
            if (st != HCL_SUCCESS) {
                hcl_ts_status_text(cr->coll_skipped, sizeof cr->coll_skipped, st, "writing rank %d's input", r);
                print_wrapped(stdout, "  error: ", "    ", cr->coll_skipped);
                cr->coll_failed = 1;
            }
        }
        for (int op = 0; op < OP_COUNT; op++) {
            if (!(o->comm_ops & (1u << op))) continue;
            if (cr->coll_skipped[0]) { /* a row per op that says why, so the JSON and CSV carry it too */
                coll_row *r = new_row(cr, op, type, 0);
                copy_text(r->skipped, sizeof r->skipped, cr->coll_skipped);
                printf("  %-14s %-4s %s (the reason above)\n", comm_op_names[op], type_names[type],
                       cr->coll_failed ? "not run" : "skipped");
                continue;
            }
            printf("\n");
            op_header(cr, op);
            comm_print_coll_header();
            run_op(cr, &c, nb, op, type, sizes, nsizes, host, vals, salt);
            fflush(stdout);
        }
    }
    if (nb) nccl_base_close(nb);
    for (int i = 0; i < n; i++) {
        if (send[i]) hcl_buffer_release(send[i]);
        if (recv[i]) hcl_buffer_release(recv[i]);
        if (comms[i] && (st = hcl_comm_release(comms[i])) != HCL_SUCCESS)
            print_wrappedf(stdout, "", "  ", "error: hcl_comm_release rank %d: %s: %s", i, hcl_status_name(st),
                           hcl_last_message());
    }
    free(host);
    free(vals);
}
