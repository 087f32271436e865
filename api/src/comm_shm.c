/* The mpi engine's shared-memory path (comm_engine.h): when every rank of an mpi communicator runs on one host, its
 * collectives (not send/recv) go through one POSIX shared-memory segment that every rank maps, made by rank 0 under a
 * name from the communicator's id and unlinked once every rank has mapped it, page-locked by each rank's driver where
 * it can (host_register). No MPI message carries data then: Open MPI's shared-memory transport copies every byte
 * twice and ran at 2-3 GB/s a rank on two H100s' host, a twentieth of one GPU's link.
 *
 * The segment holds, per rank, SHM_SLOTS input slots, and SHM_SLOTS result slots shared by all. A collective is cut
 * into chunks numbered across the communicator's life (every rank runs the same collectives in the same order, so the
 * numbers agree); chunk s uses slot s % SHM_SLOTS. Each rank publishes three counters, each the number of chunks it has
 * finished a step of: `in` (its part is in its input slot), `red` (it reads no input slot of that chunk any more) and
 * `out` (it reads no result slot of that chunk any more). A rank:
 *   1. copies its part of chunk s from its device into its input slot (on the caller's queue), once every rank's `red`
 *      says slot s % SHM_SLOTS is read no more, and publishes `in`;
 *   2. a reduction: combines its share of the chunk over every rank's input slot into the result slot (f32: in place;
 *      16-bit: in float32, one rounding) once every rank's `in` and `out` allow, and publishes `red`; a broadcast or
 *      all-gather: nothing here;
 *   3. copies what its device receives (the whole result of an all-reduce once every rank's `red` says it is
 *      complete, its own share of a reduce-scatter, the root's or every other rank's input slot) to its device on a
 *      queue of its own (so that its link carries both directions at once), and publishes `out` (and `red`, for the
 *      copies out of input slots) when that copy is done.
 * Step 1 of chunk s + 1 is issued before step 2 of chunk s, and a copy to the device is waited for only when its slot
 * comes round again, so the copies both ways and the host's combining overlap. A rank waits for the others' counters
 * spinning briefly, then yielding its core; a wait that passes the communicator's timeout, or any failure, breaks the
 * communicator and marks the segment broken (with the status and message) so that every other rank's wait fails at
 * once with that cause instead of waiting out its own timeout. */
#define _GNU_SOURCE /* sched_yield, posix_fallocate */
#include "comm_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SHM_MAGIC 0x31306d6873636c68ull /* "hclshm01" */
#define SHM_SLOTS 3
#define SHM_MAX_RANKS 64

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "the counters shared between processes must be lock-free atomics");

/* One rank's counters, each on its own cache line (each is written by one rank and read by all). */
typedef struct shm_rank {
    _Atomic uint64_t in;
    char pad0[56];
    _Atomic uint64_t red;
    char pad1[56];
    _Atomic uint64_t out;
    char pad2[56];
} shm_rank;

typedef struct shm_header {
    uint64_t magic, slot_bytes, bytes;
    uint32_t ranks, slots;
    atomic_int broken; /* 0; -1 while a rank writes the cause below; 1 + the rank that broke the communicator */
    int32_t broken_status;
    char broken_why[400];
} shm_header;

struct hcl__comm_shm {
    unsigned char *base; /* the mapping: header, counters, slots */
    size_t bytes, slot_bytes, data;
    shm_header *h;
    shm_rank *ctl;
    uint32_t ranks, rank;
    uint64_t seq;         /* this rank's next chunk number */
    hcl__device *reg_dev; /* whose driver page-locked the mapping (host_unregister), or NULL */
    hcl__queue side;      /* this rank's device: the copies into it */
    float *acc;           /* 16-bit reductions: the float32 accumulator of a share */
    size_t acc_elems;
    int threads; /* the host's cores this rank combines on */
};

static size_t slot_bytes_for(uint32_t ranks) {
    return ranks <= 4 ? (size_t)4 << 20 : ranks <= 8 ? (size_t)2 << 20 : (size_t)1 << 20;
}

static size_t data_offset(uint32_t ranks) {
    return (sizeof(shm_header) + (size_t)ranks * sizeof(shm_rank) + 4095) & ~(size_t)4095;
}

static unsigned char *in_slot(const hcl__comm_shm *m, uint32_t r, uint64_t seq) {
    return m->base + m->data + ((size_t)r * SHM_SLOTS + seq % SHM_SLOTS) * m->slot_bytes;
}

