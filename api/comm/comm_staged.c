/* The staged engine (comm_engine.h): the ranks of one hcl_comm_create_all, devices of one process of any backends,
 * share a clique. Each rank's collectives are numbered; collective k completes when every rank has posted its k-th,
 * and the last poster runs it for all (inside a group: at its group_end, so that the send/recv pairs of a group run
 * together): it stages every rank's part to host memory through the buffer's driver, combines there and writes every
 * rank's result (on a queue of the clique's beside the rank's, so that each link carries both directions at once),
 * then wakes the others. send/recv pair by order on each (src, dst), and up to COPY_WAYS pairs ready together are
 * copied at once. One thread runs the clique's work at a time (the executor: whoever made work ready while none ran,
 * or ended the group that did), so the staging memory is the clique's, reused, and collectives run in their order.
 * Outside a group a poster that is not last waits (condition variable) until its part is done or the communicator's
 * timeout passes; inside a group posting returns at once and group_end waits for what this thread posted. A timeout
 * breaks the clique for every rank: waiters wake with the status, later posts fail at once. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "comm_engine.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK_ELEMS ((size_t)1 << 20) /* elements staged per rank at a time: bounds the staging memory */

enum { SLOT_WAITING = 0, SLOT_READY = 1, SLOT_DONE = 2 };

/* One collective (or one send/recv pair) and its ranks' parts. */
typedef struct slot {
    struct slot *next;  /* the clique's list of slots not yet collected by every poster */
    struct slot *rnext; /* the ready queue */
    int p2p;
    uint64_t seq;                  /* collectives: the clique's number; p2p: the number on its (src, dst) channel */
    uint32_t src, dst;             /* p2p */
    uint32_t needed, posted, refs; /* refs: posters that have not collected the result yet */
    int state;
    hcl_status status;
    char why[512];
    hcl__coll *parts; /* per rank; q != NULL once posted */
} slot;

typedef struct clique {
    pthread_mutex_t lock;
    pthread_cond_t cond;           /* broadcast whenever a slot completes or the clique breaks */
    uint32_t size, live, tickets;  /* live communicators, group tickets not collected */
    hcl__comm **comms;             /* per rank, NULL once destroyed */
    uint64_t *coll_seq;            /* per rank: the number of its next collective */
    uint64_t *send_seq, *recv_seq; /* [src * size + dst] */
    slot *slots, *ready_head, *ready_tail;
    int executing;
    hcl_status broken;
    char broken_why[512];
    hcl__comm_host_mem mem; /* the executor's staging memory */
    hcl__queue *outq;       /* per rank: a queue of its device for what the host writes to it, made on first use */
    hcl__buffer *scratch;   /* per rank: device memory for another rank's part (reduce_on_devices), grown on use */
    unsigned host_types;    /* bit t: a rank's device cannot add type t (reductions of t combine on the host) */
} clique;

/* What this thread's group (hcl__comm_group) holds: the slots it posted, collected by group_end. */
typedef struct ticket {
    clique *cl;
    slot *s;
    hcl__comm *comm;
} ticket;

static void clique_free(clique *cl) {
    for (slot *s = cl->slots, *n; s; s = n) {
        n = s->next;
        free(s->parts);
        free(s);
    }
    hcl__comm_host_free(&cl->mem);
    for (uint32_t r = 0; cl->outq && r < cl->size; r++) hcl__comm_side_queue_free(&cl->outq[r]);
    free(cl->outq);
    for (uint32_t r = 0; cl->scratch && r < cl->size; r++) hcl__comm_scratch_free(&cl->scratch[r]);
    free(cl->scratch);
    pthread_mutex_destroy(&cl->lock);
    pthread_cond_destroy(&cl->cond);
    free(cl->comms);
    free(cl->coll_seq);
    free(cl->send_seq);
    free(cl->recv_seq);
    free(cl);
}

/* ---- running a slot (by the executor, without the lock) ---- */

/* Wait for every event of ev[0..n) on the ranks' queues (all of them, whatever fails), keeping the first failure. */
static hcl_status wait_all(const slot *s, void **ev, uint32_t n, hcl_status st) {
    for (uint32_t r = 0; r < n; r++) hcl__comm_stage_wait(s->parts[r].q, &ev[r], &st);
    return st;
}

/* Staging sets (buffers) of a pipeline: chunk k fills set k % STAGING_SETS. Three, so that refilling a set never waits
 * for the chunk just taken out of the one before: in a reduction chunk k comes in while chunk k-1 is combined and
 * chunk k-2's results go out. */
#define STAGING_SETS 3

/* Bytes of one staging set of a reduction: the float32 accumulator and every rank's input chunk. */
static size_t reduce_set_bytes(size_t es, uint32_t ranks) {
    return (CHUNK_ELEMS * (sizeof(float) + es * ranks) + 63) & ~(size_t)63;
}

/* Rank r's queue for what the host writes to its buffers (hcl__comm_side_queue): a device's link then carries chunks
 * in (on q) and results out (there) at once. */
static hcl_status out_queue(clique *cl, uint32_t r, hcl__queue *q, hcl__queue **out_q) {
    *out_q = &cl->outq[r];
    return hcl__comm_side_queue(&cl->outq[r], q);
}

/* recv[dst_base + i] = op over ranks of send[src_base + i], i < count, written to every rank's recv (only_rank
 * UINT32_MAX) or to only_rank's. Pipelined in chunks through STAGING_SETS staging sets: while the host combines chunk
 * k-1, every rank's part of chunk k is on its way in on the rank's queue (all devices' links at once) and the results
 * of chunk k-2 on its way out on the rank's result queue. The results are written after the rank's chunk was read on
 * its queue, so after everything the caller queued before the collective. */
static hcl_status reduce_range(clique *cl, slot *s, size_t src_base, size_t dst_base, size_t count,
                               uint32_t only_rank) {
    const hcl__coll *p0 = &s->parts[0];
    const uint32_t ranks = cl->size;
    const size_t es = hcl_dtype_size(p0->type), stride = CHUNK_ELEMS * es, set_bytes = reduce_set_bytes(es, ranks);
    const size_t chunks = (count + CHUNK_ELEMS - 1) / CHUNK_ELEMS;
    void *ev_in[STAGING_SETS][ranks], *ev_out[STAGING_SETS][ranks];
    hcl__queue *outq[ranks];
    hcl_status st = HCL_SUCCESS;
    for (uint32_t r = 0; r < ranks; r++) {
        for (int j = 0; j < STAGING_SETS; j++) ev_in[j][r] = ev_out[j][r] = NULL;
        outq[r] = NULL;
        if (st == HCL_SUCCESS && (only_rank == UINT32_MAX || r == only_rank) && s->parts[r].recv)
            st = out_queue(cl, r, s->parts[r].q, &outq[r]);
    }
    /* where the executor's time goes (HCL_LOG=debug): waiting for a set's results to be out, for a chunk's inputs to
     * be in, and combining */
    const double t_start = hcl__comm_now_s();
    double t_free = 0, t_in = 0, t_combine = 0, t;
    for (size_t k = 0; k <= chunks && st == HCL_SUCCESS; k++) {
        if (k < chunks) { /* chunk k into set k % STAGING_SETS, once that set's last results are out */
            const size_t j = k % STAGING_SETS, off = k * CHUNK_ELEMS,
                         n = count - off < CHUNK_ELEMS ? count - off : CHUNK_ELEMS;
            unsigned char *set = (unsigned char *)cl->mem.ptr + j * set_bytes;
            t = hcl__comm_now_s();
            for (uint32_t r = 0; r < ranks; r++)
                if (outq[r]) hcl__comm_stage_wait(outq[r], &ev_out[j][r], &st);
            t_free += hcl__comm_now_s() - t;
            for (uint32_t r = 0; r < ranks && st == HCL_SUCCESS; r++)
                st = hcl__comm_stage_in_async(s->parts[r].q, s->parts[r].send, (src_base + off) * es, n * es,
                                              set + CHUNK_ELEMS * sizeof(float) + r * stride, &ev_in[j][r]);
        }
        if (k == 0 || st != HCL_SUCCESS) continue;
        const size_t j = (k - 1) % STAGING_SETS, off = (k - 1) * CHUNK_ELEMS;
        const size_t n = count - off < CHUNK_ELEMS ? count - off : CHUNK_ELEMS;
        unsigned char *set = (unsigned char *)cl->mem.ptr + j * set_bytes, *in = set + CHUNK_ELEMS * sizeof(float);
        float *acc = (float *)set;
        t = hcl__comm_now_s();
        if ((st = wait_all(s, ev_in[j], ranks, st)) != HCL_SUCCESS) break;
        t_in += hcl__comm_now_s() - t;
        t = hcl__comm_now_s();
        hcl__comm_combine_ranks(p0->op, p0->type, acc, in, stride, ranks, n, 8);
        /* f32: the result is acc; 16-bit types: narrowed into the first rank's input, combined by now */
        unsigned char *out = p0->type == HCL_DTYPE_F32 ? (unsigned char *)acc : in;
        if (p0->type != HCL_DTYPE_F32) hcl__comm_narrow(p0->type, acc, out, n);
        t_combine += hcl__comm_now_s() - t;
        for (uint32_t r = 0; r < ranks && st == HCL_SUCCESS; r++)
            if (outq[r])
                st = hcl__comm_stage_out_async(outq[r], s->parts[r].recv, (dst_base + off) * es, n * es, out,
                                               &ev_out[j][r]);
    }
    hcl_status in_st = HCL_SUCCESS, out_st = HCL_SUCCESS; /* every command waited for, whatever failed */
    for (int j = 0; j < STAGING_SETS; j++) {
        in_st = wait_all(s, ev_in[j], ranks, in_st);
        for (uint32_t r = 0; r < ranks; r++)
            if (outq[r]) hcl__comm_stage_wait(outq[r], &ev_out[j][r], &out_st);
    }
    if (st == HCL_SUCCESS) st = in_st != HCL_SUCCESS ? in_st : out_st;
    hcl__log(HCL_LOG_DEBUG, "comm",
             "staged reduction of %zu %s x %u ranks: %zu chunks in %.3f ms; waiting for free sets %.3f ms, for inputs "
             "%.3f ms, combining %.3f ms",
             count, hcl_dtype_name(p0->type), ranks, chunks, 1e3 * (hcl__comm_now_s() - t_start), 1e3 * t_free,
             1e3 * t_in, 1e3 * t_combine);
    return st == HCL_SUCCESS ? st : hcl__prefix_message(st, "staging a reduction through the host");
}