static unsigned char *res_slot(const hcl__comm_shm *m, uint64_t seq) {
    return m->base + m->data + ((size_t)m->ranks * SHM_SLOTS + seq % SHM_SLOTS) * m->slot_bytes;
}

hcl_status hcl__comm_shm_open(const char *name, int create, uint32_t ranks, uint32_t rank, hcl__device *dev,
                              hcl__comm_shm **out) {
    *out = NULL;
    if (ranks < 2 || ranks > SHM_MAX_RANKS)
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "shared memory serves 2 to %d ranks, not %u", SHM_MAX_RANKS,
                                ranks);
    const size_t slot = slot_bytes_for(ranks), data = data_offset(ranks);
    const size_t bytes = data + ((size_t)ranks + 1) * SHM_SLOTS * slot;
    int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
    if (fd < 0)
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "shm_open(\"%s\"): %s", name, strerror(errno));
    hcl_status st = HCL_SUCCESS;
    struct stat sb;
    int err;
    if (create && (err = posix_fallocate(fd, 0, (off_t)bytes)) != 0) /* reserved now: no SIGBUS on a full tmpfs */
        st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "reserving %zu bytes of shared memory (\"%s\"): %s", bytes,
                              name, strerror(err));
    else if (!create && (fstat(fd, &sb) != 0 || (size_t)sb.st_size != bytes))
        st = hcl__set_message(HCL_ERROR_UNSUPPORTED, "shared memory \"%s\" is not the segment of %u ranks", name,
                              ranks);
    void *p = MAP_FAILED;
    if (st == HCL_SUCCESS && (p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
        st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "mapping %zu bytes of shared memory: %s", bytes,
                              strerror(errno));
    close(fd);
    if (st != HCL_SUCCESS) {
        if (create) shm_unlink(name);
        return st;
    }
    hcl__comm_shm *m = calloc(1, sizeof *m);
    if (!m) {
        munmap(p, bytes);
        if (create) shm_unlink(name);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    m->base = p, m->bytes = bytes, m->slot_bytes = slot, m->data = data, m->ranks = ranks, m->rank = rank;
    m->h = p;
    m->ctl = (shm_rank *)(m->base + sizeof(shm_header));
    if (create) { /* the pages are fresh zeros: the counters start at 0 */
        m->h->slot_bytes = slot, m->h->bytes = bytes, m->h->ranks = ranks, m->h->slots = SHM_SLOTS;
        m->h->magic = SHM_MAGIC; /* the other ranks look only after an MPI call that follows this */
    } else if (m->h->magic != SHM_MAGIC || m->h->ranks != ranks || m->h->slot_bytes != slot ||
               m->h->slots != SHM_SLOTS) {
        hcl__comm_shm_close(m);
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "shared memory \"%s\" is not this communicator's segment",
                                name);
    }
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    m->threads = cores > 0 && cores / (long)ranks > 1 ? (int)(cores / (long)ranks) : 1; /* the ranks share the host */
    m->threads = m->threads < 8 ? m->threads : 8;
    if (HCL_DRIVER_HAS(dev->drv, host_register) && HCL_DRIVER_HAS(dev->drv, host_unregister)) {
        if (dev->drv->host_register(dev->native, m->base, m->bytes) == HCL_SUCCESS) {
            m->reg_dev = dev;
            hcl__device_ref(dev);
        } else {
            hcl__log(HCL_LOG_INFO, "comm", "mpi rank %u: the shared memory stays pageable: %s", rank,
                     hcl_last_message());
        }
    }
    hcl__log(HCL_LOG_DEBUG, "comm", "mpi rank %u of %u: collectives through %zu bytes of shared memory%s", rank, ranks,
             bytes, m->reg_dev ? ", page-locked" : "");
    *out = m;
    return HCL_SUCCESS;
}

void hcl__comm_shm_unlink(const char *name) { shm_unlink(name); }

void hcl__comm_shm_close(hcl__comm_shm *m) {
    if (!m) return;
    hcl__comm_side_queue_free(&m->side);
    if (m->reg_dev) {
        m->reg_dev->drv->host_unregister(m->reg_dev->native, m->base);
        hcl__device_unref(m->reg_dev);
    }
    munmap(m->base, m->bytes);
    free(m->acc);
    free(m);
}

/* ---- waiting for the other ranks ---- */

/* Mark the segment broken by this rank (the first cause wins) and the communicator too; returns st. */
static hcl_status shm_break(hcl__comm *comm, hcl__comm_shm *m, hcl_status st) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&m->h->broken, &expect, -1)) {
        m->h->broken_status = (int32_t)st;
        snprintf(m->h->broken_why, sizeof m->h->broken_why, "%s", hcl_last_message());
        atomic_store(&m->h->broken, (int)m->rank + 1);
    }
    return hcl__comm_break(comm, st);
}