/* Copies staged at once, each with its own staging buffers (several sources' links work in parallel). */
#define COPY_WAYS 4

/* One copy: count elements from `from`'s send (at src_base) to the recv (at dst_base) of each of to[0..nto), written on
 * toq[i] (out_queue). */
typedef struct xfer {
    const hcl__coll *from;
    size_t src_base, dst_base, count;
    uint32_t nto;
    hcl__coll *const *to;
    hcl__queue *const *toq;
} xfer;

/* Whether copy x writes to[i]'s recv at all: not when it has nothing to receive, or is the source's own buffer in
 * place. The source's own recv is one copy on its device; every other through the host. */
static int writes(const xfer *x, uint32_t i) {
    const hcl__coll *t = x->to[i];
    return t->recv && !(t->recv == x->from->send && x->dst_base == x->src_base);
}

/* The copies x[0..nx) (nx <= COPY_WAYS), pipelined in chunks through STAGING_SETS staging buffers each: every copy's
 * chunk k comes in (on its source's queue) while earlier chunks go out to every destination at once (on the
 * destinations' own queues), and a buffer is refilled as soon as its chunk is out, so a source's link never waits for
 * a destination's. A source's own recv (the root's in a broadcast, a rank's own block in an all-gather) is one copy
 * on its device. */
static hcl_status copy_ranges(clique *cl, const xfer *x, uint32_t nx) {
    const size_t es = hcl_dtype_size(x[0].from->type), piece = CHUNK_ELEMS * es;
    const uint32_t ranks = cl->size;
    size_t chunks = 0;
    void *ev_in[STAGING_SETS][nx], *ev_out[STAGING_SETS][nx][ranks], *ev_local[nx];
    hcl_status st = HCL_SUCCESS;
    for (uint32_t c = 0; c < nx; c++) {
        const size_t ch = (x[c].count + CHUNK_ELEMS - 1) / CHUNK_ELEMS;
        chunks = ch > chunks ? ch : chunks;
        ev_local[c] = NULL;
        for (int j = 0; j < STAGING_SETS; j++) {
            ev_in[j][c] = NULL;
            for (uint32_t i = 0; i < ranks; i++) ev_out[j][c][i] = NULL;
        }
    }
    for (uint32_t c = 0; c < nx && st == HCL_SUCCESS; c++)
        for (uint32_t i = 0; i < x[c].nto && st == HCL_SUCCESS; i++) {
            const hcl__coll *f = x[c].from, *t = x[c].to[i];
            if (t == f && writes(&x[c], i))
                st = f->q->dev->drv->buffer_copy(f->q->native, t->recv->native, x[c].dst_base * es, f->send->native,
                                                 x[c].src_base * es, x[c].count * es, 0, 0, NULL, &ev_local[c]);
        }
    for (size_t k = 0; k <= chunks && st == HCL_SUCCESS; k++) {
        for (uint32_t c = 0; c < nx && st == HCL_SUCCESS && k < chunks; c++) {
            /* chunk k of copy c into its buffer k % STAGING_SETS, once that buffer's last chunk is out */
            const size_t j = k % STAGING_SETS, off = k * CHUNK_ELEMS;
            if (off >= x[c].count) continue;
            const size_t n = x[c].count - off < CHUNK_ELEMS ? x[c].count - off : CHUNK_ELEMS;
            for (uint32_t i = 0; i < x[c].nto; i++) hcl__comm_stage_wait(x[c].toq[i], &ev_out[j][c][i], &st);
            if (st == HCL_SUCCESS)
                st = hcl__comm_stage_in_async(x[c].from->q, x[c].from->send, (x[c].src_base + off) * es, n * es,
                                              (unsigned char *)cl->mem.ptr + (j * nx + c) * piece, &ev_in[j][c]);
        }
        for (uint32_t c = 0; c < nx && st == HCL_SUCCESS && k > 0; c++) {
            const size_t j = (k - 1) % STAGING_SETS, off = (k - 1) * CHUNK_ELEMS;
            if (off >= x[c].count) continue;
            const size_t n = x[c].count - off < CHUNK_ELEMS ? x[c].count - off : CHUNK_ELEMS;
            hcl__comm_stage_wait(x[c].from->q, &ev_in[j][c], &st);
            for (uint32_t i = 0; i < x[c].nto && st == HCL_SUCCESS; i++)
                if (x[c].to[i] != x[c].from && writes(&x[c], i))
                    st = hcl__comm_stage_out_async(x[c].toq[i], x[c].to[i]->recv, (x[c].dst_base + off) * es, n * es,
                                                   (unsigned char *)cl->mem.ptr + (j * nx + c) * piece,
                                                   &ev_out[j][c][i]);
        }
    }
    hcl_status done = HCL_SUCCESS; /* every command waited for, whatever failed */
    for (uint32_t c = 0; c < nx; c++) {
        hcl__comm_stage_wait(x[c].from->q, &ev_local[c], &done);
        for (int j = 0; j < STAGING_SETS; j++) {
            hcl__comm_stage_wait(x[c].from->q, &ev_in[j][c], &done);
            for (uint32_t i = 0; i < x[c].nto; i++) hcl__comm_stage_wait(x[c].toq[i], &ev_out[j][c][i], &done);
        }
    }
    if (st == HCL_SUCCESS) st = done;
    return st == HCL_SUCCESS ? st : hcl__prefix_message(st, "staging a copy through the host");
}

/* Rank r's scratch buffer of at least `bytes` on dev (every command that used the old one was waited for). */
static hcl_status scratch_get(clique *cl, uint32_t r, hcl__device *dev, size_t bytes, hcl__buffer **out) {
    *out = &cl->scratch[r];
    return hcl__comm_scratch_reserve(&cl->scratch[r], dev, bytes, "device memory for the staged engine");
}

/* A sum over two ranks (all_reduce, reduce, reduce_scatter), added on the devices: each receiving rank gets the other
 * rank's part through the host into its scratch (both ways at once), then adds it to its own part on its device with
 * the built-in vecadd (float32 arithmetic, one rounding: the host's result). The host's memory then carries only the
 * copies, where a combine on the host would read the parts again and write the sums (on two H100s' host the combine
 * alone took half the time of an all-reduce). 1 when it does not apply (more ranks, another op, a device whose
 * vecadd lacks the type, or no device memory for the other's part): the caller combines on the host. */
static int reduce_on_devices(clique *cl, slot *s, hcl_status *out_st) {
    const hcl__coll *p0 = &s->parts[0];
    const size_t es = hcl_dtype_size(p0->type), count = p0->count;
    const int scatter = p0->kind == HCL__COLL_REDUCE_SCATTER;
    if (cl->size != 2 || p0->op != HCL_COMM_SUM || !count || (cl->host_types >> p0->type & 1u)) return 1;
    for (uint32_t r = 0; r < 2; r++) {
        hcl__builtin_call call = {.op = HCL_KOP_VECADD, .type = p0->type, .n = count};
        if (hcl__builtin_check("staged engine", s->parts[r].q->dev, &call) != HCL_SUCCESS) {
            cl->host_types |= 1u << p0->type;
            return 1;
        }
    }
    hcl_status st = HCL_SUCCESS;
    hcl__coll dst[2];
    hcl__coll *to[2];
    hcl__queue *toq[2];
    hcl__buffer *scr[2];
    uint32_t who[2], nx = 0;
    xfer x[2];
    for (uint32_t r = 0; r < 2 && st == HCL_SUCCESS; r++) {
        hcl__coll *p = &s->parts[r];
        if (!p->recv || (p0->kind == HCL__COLL_REDUCE && r != p0->root)) continue;
        if (scratch_get(cl, r, p->q->dev, count * es, &scr[nx]) != HCL_SUCCESS) {
            hcl__log(HCL_LOG_DEBUG, "comm", "staged sum of %zu %s on the host: %s", count, hcl_dtype_name(p0->type),
                     hcl_last_message());
            return 1; /* no device memory for the other's part: the host combines (nothing was queued yet) */
        }
        if ((st = out_queue(cl, r, p->q, &toq[nx])) != HCL_SUCCESS) break;
        dst[nx] = *p;
        dst[nx].recv = scr[nx];
        to[nx] = &dst[nx];
        x[nx] = (xfer){&s->parts[1 - r], scatter ? r * count : 0, 0, count, 1, &to[nx], &toq[nx]};
        who[nx++] = r;
    }
    if (st == HCL_SUCCESS) st = copy_ranges(cl, x, nx);
    for (uint32_t i = 0; i < nx && st == HCL_SUCCESS; i++) {
        hcl__coll *p = &s->parts[who[i]];
        const hcl_driver_table *d = p->q->dev->drv;
        hcl__buffer *own = p->send;
        if (scatter) { /* this rank's block of its own part, where vecadd finds it: recv, added to in place */
            st = d->buffer_copy(p->q->native, p->recv->native, 0, p->send->native, who[i] * count * es, count * es, 0,
                                0, NULL, NULL);
            own = p->recv;
        }
        hcl__builtin_call call = {.op = HCL_KOP_VECADD, .type = p->type, .n = count};
        call.mem[HCL_KSLOT_A] = own->native;
        call.mem[HCL_KSLOT_B] = scr[i]->native;
        call.mem[HCL_KSLOT_C] = p->recv->native;
        if (st == HCL_SUCCESS) st = hcl__builtin_run("staged engine", p->q, &call, NULL);
    }
    for (uint32_t i = 0; i < nx; i++) { /* done before the collective is (the scratch is reused) */
        hcl__queue *q = s->parts[who[i]].q;
        void *ev = NULL;
        hcl_status w = q->dev->drv->queue_marker(q->native, 0, NULL, &ev);
        if (w == HCL_SUCCESS) hcl__comm_stage_wait(q, &ev, &w);
        if (st == HCL_SUCCESS) st = w;
    }
    *out_st = st == HCL_SUCCESS ? st : hcl__prefix_message(st, "adding on the devices");
    return 0;
}