static void relax(unsigned spins) {
    if (spins < 1000) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
    } else if (spins < 20000) {
        sched_yield();
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

enum { CTR_IN, CTR_RED, CTR_OUT };
static const char *const ctr_waits[] = {"had not put in its part", "was still reading the inputs",
                                        "was still reading the results"};

static _Atomic uint64_t *counter(hcl__comm_shm *m, uint32_t r, int which) {
    return which == CTR_IN ? &m->ctl[r].in : which == CTR_RED ? &m->ctl[r].red : &m->ctl[r].out;
}

static void publish(hcl__comm_shm *m, int which, uint64_t value) {
    atomic_store_explicit(counter(m, m->rank, which), value, memory_order_release);
}

/* Wait until rank r's counter (every rank's: r == UINT32_MAX) is at least `want`. */
static hcl_status wait_for(hcl__comm *comm, hcl__comm_shm *m, uint32_t r, int which, uint64_t want,
                           const hcl__coll *op) {
    const double timeout = atomic_load(&comm->timeout);
    const double start = hcl__comm_now_s();
    const uint32_t lo = r == UINT32_MAX ? 0 : r, hi = r == UINT32_MAX ? m->ranks : r + 1;
    for (uint32_t i = lo; i < hi; i++) {
        for (unsigned spins = 0; atomic_load_explicit(counter(m, i, which), memory_order_acquire) < want; spins++) {
            const int broken = atomic_load(&m->h->broken);
            if (broken > 0) {
                hcl_status st = (hcl_status)m->h->broken_status;
                if (st == HCL_SUCCESS) st = HCL_ERROR_VENDOR;
                hcl__set_message(st, "mpi %s on rank %u: rank %d broke the communicator: %s",
                                 hcl__coll_name(op->kind), m->rank, broken - 1, m->h->broken_why);
                return hcl__comm_break(comm, st);
            }
            if ((spins & 255) == 255 && hcl__comm_now_s() - start > timeout) {
                hcl__set_message(HCL_ERROR_TIMEOUT,
                                 "mpi %s on rank %u: rank %u %s of chunk %llu after %g s; the communicator is broken",
                                 hcl__coll_name(op->kind), m->rank, i, ctr_waits[which],
                                 (unsigned long long)want - 1, timeout);
                return shm_break(comm, m, HCL_ERROR_TIMEOUT);
            }
            relax(spins);
        }
    }
    return HCL_SUCCESS;
}

/* ---- a collective ---- */

/* One collective of this rank. Chunk k holds elements [k c, k c + n) of each rank's count (c per destination rank of a
 * reduce-scatter, whose input slot holds every destination's piece). */
typedef struct run_state {
    hcl__comm *comm;
    hcl__comm_shm *m;
    const hcl__coll *op;
    size_t es, c, chunks;
    int reduction, reads_inputs; /* reads_inputs: step 3 copies out of input slots (red is published with out) */
    void *ev_in[SHM_SLOTS], *ev_out[SHM_SLOTS], *ev_local;
    hcl_status st;
} run_state;

static size_t chunk_n(const run_state *s, size_t k) {
    const size_t off = k * s->c;
    return s->op->count - off < s->c ? s->op->count - off : s->c;
}

static uint64_t seq_of(const run_state *s, size_t k) { return s->m->seq + k; }

/* Whether this rank writes its input slot (step 1). */
static int writes_input(const run_state *s) {
    return s->op->kind != HCL__COLL_BROADCAST || s->m->rank == s->op->root;
}

/* Whether this rank's device receives anything in step 3. */
static int receives(const run_state *s) {
    switch (s->op->kind) {
    case HCL__COLL_REDUCE: return s->m->rank == s->op->root;
    case HCL__COLL_BROADCAST: return s->m->rank != s->op->root;
    default: return 1;
    }
}

/* Keep ev as the chunk's event on q: copies on one queue finish in order, so the chunk's last one stands for all. */
static void keep(void **slot, void *ev, hcl__queue *q) {
    if (*slot) q->dev->drv->event_release(*slot);
    *slot = ev;
}

/* Chunk k's step 3 is done: publish it (after waiting for its copies to the device). */
static void retire(run_state *s, size_t k) {
    hcl__comm_stage_wait(&s->m->side, &s->ev_out[seq_of(s, k) % SHM_SLOTS], &s->st);
    if (s->st != HCL_SUCCESS) return;
    if (s->reads_inputs) publish(s->m, CTR_RED, seq_of(s, k) + 1);
    publish(s->m, CTR_OUT, seq_of(s, k) + 1);
}

/* Step 1 of chunk k. */
static void step_in(run_state *s, size_t k) {
    hcl__comm_shm *m = s->m;
    const hcl__coll *op = s->op;
    const uint64_t seq = seq_of(s, k);
    if (k >= SHM_SLOTS) retire(s, k - SHM_SLOTS);
    if (s->st != HCL_SUCCESS || !writes_input(s)) return;
    if (seq >= SHM_SLOTS && (s->st = wait_for(s->comm, m, UINT32_MAX, CTR_RED, seq - SHM_SLOTS + 1, op)) != HCL_SUCCESS)
        return;
    const size_t n = chunk_n(s, k), off = k * s->c;
    const uint32_t pieces = op->kind == HCL__COLL_REDUCE_SCATTER ? m->ranks : 1;
    for (uint32_t t = 0; t < pieces && s->st == HCL_SUCCESS; t++) {
        void *ev = NULL;
        s->st = hcl__comm_stage_in_async(op->q, op->send, ((size_t)t * op->count + off) * s->es, n * s->es,
                                         in_slot(m, m->rank, seq) + (size_t)t * s->c * s->es, &ev);
        keep(&s->ev_in[seq % SHM_SLOTS], ev, op->q);
    }
}

/* Combine this rank's share of chunk k into the result slot. */
static void combine_share(run_state *s, size_t k) {
    hcl__comm_shm *m = s->m;
    const hcl__coll *op = s->op;
    const uint64_t seq = seq_of(s, k);
    const size_t n = chunk_n(s, k);
    size_t lo, len; /* elements of the chunk (from its start in each input slot) */
    if (op->kind == HCL__COLL_REDUCE_SCATTER) {
        lo = (size_t)m->rank * s->c, len = n;
    } else { /* shares of whole 64-byte lines */
        const size_t per = ((n + m->ranks - 1) / m->ranks + 31) & ~(size_t)31;
        lo = (size_t)m->rank * per < n ? (size_t)m->rank * per : n;
        len = n - lo < per ? n - lo : per;
    }
    if (!len) return;
    const size_t stride = SHM_SLOTS * m->slot_bytes; /* from one rank's input slot to the next rank's */
    unsigned char *dst = res_slot(m, seq) + lo * s->es;
    if (op->type == HCL_DTYPE_F32) {
        hcl__comm_combine_ranks(op->op, op->type, (float *)dst, in_slot(m, 0, seq) + lo * s->es, stride, m->ranks, len,
                                m->threads);
        return;
    }
    if (m->acc_elems < len) {
        free(m->acc);
        if (!(m->acc = malloc(len * sizeof(float)))) {
            m->acc_elems = 0;
            s->st = shm_break(s->comm, m, hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory"));
            return;
        }
        m->acc_elems = len;
    }
    hcl__comm_combine_ranks(op->op, op->type, m->acc, in_slot(m, 0, seq) + lo * s->es, stride, m->ranks, len,
                            m->threads);
    hcl__comm_narrow(op->type, m->acc, dst, len);
}

/* Steps 2 and 3 of chunk k. */
static void step_out(run_state *s, size_t k) {
    hcl__comm_shm *m = s->m;
    const hcl__coll *op = s->op;
    const uint64_t seq = seq_of(s, k);
    const size_t n = chunk_n(s, k), off = k * s->c;
    hcl__comm_stage_wait(op->q, &s->ev_in[seq % SHM_SLOTS], &s->st);
    if (s->st != HCL_SUCCESS) return;
    publish(m, CTR_IN, seq + 1);
    hcl__queue *side = &m->side;
    void *ev = NULL;
    if (s->reduction) {
        if ((s->st = wait_for(s->comm, m, UINT32_MAX, CTR_IN, seq + 1, op)) != HCL_SUCCESS) return;
        if (seq >= SHM_SLOTS &&
            (s->st = wait_for(s->comm, m, UINT32_MAX, CTR_OUT, seq - SHM_SLOTS + 1, op)) != HCL_SUCCESS)
            return;
        combine_share(s, k);
        if (s->st != HCL_SUCCESS) return;
        publish(m, CTR_RED, seq + 1);
        if (!receives(s)) return;
        if (op->kind == HCL__COLL_REDUCE_SCATTER) {
            s->st = hcl__comm_stage_out_async(side, op->recv, off * s->es, n * s->es,
                                              res_slot(m, seq) + (size_t)m->rank * s->c * s->es, &ev);
        } else {
            if ((s->st = wait_for(s->comm, m, UINT32_MAX, CTR_RED, seq + 1, op)) != HCL_SUCCESS) return;
            s->st = hcl__comm_stage_out_async(side, op->recv, off * s->es, n * s->es, res_slot(m, seq), &ev);
        }
        keep(&s->ev_out[seq % SHM_SLOTS], ev, side);
        return;
    }
    if (!receives(s)) return; /* a broadcast's root: red and out are published when the chunk retires */
    const uint32_t first = op->kind == HCL__COLL_BROADCAST ? op->root : 0;
    const uint32_t last = op->kind == HCL__COLL_BROADCAST ? op->root + 1 : m->ranks;
    for (uint32_t r = first; r < last && s->st == HCL_SUCCESS; r++) {
        if (r == m->rank) continue; /* an all-gather's own block: one copy on the device */
        if ((s->st = wait_for(s->comm, m, r, CTR_IN, seq + 1, op)) != HCL_SUCCESS) return;
        const size_t dst = op->kind == HCL__COLL_ALL_GATHER ? (size_t)r * op->count + off : off;
        ev = NULL;
        s->st = hcl__comm_stage_out_async(side, op->recv, dst * s->es, n * s->es, in_slot(m, r, seq), &ev);
        keep(&s->ev_out[seq % SHM_SLOTS], ev, side);
    }
}

hcl_status hcl__comm_shm_run(hcl__comm *comm, hcl__comm_shm *m, const hcl__coll *op) {
    run_state s = {.comm = comm, .m = m, .op = op, .es = hcl_dtype_size(op->type)};
    const size_t per_slot = m->slot_bytes / s.es;
    s.c = op->kind == HCL__COLL_REDUCE_SCATTER ? per_slot / m->ranks : per_slot;
    s.chunks = (op->count + s.c - 1) / s.c;
    s.reduction =
        op->kind == HCL__COLL_ALL_REDUCE || op->kind == HCL__COLL_REDUCE || op->kind == HCL__COLL_REDUCE_SCATTER;
    s.reads_inputs = !s.reduction;
    if (receives(&s)) s.st = hcl__comm_side_queue(&m->side, op->q);
    /* a device-local part: an all-gather's own block, a broadcast root's recv out of place */
    const hcl_driver_table *d = op->q->dev->drv;
    if (s.st == HCL_SUCCESS && op->kind == HCL__COLL_ALL_GATHER)
        s.st = d->buffer_copy(op->q->native, op->recv->native, (size_t)m->rank * op->count * s.es, op->send->native, 0,
                              op->count * s.es, 0, 0, NULL, &s.ev_local);
    if (s.st == HCL_SUCCESS && op->kind == HCL__COLL_BROADCAST && m->rank == op->root && op->recv != op->send)
        s.st = d->buffer_copy(op->q->native, op->recv->native, 0, op->send->native, 0, op->count * s.es, 0, 0, NULL,
                              &s.ev_local);
    if (s.st != HCL_SUCCESS) s.st = shm_break(comm, m, s.st);
    for (size_t k = 0; k <= s.chunks && s.st == HCL_SUCCESS; k++) {
        if (k < s.chunks) step_in(&s, k);
        if (k > 0 && s.st == HCL_SUCCESS) step_out(&s, k - 1);
    }
    for (size_t k = s.chunks > SHM_SLOTS ? s.chunks - SHM_SLOTS : 0; k < s.chunks && s.st == HCL_SUCCESS; k++)
        retire(&s, k);
    /* every command waited for, whatever failed: the slots are reused and the caller's buffers are its own again */
    hcl_status done = HCL_SUCCESS;
    hcl__comm_stage_wait(op->q, &s.ev_local, &done);
    for (int j = 0; j < SHM_SLOTS; j++) {
        hcl__comm_stage_wait(op->q, &s.ev_in[j], &done);
        hcl__comm_stage_wait(&m->side, &s.ev_out[j], &done);
    }
    if (s.st == HCL_SUCCESS && done != HCL_SUCCESS) s.st = shm_break(comm, m, done);
    if (s.st != HCL_SUCCESS) { /* events released unwaited (keep) may stand for copies still running */
        d->queue_finish(op->q->native);
        if (m->side.native) m->side.dev->drv->queue_finish(m->side.native);
    }
    if (s.st != HCL_SUCCESS && !atomic_load(&comm->broken)) s.st = shm_break(comm, m, s.st);
    m->seq += s.chunks;
    return s.st;
}