/* Run slots s[0..ns): one collective, or up to COPY_WAYS send/recv pairs at once. */
static hcl_status execute(clique *cl, slot *const *s, uint32_t ns) {
    const hcl__coll *p0 = s[0]->p2p ? &s[0]->parts[s[0]->src] : &s[0]->parts[0];
    const size_t es = hcl_dtype_size(p0->type), count = p0->count;
    const uint32_t ranks = cl->size, ways = ranks < COPY_WAYS ? ranks : COPY_WAYS;
    const int reduction = !s[0]->p2p && (p0->kind == HCL__COLL_ALL_REDUCE || p0->kind == HCL__COLL_REDUCE ||
                                         p0->kind == HCL__COLL_REDUCE_SCATTER);
    size_t most = 0; /* the largest element size of the slots (send/recv pairs may differ) */
    for (uint32_t i = 0; i < ns; i++) {
        const hcl__coll *p = s[i]->p2p ? &s[i]->parts[s[i]->src] : &s[i]->parts[0];
        most = hcl_dtype_size(p->type) > most ? hcl_dtype_size(p->type) : most;
    }
    /* page-locked by the first part's driver where it can (the posters' devices outlive their pending parts); a
     * reduction's sets also hold reduce_on_devices' two copies (STAGING_SETS x 2 chunks of es bytes) */
    hcl_status st = hcl__comm_host_reserve(
        &cl->mem, p0->q->dev, STAGING_SETS * (reduction ? reduce_set_bytes(es, ranks) : ways * CHUNK_ELEMS * most));
    if (st != HCL_SUCCESS) return st;
    if (reduction && !reduce_on_devices(cl, s[0], &st)) return st;
    if (reduction) {
        if (p0->kind != HCL__COLL_REDUCE_SCATTER)
            return reduce_range(cl, s[0], 0, 0, count, p0->kind == HCL__COLL_REDUCE ? p0->root : UINT32_MAX);
        /* every rank's send[r * count ..) reduced into rank r's recv */
        for (uint32_t r = 0; r < ranks && st == HCL_SUCCESS; r++) st = reduce_range(cl, s[0], r * count, 0, count, r);
        return st;
    }
    xfer x[COPY_WAYS];
    hcl__coll *to[COPY_WAYS][ranks];
    hcl__queue *toq[COPY_WAYS][ranks];
    if (s[0]->p2p) { /* every pair at once: a ring's sends and receives use both directions of each link */
        for (uint32_t i = 0; i < ns && st == HCL_SUCCESS; i++) {
            const uint32_t dst = s[i]->dst;
            to[i][0] = &s[i]->parts[dst];
            st = out_queue(cl, dst, to[i][0]->q, &toq[i][0]);
            x[i] = (xfer){&s[i]->parts[s[i]->src], 0, 0, to[i][0]->count, 1, to[i], toq[i]};
        }
        return st == HCL_SUCCESS ? copy_ranges(cl, x, ns) : st;
    }
    hcl__queue *oq[ranks];
    for (uint32_t r = 0; r < ranks && st == HCL_SUCCESS; r++) st = out_queue(cl, r, s[0]->parts[r].q, &oq[r]);
    if (st != HCL_SUCCESS) return st;
    /* broadcast: the root's send to every rank; all_gather: each rank's send to block r of every rank, up to COPY_WAYS
     * sources at once */
    const int bcast = p0->kind == HCL__COLL_BROADCAST;
    if (!bcast && p0->kind != HCL__COLL_ALL_GATHER)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "kind %d", (int)p0->kind);
    const uint32_t sources = bcast ? 1 : ranks;
    for (uint32_t first = 0; first < sources && st == HCL_SUCCESS; first += ways) {
        const uint32_t nx = sources - first < ways ? sources - first : ways;
        for (uint32_t c = 0; c < nx; c++) {
            const uint32_t src = bcast ? p0->root : first + c;
            for (uint32_t r = 0; r < ranks; r++) to[c][r] = &s[0]->parts[r], toq[c][r] = oq[r];
            x[c] = (xfer){&s[0]->parts[src], 0, bcast ? 0 : src * count, count, ranks, to[c], toq[c]};
        }
        st = copy_ranges(cl, x, nx);
    }
    return st;
}

/* ---- the clique's bookkeeping (under its lock) ---- */

static void slot_finish(clique *cl, slot *s, hcl_status st, const char *why) {
    s->state = SLOT_DONE;
    s->status = st;
    snprintf(s->why, sizeof s->why, "%s", st == HCL_SUCCESS ? "" : why);
    pthread_cond_broadcast(&cl->cond);
}

/* Break the clique with the current thread message: every communicator of it, every slot not done. */
static void clique_break(clique *cl, hcl_status st) {
    if (cl->broken) return;
    cl->broken = st;
    snprintf(cl->broken_why, sizeof cl->broken_why, "%s", hcl_last_message());
    for (uint32_t r = 0; r < cl->size; r++)
        if (cl->comms[r]) hcl__comm_break(cl->comms[r], st);
    for (slot *s = cl->slots; s; s = s->next)
        if (s->state == SLOT_WAITING) slot_finish(cl, s, st, cl->broken_why);
    pthread_cond_broadcast(&cl->cond);
}

/* Run ready slots until none is left, unless another thread does it already. Called with the lock held. */
static void drain(clique *cl) {
    if (cl->executing) return;
    cl->executing = 1;
    while (cl->ready_head) {
        /* the next collective, or the run of send/recv pairs ready next (up to COPY_WAYS, run at once) */
        slot *batch[COPY_WAYS];
        uint32_t n = 0;
        do {
            batch[n++] = cl->ready_head;
            cl->ready_head = cl->ready_head->rnext;
        } while (batch[0]->p2p && n < COPY_WAYS && cl->ready_head && cl->ready_head->p2p);
        if (!cl->ready_head) cl->ready_tail = NULL;
        if (cl->broken) {
            for (uint32_t i = 0; i < n; i++) slot_finish(cl, batch[i], cl->broken, cl->broken_why);
            continue;
        }
        pthread_mutex_unlock(&cl->lock);
        hcl_status st = execute(cl, batch, n);
        char why[512];
        snprintf(why, sizeof why, "%s", st == HCL_SUCCESS ? "" : hcl_last_message());
        pthread_mutex_lock(&cl->lock);
        for (uint32_t i = 0; i < n; i++) slot_finish(cl, batch[i], st, why);
    }
    cl->executing = 0;
}

static slot *slot_new(clique *cl, int p2p, uint64_t seq, uint32_t src, uint32_t dst) {
    slot *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (!(s->parts = calloc(cl->size, sizeof *s->parts))) {
        free(s);
        return NULL;
    }
    s->p2p = p2p, s->seq = seq, s->src = src, s->dst = dst;
    s->needed = p2p ? 2 : cl->size;
    s->next = cl->slots;
    cl->slots = s;
    return s;
}

static slot *slot_find(clique *cl, int p2p, uint64_t seq, uint32_t src, uint32_t dst) {
    for (slot *s = cl->slots; s; s = s->next)
        if (s->p2p == p2p && s->seq == seq && (!p2p || (s->src == src && s->dst == dst))) return s;
    return slot_new(cl, p2p, seq, src, dst);
}

/* Take this poster's result and drop its reference; the last one frees the slot. */
static hcl_status collect(clique *cl, slot *s) {
    hcl_status st = s->status;
    if (st != HCL_SUCCESS) hcl__set_message(st, "%s", s->why);
    if (--s->refs == 0) {
        for (slot **p = &cl->slots; *p; p = &(*p)->next)
            if (*p == s) {
                *p = s->next;
                break;
            }
        free(s->parts);
        free(s);
    }
    return st;
}

static void deadline_after(struct timespec *ts, double seconds) {
    clock_gettime(CLOCK_REALTIME, ts);
    double whole = floor(seconds);
    ts->tv_sec += (time_t)whole;
    ts->tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) ts->tv_sec++, ts->tv_nsec -= 1000000000L;
}

static const char *slot_name(const slot *s, const hcl__coll *p) {
    return s->p2p ? (p->kind == HCL__COLL_SEND ? "send" : "recv") : hcl__coll_name(p->kind);
}

/* Wait (lock held) until s is done, or comm's timeout passes while a rank has not posted: then break the clique. A
 * slot whose parts are all posted is waited for without a limit while the executor works (it is not stuck on a
 * rank), and so is any slot while the executor runs other work of the clique. */
static hcl_status wait_slot(clique *cl, slot *s, hcl__comm *comm, double seconds) {
    struct timespec deadline;
    deadline_after(&deadline, seconds);
    while (s->state != SLOT_DONE) {
        int rc = pthread_cond_timedwait(&cl->cond, &cl->lock, &deadline);
        if (rc != ETIMEDOUT || s->state == SLOT_DONE) continue;
        if (s->state == SLOT_READY || cl->executing) {
            deadline_after(&deadline, seconds);
            continue;
        }
        char missing[160] = "";
        size_t len = 0;
        for (uint32_t r = 0; r < cl->size && len + 12 < sizeof missing; r++)
            if ((!s->p2p || r == s->src || r == s->dst) && !s->parts[r].q)
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%u", len ? ", " : "", r);
        const hcl__coll *p = &s->parts[comm->rank];
        hcl__set_message(HCL_ERROR_TIMEOUT,
                         "staged %s #%llu of rank %u: rank %s did not post its part within %g s; "
                         "the communicator is broken",
                         slot_name(s, p), (unsigned long long)s->seq, comm->rank, missing, seconds);
        clique_break(cl, HCL_ERROR_TIMEOUT);
    }
    hcl_status st = collect(cl, s);
    if (st != HCL_SUCCESS && cl->broken) hcl__comm_break(comm, st);
    return st;
}

/* Check a part against one already posted: every rank must issue the same collective with the same count, type,
 * op and root; a send and its recv the same count and type. */
static hcl_status check_match(const clique *cl, const slot *s, const hcl__coll *p, uint32_t rank) {
    for (uint32_t r = 0; r < cl->size; r++) {
        const hcl__coll *f = &s->parts[r];
        if (!f->q) continue;
        if (s->p2p) {
            if (f->count != p->count || f->type != p->type)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "staged send/recv #%llu from rank %u to rank %u: the send is %zu %s, the "
                                        "recv %zu %s (they must match)",
                                        (unsigned long long)s->seq, s->src, s->dst,
                                        (f->kind == HCL__COLL_SEND ? f : p)->count,
                                        hcl_dtype_name((f->kind == HCL__COLL_SEND ? f : p)->type),
                                        (f->kind == HCL__COLL_SEND ? p : f)->count,
                                        hcl_dtype_name((f->kind == HCL__COLL_SEND ? p : f)->type));
            return HCL_SUCCESS;
        }
        if (f->kind != p->kind || f->count != p->count || f->type != p->type || f->op != p->op || f->root != p->root)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "staged collective #%llu: rank %u issued %s (count %zu, %s, op %s, root %u) but "
                                    "rank %u issued %s (count %zu, %s, op %s, root %u): every rank must issue the "
                                    "same collectives in the same order",
                                    (unsigned long long)s->seq, r, hcl__coll_name(f->kind), f->count,
                                    hcl_dtype_name(f->type), hcl__comm_op_name(f->op), f->root, rank,
                                    hcl__coll_name(p->kind), p->count, hcl_dtype_name(p->type),
                                    hcl__comm_op_name(p->op), p->root);
        return HCL_SUCCESS;
    }
    return HCL_SUCCESS;
}

static hcl_status run(hcl__comm *comm, const hcl__coll *op) {
    clique *cl = comm->state;
    const uint32_t me = comm->rank;
    hcl__comm_group *g = hcl__comm_group_of(comm->engine);
    hcl_status st = HCL_SUCCESS;
    pthread_mutex_lock(&cl->lock);
    if (cl->broken) {
        hcl__set_message(cl->broken, "%s", cl->broken_why);
        pthread_mutex_unlock(&cl->lock);
        return hcl__comm_break(comm, cl->broken);
    }
    if (g && (st = hcl__comm_group_room(g, sizeof(ticket))) != HCL_SUCCESS) {
        pthread_mutex_unlock(&cl->lock);
        return st;
    }
    slot *s;
    if (op->kind == HCL__COLL_SEND)
        s = slot_find(cl, 1, cl->send_seq[me * cl->size + op->root], me, op->root);
    else if (op->kind == HCL__COLL_RECV)
        s = slot_find(cl, 1, cl->recv_seq[op->root * cl->size + me], op->root, me);
    else
        s = slot_find(cl, 0, cl->coll_seq[me], 0, 0);
    if (!s) {
        pthread_mutex_unlock(&cl->lock);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory posting a collective");
    }
    if (op->kind == HCL__COLL_SEND)
        cl->send_seq[me * cl->size + op->root]++;
    else if (op->kind == HCL__COLL_RECV)
        cl->recv_seq[op->root * cl->size + me]++;
    else
        cl->coll_seq[me]++;
    if (s->state == SLOT_DONE) { /* failed already (a mismatch): take this part's share of the result */
        s->refs++;
        st = collect(cl, s);
        pthread_mutex_unlock(&cl->lock);
        return st;
    }
    s->refs++;
    if ((st = check_match(cl, s, op, me)) != HCL_SUCCESS) {
        /* the ranks disagree: this collective fails for all, and later ones would pair wrongly */
        slot_finish(cl, s, st, hcl_last_message());
        if (!s->p2p) clique_break(cl, st);
        st = collect(cl, s);
        pthread_mutex_unlock(&cl->lock);
        return st;
    }
    s->parts[me] = *op;
    if (++s->posted == s->needed) {
        s->state = SLOT_READY;
        if (cl->ready_tail)
            cl->ready_tail->rnext = s;
        else
            cl->ready_head = s;
        cl->ready_tail = s;
        if (!g) drain(cl); /* in a group, group_end runs what is ready: send/recv pairs then run together */
    }
    if (g) {
        ((ticket *)g->items)[g->count++] = (ticket){cl, s, comm};
        cl->tickets++;
        pthread_mutex_unlock(&cl->lock);
        return HCL_SUCCESS;
    }
    st = wait_slot(cl, s, comm, atomic_load(&comm->timeout));
    pthread_mutex_unlock(&cl->lock);
    return st;
}

/* Wait for every collective this thread posted in the group; each under its communicator's timeout, counted from
 * here. Every ticket is collected, the first failure returned. */
static hcl_status group_end(const hcl__comm_engine *self, hcl__comm_group *g) {
    (void)self;
    const ticket *tickets = g->items;
    hcl__comm_first_failure first = {0};
    for (size_t i = 0; i < g->count; i++) {
        clique *cl = tickets[i].cl;
        pthread_mutex_lock(&cl->lock);
        drain(cl);
        hcl__comm_first_note(&first,
                             wait_slot(cl, tickets[i].s, tickets[i].comm, atomic_load(&tickets[i].comm->timeout)));
        const int last = --cl->tickets == 0 && cl->live == 0;
        pthread_mutex_unlock(&cl->lock);
        if (last) clique_free(cl);
    }
    return hcl__comm_first_result(&first);
}

/* ---- the engine ---- */

static hcl_status create_all(uint32_t count, hcl__comm *const *comms) {
    clique *cl = calloc(1, sizeof *cl);
    if (!cl) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    cl->size = count;
    cl->comms = calloc(count, sizeof *cl->comms);
    cl->coll_seq = calloc(count, sizeof *cl->coll_seq);
    cl->send_seq = calloc((size_t)count * count, sizeof *cl->send_seq);
    cl->recv_seq = calloc((size_t)count * count, sizeof *cl->recv_seq);
    cl->outq = calloc(count, sizeof *cl->outq);
    cl->scratch = calloc(count, sizeof *cl->scratch);
    if (!cl->comms || !cl->coll_seq || !cl->send_seq || !cl->recv_seq || !cl->outq || !cl->scratch) {
        free(cl->outq);
        free(cl->scratch);
        free(cl->comms);
        free(cl->coll_seq);
        free(cl->send_seq);
        free(cl->recv_seq);
        free(cl);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory for %u ranks", count);
    }
    pthread_mutex_init(&cl->lock, NULL);
    pthread_cond_init(&cl->cond, NULL);
    for (uint32_t i = 0; i < count; i++) {
        cl->comms[i] = comms[i];
        comms[i]->state = cl;
    }
    cl->live = count;
    return HCL_SUCCESS;
}

static void destroy(hcl__comm *comm) {
    clique *cl = comm->state;
    if (!cl) return;
    pthread_mutex_lock(&cl->lock);
    cl->comms[comm->rank] = NULL;
    const int last = --cl->live == 0 && cl->tickets == 0;
    pthread_mutex_unlock(&cl->lock);
    if (last) clique_free(cl);
}

/* serves: none, every device (staging goes through the buffer's own driver); no load, no id (create_all only) */
static const hcl__comm_engine_ops ops = {
    .create_all = create_all, .destroy = destroy, .run = run, .group_end = group_end};
const hcl__comm_engine hcl__comm_staged = {.name = "staged", .backends = "any", .ops = &ops};
