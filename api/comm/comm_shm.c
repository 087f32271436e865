/* The mpi engine's shared-memory path (comm_engine.h): when every rank of an mpi communicator runs on one host, its
 * collectives and send/recv go through one POSIX shared-memory segment that every rank maps, made by rank 0 under a
 * name from the communicator's id and unlinked once every rank has mapped it, page-locked by each rank's driver where
 * it can (host_register). No MPI message carries data then: Open MPI's shared-memory transport copies every byte
 * twice and ran at 2-3 GB/s a rank on two H100s' host, a twentieth of one GPU's link.
 *
 * The segment holds, per rank, SHM_SLOTS input slots, and SHM_SLOTS result slots shared by all. A collective is cut
 * into chunks numbered across the communicator's life (every rank runs the same collectives in the same order, so the
 * numbers agree); chunk s uses slot s % SHM_SLOTS. Each rank publishes three counters, each the number of chunks it has
 * finished a step of: `in` (its part is in its input slot), `red` (it reads no input slot of that chunk any more) and
 * `out` (it reads no result slot of that chunk any more). Before a collective's first chunk, each rank writes its
 * call (kind, type, op, root, count) beside its counters, publishes `posted`, and reads every other rank's: ranks
 * whose calls differ all fail with HCL_ERROR_INVALID_ARGUMENT before any chunk is numbered, so the communicator stays
 * usable. A rank:
 *   1. copies its part of chunk s from its device into its input slot (on the caller's queue), once every rank's `red`
 *      says slot s % SHM_SLOTS is read no more, and publishes `in`;
 *   2. a reduction: combines its share of the chunk over every rank's input slot into the result slot (f32: in place;
 *      16-bit: in float32, one rounding) once every rank's `in` and `out` allow, and publishes `red`; a broadcast or
 *      all-gather: nothing here;
 *   3. copies what its device receives (the whole result of an all-reduce once every rank's `red` says it is
 *      complete, its own share of a reduce-scatter, the root's or every other rank's input slot) to its device on a
 *      queue of its own (so that its link carries both directions at once), and publishes `out` (and `red`, for the
 *      copies out of input slots) when that copy is done.
 * A sum over two ranks whose devices both add its type (the built-in vecadd, float32 arithmetic, one rounding: the
 * host's result) is added on the devices instead: step 2 is skipped, and in step 3 each receiving rank copies the
 * other's part of the chunk out of its input slot to device scratch and adds it to its own there. The host's memory
 * then carries only the copies (on two H100s' host, combining on the host held an all-reduce to 10 GB/s).
 * send/recv (up to 16 ranks) go through a channel per ordered pair of ranks (P2P_SLOTS slots), whose chunks are
 * numbered over the pair's life: the sender copies a chunk from its device into slot q % P2P_SLOTS once the receiver's
 * `taken` allows, records the message's and the chunk's size beside it and publishes `sent`; the receiver checks the
 * sizes, copies the chunk to its device and publishes `taken`. A send is done once the receiver has taken its first
 * chunk, so a send and a recv of different counts fail on both sides (the receiver breaks the segment, which the
 * waiting sender sees) instead of mixing messages. The send/recv of one call or group all advance together (a ring's
 * sends and receives use both directions of a link at once); messages on one channel go in the order they were
 * issued.
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

#define SHM_MAGIC 0x32306d6873636c68ull /* "hclshm02" */
#define SHM_SLOTS 4
#define SHM_MAX_RANKS 64
#define P2P_SLOTS 4
#define P2P_MAX_RANKS 16 /* beyond, send/recv go through MPI messages (a channel per pair grows as ranks^2) */

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "the counters shared between processes must be lock-free atomics");

/* One rank's counters, each on its own cache line (each is written by one rank and read by all). */
typedef struct shm_rank {
    _Atomic uint64_t in;
    _Atomic uint32_t add_types; /* bit t: this rank's device adds type t in its scratch (set before the ranks agree) */
    char pad0[52];
    _Atomic uint64_t red;
    char pad1[56];
    _Atomic uint64_t out;
    char pad2[56];
    _Atomic uint64_t posted; /* the collectives this rank has issued, each's call written to posts[] first */
    char pad3[56];
    struct {
        uint64_t coll; /* the collective's number */
        hcl__coll_sig sig;
    } posts[SHM_SLOTS]; /* collective c's call in posts[c % SHM_SLOTS] (no rank gets two collectives ahead) */
} shm_rank;

/* One ordered pair's channel: `sent` and the sizes are written by the sender, `taken` by the receiver. */
typedef struct shm_chan {
    _Atomic uint64_t sent;
    uint64_t message_bytes[P2P_SLOTS], chunk_bytes[P2P_SLOTS]; /* of the chunk in each slot */
    char pad0[64 - 8 - 16 * P2P_SLOTS % 64];
    _Atomic uint64_t taken;
    char pad1[56];
} shm_chan;

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
    size_t p2p_slot; /* bytes of a channel's slot; 0: send/recv go through MPI messages */
    shm_header *h;
    shm_rank *ctl;
    shm_chan *chan;     /* [chan_index(src, dst)] */
    uint64_t *sent_seq; /* [dst]: chunks this rank sent to dst; then [ranks + src]: chunks it took from src */
    uint32_t ranks, rank;
    uint64_t seq;                  /* this rank's next chunk number */
    uint64_t colls;                /* this rank's next collective number */
    hcl__device *reg_dev;          /* whose driver page-locked the mapping (host_unregister), or NULL */
    hcl__queue side;               /* this rank's device: the copies into it */
    hcl__queue addq;               /* this rank's device: the adding of sums added on the device */
    hcl__buffer add[2][SHM_SLOTS]; /* device scratch of sums added on the device: own part, the other's part */
    float *acc;                    /* 16-bit reductions: the float32 accumulator of a share */
    size_t acc_elems;
    int threads; /* the host's cores this rank combines on */
};

static size_t slot_bytes_for(uint32_t ranks) {
    return ranks <= 4 ? (size_t)4 << 20 : ranks <= 8 ? (size_t)2 << 20 : (size_t)1 << 20;
}

/* Bytes of a send/recv channel's slot: 32 MiB over every pair's slots, a power of two from 64 KiB to 4 MiB (two ranks'
 * segment is then 80 MiB). */
static size_t p2p_slot_for(uint32_t ranks) {
    if (ranks > P2P_MAX_RANKS) return 0;
    const size_t budget = ((size_t)32 << 20) / ((size_t)ranks * (ranks - 1) * P2P_SLOTS);
    size_t b = (size_t)4 << 20;
    while (b > budget && b > ((size_t)64 << 10)) b >>= 1;
    return b;
}

static size_t chan_count(uint32_t ranks) { return ranks <= P2P_MAX_RANKS ? (size_t)ranks * (ranks - 1) : 0; }

/* The channel from src to dst (src != dst). */
static size_t chan_index(const hcl__comm_shm *m, uint32_t src, uint32_t dst) {
    return (size_t)src * (m->ranks - 1) + (dst < src ? dst : dst - 1);
}

static size_t data_offset(uint32_t ranks) {
    return (sizeof(shm_header) + (size_t)ranks * sizeof(shm_rank) + chan_count(ranks) * sizeof(shm_chan) + 4095) &
           ~(size_t)4095;
}

static unsigned char *chan_slot(const hcl__comm_shm *m, uint32_t src, uint32_t dst, uint64_t q) {
    const size_t collective = ((size_t)m->ranks + 1) * SHM_SLOTS * m->slot_bytes;
    return m->base + m->data + collective + (chan_index(m, src, dst) * P2P_SLOTS + q % P2P_SLOTS) * m->p2p_slot;
}

static unsigned char *in_slot(const hcl__comm_shm *m, uint32_t r, uint64_t seq) {
    return m->base + m->data + ((size_t)r * SHM_SLOTS + seq % SHM_SLOTS) * m->slot_bytes;
}

static unsigned char *res_slot(const hcl__comm_shm *m, uint64_t seq) {
    return m->base + m->data + ((size_t)m->ranks * SHM_SLOTS + seq % SHM_SLOTS) * m->slot_bytes;
}

/* The types this rank's device adds (vecadd) with its scratch made, or 0 (then every sum combines on the host). */
static unsigned device_add_types(hcl__comm_shm *m, hcl__device *dev) {
    unsigned types = 0;
    const hcl_dtype all[] = {HCL_DTYPE_F32, HCL_DTYPE_F16, HCL_DTYPE_BF16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        hcl__builtin_call call = {.op = HCL_KOP_VECADD, .type = all[i], .n = m->slot_bytes / hcl_dtype_size(all[i])};
        if (hcl__builtin_check("mpi engine", dev, &call) == HCL_SUCCESS) types |= 1u << all[i];
    }
    for (int w = 0; w < 2 && types; w++)
        for (int j = 0; j < SHM_SLOTS && types; j++)
            if (hcl__comm_scratch_reserve(&m->add[w][j], dev, m->slot_bytes, "device memory for the mpi engine") !=
                HCL_SUCCESS) {
                hcl__log(HCL_LOG_INFO, "comm", "mpi rank %u: sums combine on the host: %s", m->rank,
                         hcl_last_message());
                types = 0;
            }
    return types;
}

hcl_status hcl__comm_shm_open(const char *name, int create, uint32_t ranks, uint32_t rank, hcl__device *dev,
                              hcl__comm_shm **out) {
    *out = NULL;
    if (ranks < 2 || ranks > SHM_MAX_RANKS)
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "shared memory serves 2 to %d ranks, not %u", SHM_MAX_RANKS,
                                ranks);
    const size_t slot = slot_bytes_for(ranks), data = data_offset(ranks), p2p = p2p_slot_for(ranks);
    const size_t bytes = data + ((size_t)ranks + 1) * SHM_SLOTS * slot + chan_count(ranks) * P2P_SLOTS * p2p;
    int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
    if (fd < 0) return hcl__set_message(HCL_ERROR_UNSUPPORTED, "shm_open(\"%s\"): %s", name, strerror(errno));
    hcl_status st = HCL_SUCCESS;
    struct stat sb;
    int err;
    if (create && (err = posix_fallocate(fd, 0, (off_t)bytes)) != 0) /* reserved now: no SIGBUS on a full tmpfs */
        st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "reserving %zu bytes of shared memory (\"%s\"): %s", bytes, name,
                              strerror(err));
    else if (!create && (fstat(fd, &sb) != 0 || (size_t)sb.st_size != bytes))
        st =
            hcl__set_message(HCL_ERROR_UNSUPPORTED, "shared memory \"%s\" is not the segment of %u ranks", name, ranks);
    void *p = MAP_FAILED;
    if (st == HCL_SUCCESS && (p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
        st =
            hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "mapping %zu bytes of shared memory: %s", bytes, strerror(errno));
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
    m->p2p_slot = p2p;
    m->h = p;
    m->ctl = (shm_rank *)(m->base + sizeof(shm_header));
    m->chan = (shm_chan *)(m->base + sizeof(shm_header) + (size_t)ranks * sizeof(shm_rank));
    if (!(m->sent_seq = calloc(2 * (size_t)ranks, sizeof *m->sent_seq))) {
        munmap(p, bytes);
        free(m);
        if (create) shm_unlink(name);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    if (create) { /* the pages are fresh zeros: the counters start at 0 */
        m->h->slot_bytes = slot, m->h->bytes = bytes, m->h->ranks = ranks, m->h->slots = SHM_SLOTS;
        m->h->magic = SHM_MAGIC; /* the other ranks look only after an MPI call that follows this */
    } else if (m->h->magic != SHM_MAGIC || m->h->ranks != ranks || m->h->slot_bytes != slot ||
               m->h->slots != SHM_SLOTS) {
        hcl__comm_shm_close(m);
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "shared memory \"%s\" is not this communicator's segment", name);
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
    atomic_store(&m->ctl[rank].add_types, ranks == 2 ? device_add_types(m, dev) : 0u);
    hcl__log(HCL_LOG_DEBUG, "comm", "mpi rank %u of %u: collectives through %zu bytes of shared memory%s%s", rank,
             ranks, bytes, m->reg_dev ? ", page-locked" : "",
             atomic_load(&m->ctl[rank].add_types) ? "; sums of two ranks added on the device" : "");
    *out = m;
    return HCL_SUCCESS;
}

void hcl__comm_shm_unlink(const char *name) { shm_unlink(name); }

void hcl__comm_shm_close(hcl__comm_shm *m) {
    if (!m) return;
    hcl__comm_side_queue_free(&m->side);
    hcl__comm_side_queue_free(&m->addq);
    for (int w = 0; w < 2; w++)
        for (int j = 0; j < SHM_SLOTS; j++) hcl__comm_scratch_free(&m->add[w][j]);
    if (m->reg_dev) {
        m->reg_dev->drv->host_unregister(m->reg_dev->native, m->base);
        hcl__device_unref(m->reg_dev);
    }
    munmap(m->base, m->bytes);
    free(m->acc);
    free(m->sent_seq);
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

/* HCL_SUCCESS while no rank has broken the segment; else the status it broke it with (HCL_ERROR_VENDOR if none was
 * written), with a message naming that rank and its cause. */
static hcl_status broken_by(const hcl__comm_shm *m, hcl__coll_kind kind) {
    const int broken = atomic_load(&m->h->broken);
    if (broken <= 0) return HCL_SUCCESS;
    hcl_status st = (hcl_status)m->h->broken_status;
    if (st == HCL_SUCCESS) st = HCL_ERROR_VENDOR;
    return hcl__set_message(st, "mpi %s on rank %u: rank %d broke the communicator: %s", hcl__coll_name(kind), m->rank,
                            broken - 1, m->h->broken_why);
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

enum { CTR_IN, CTR_RED, CTR_OUT, CTR_POSTED };
static const char *const ctr_waits[] = {"had not put in its part of chunk", "was still reading the inputs of chunk",
                                        "was still reading the results of chunk", "had not issued collective"};

static _Atomic uint64_t *counter(hcl__comm_shm *m, uint32_t r, int which) {
    switch (which) {
    case CTR_IN: return &m->ctl[r].in;
    case CTR_RED: return &m->ctl[r].red;
    case CTR_OUT: return &m->ctl[r].out;
    default: return &m->ctl[r].posted;
    }
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
            const hcl_status broken = broken_by(m, op->kind);
            if (broken != HCL_SUCCESS) return hcl__comm_break(comm, broken);
            if ((spins & 255) == 255 && hcl__comm_now_s() - start > timeout) {
                hcl__set_message(
                    HCL_ERROR_TIMEOUT, "mpi %s on rank %u: rank %u %s %llu after %g s; the communicator is broken",
                    hcl__coll_name(op->kind), m->rank, i, ctr_waits[which], (unsigned long long)want - 1, timeout);
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
    int reduction, on_device; /* on_device: a sum of two ranks added on the devices */
    int reads_inputs;         /* step 3 copies out of input slots (red is published with out) */
    void *ev_in[SHM_SLOTS], *ev_out[SHM_SLOTS], *ev_local;
    hcl_status st;
} run_state;

static size_t chunk_n(const run_state *s, size_t k) {
    const size_t off = k * s->c;
    return s->op->count - off < s->c ? s->op->count - off : s->c;
}

static uint64_t seq_of(const run_state *s, size_t k) { return s->m->seq + k; }

/* Whether this rank writes its input slot (step 1): a broadcast's root; a reduce's other rank, where the root adds on
 * its device; every rank otherwise. */
static int writes_input(const run_state *s) {
    if (s->op->kind == HCL__COLL_BROADCAST) return s->m->rank == s->op->root;
    if (s->op->kind == HCL__COLL_REDUCE && s->on_device) return s->m->rank != s->op->root;
    return 1;
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
    /* a reduce-scatter's piece t (for rank t) at t c; added on the devices, only the other rank's piece, at 0 */
    const int scatter = op->kind == HCL__COLL_REDUCE_SCATTER;
    const uint32_t first = scatter && s->on_device ? 1 - m->rank : 0, pieces = scatter && !s->on_device ? m->ranks : 1;
    for (uint32_t t = first; t < first + pieces && s->st == HCL_SUCCESS; t++) {
        void *ev = NULL;
        s->st = hcl__comm_stage_in_async(op->q, op->send, ((size_t)(scatter ? t : 0) * op->count + off) * s->es,
                                         n * s->es, in_slot(m, m->rank, seq) + (size_t)(t - first) * s->c * s->es, &ev);
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

/* Step 3 of chunk k of a sum added on the devices (on the side queue, in order): the other rank's part out of its input
 * slot and this rank's own part into scratch, added there, the sum to recv. */
static void add_on_device(run_state *s, size_t k) {
    hcl__comm_shm *m = s->m;
    const hcl__coll *op = s->op;
    const uint64_t seq = seq_of(s, k);
    const size_t n = chunk_n(s, k), off = k * s->c, j = seq % SHM_SLOTS;
    const size_t own = (op->kind == HCL__COLL_REDUCE_SCATTER ? (size_t)m->rank * op->count + off : off) * s->es;
    hcl__queue *side = &m->side, *addq = &m->addq;
    const hcl_driver_table *d = side->dev->drv;
    hcl__buffer *mine = &m->add[0][j], *other = &m->add[1][j];
    void *in = NULL, *after = NULL, *ev = NULL;
    if ((s->st = wait_for(s->comm, m, 1 - m->rank, CTR_IN, seq + 1, op)) != HCL_SUCCESS) return;
    /* the copy in on the side queue, the adding on the add queue after it: the next chunk's copy does not wait for
     * this one's adding */
    s->st = hcl__comm_stage_out_async(side, other, 0, n * s->es, in_slot(m, 1 - m->rank, seq), &in);
    if (s->st == HCL_SUCCESS) s->st = d->queue_marker(addq->native, 1, &in, &after);
    if (in) d->event_release(in);
    if (after) d->event_release(after);
    if (s->st == HCL_SUCCESS)
        s->st = d->buffer_copy(addq->native, mine->native, 0, op->send->native, own, n * s->es, 0, 0, NULL, NULL);
    hcl__builtin_call call = {.op = HCL_KOP_VECADD, .type = op->type, .n = n};
    call.mem[HCL_KSLOT_A] = mine->native;
    call.mem[HCL_KSLOT_B] = other->native;
    call.mem[HCL_KSLOT_C] = mine->native;
    if (s->st == HCL_SUCCESS) s->st = hcl__builtin_run("mpi engine", addq, &call, NULL);
    if (s->st == HCL_SUCCESS)
        s->st =
            d->buffer_copy(addq->native, op->recv->native, off * s->es, mine->native, 0, n * s->es, 0, 0, NULL, &ev);
    keep(&s->ev_out[j], ev, addq); /* after the copy in, too: the chunk's last command */
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
    if (s->on_device) {
        if (receives(s)) add_on_device(s, k);
        return;
    }
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

/* Whether every rank issued the same collective (hcl_comm.h) as this one, asked before any of its data moves: each rank
 * writes its call beside its counters and publishes `posted`, then reads every other rank's. Without it, ranks that
 * give different counts (or types, roots, ...) would run on each other's slots and return success with wrong data, or
 * wait. Every rank reads every rank's call, so all of them fail alike with HCL_ERROR_INVALID_ARGUMENT, and since no
 * chunk was numbered the communicator stays usable. A rank that has not issued it within the timeout breaks it. */
static hcl_status agree(hcl__comm *comm, hcl__comm_shm *m, const hcl__coll *op) {
    const uint64_t c = m->colls++;
    const size_t j = c % SHM_SLOTS;
    m->ctl[m->rank].posts[j].coll = c;
    m->ctl[m->rank].posts[j].sig = hcl__coll_sig_of(op);
    publish(m, CTR_POSTED, c + 1);
    hcl_status st = wait_for(comm, m, UINT32_MAX, CTR_POSTED, c + 1, op);
    if (st != HCL_SUCCESS) return st;
    char diff[300], where[32];
    for (uint32_t r = 0; r < m->ranks; r++) {
        if (r == m->rank) continue;
        if (m->ctl[r].posts[j].coll != c) /* cannot happen: a rank waits for every other's call before its next */
            return shm_break(comm, m,
                             hcl__set_message(HCL_ERROR_VENDOR,
                                              "mpi %s on rank %u: rank %u's collective %llu is not %llu",
                                              hcl__coll_name(op->kind), m->rank, r,
                                              (unsigned long long)m->ctl[r].posts[j].coll, (unsigned long long)c));
        snprintf(where, sizeof where, "on rank %u", r);
        if (hcl__coll_sig_diff(&m->ctl[m->rank].posts[j].sig, &m->ctl[r].posts[j].sig, "on this rank", where, diff,
                               sizeof diff))
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "mpi %s on rank %u: the ranks' calls differ: %s (every rank must issue the same "
                                    "collectives in the same order with the same count, type, op and root)",
                                    hcl__coll_name(op->kind), m->rank, diff);
    }
    return HCL_SUCCESS;
}

hcl_status hcl__comm_shm_run(hcl__comm *comm, hcl__comm_shm *m, const hcl__coll *op) {
    hcl_status agreed = agree(comm, m, op);
    if (agreed != HCL_SUCCESS) return agreed;
    run_state s = {.comm = comm, .m = m, .op = op, .es = hcl_dtype_size(op->type)};
    s.reduction =
        op->kind == HCL__COLL_ALL_REDUCE || op->kind == HCL__COLL_REDUCE || op->kind == HCL__COLL_REDUCE_SCATTER;
    s.on_device = s.reduction && m->ranks == 2 && op->op == HCL_COMM_SUM &&
                  (atomic_load(&m->ctl[0].add_types) & atomic_load(&m->ctl[1].add_types) & (1u << op->type));
    s.reads_inputs = !s.reduction || s.on_device;
    /* a slot holds a chunk of every rank's piece of a reduce-scatter combined on the host */
    const size_t per_slot = m->slot_bytes / s.es;
    s.c = op->kind == HCL__COLL_REDUCE_SCATTER && !s.on_device ? per_slot / m->ranks : per_slot;
    s.chunks = (op->count + s.c - 1) / s.c;
    if (receives(&s)) s.st = hcl__comm_side_queue(&m->side, op->q);
    if (s.st == HCL_SUCCESS && receives(&s) && s.on_device) s.st = hcl__comm_side_queue(&m->addq, op->q);
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
        if (m->addq.native) m->addq.dev->drv->queue_finish(m->addq.native);
    }
    if (s.st != HCL_SUCCESS && !atomic_load(&comm->broken)) s.st = shm_break(comm, m, s.st);
    m->seq += s.chunks;
    return s.st;
}

/* ---- send/recv ---- */

int hcl__comm_shm_has_p2p(const hcl__comm_shm *m) { return m && m->p2p_slot; }

/* One send or recv in flight: chunks [0, chunks) of its message, numbered base + i on its channel. */
typedef struct p2p_op {
    const hcl__comm_shm_msg *msg;
    shm_chan *ch;
    hcl__queue *q; /* send: the caller's queue (device -> slot); recv: the side queue (slot -> device) */
    size_t chunk, chunks, issued, done;
    uint64_t base;
    void *ev[P2P_SLOTS];
} p2p_op;

static size_t p2p_bytes(const p2p_op *o, size_t i) {
    const size_t total = hcl__coll_bytes(o->msg->op, o->msg->op->count), off = i * o->chunk;
    return total - off < o->chunk ? total - off : o->chunk;
}

/* Issue what the channel allows, then publish the chunks whose copies are done (asked without waiting where the driver
 * has event_query: a blocking wait on one copy would hold back this rank's other send or recv). Returns 1 when it
 * moved, 0 when it waits (for the other rank or its own copies), or a failure in *st. */
static int p2p_step(p2p_op *o, hcl_status *st) {
    const hcl__coll *op = o->msg->op;
    hcl__comm_shm *m = o->msg->shm;
    const int send = op->kind == HCL__COLL_SEND;
    const uint32_t src = send ? m->rank : op->root, dst = send ? op->root : m->rank;
    const uint64_t total = hcl__coll_bytes(op, op->count);
    int moved = 0;
    while (o->issued < o->chunks && o->issued - o->done < P2P_SLOTS) {
        const uint64_t q = o->base + o->issued;
        const size_t j = q % P2P_SLOTS, n = p2p_bytes(o, o->issued);
        void *ev = NULL;
        if (send) {
            if (q >= P2P_SLOTS && atomic_load_explicit(&o->ch->taken, memory_order_acquire) < q - P2P_SLOTS + 1) break;
            *st = hcl__comm_stage_in_async(o->q, op->send, o->issued * o->chunk, n, chan_slot(m, src, dst, q), &ev);
        } else {
            if (atomic_load_explicit(&o->ch->sent, memory_order_acquire) < q + 1) break;
            if (o->ch->message_bytes[j] != total || o->ch->chunk_bytes[j] != n) {
                *st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                       "mpi recv on rank %u: rank %u sends a message of %llu bytes, this rank "
                                       "receives %llu (%zu %s elements): a send and its recv must give the same count "
                                       "and type; the communicator is broken",
                                       m->rank, src, (unsigned long long)o->ch->message_bytes[j],
                                       (unsigned long long)total, op->count, hcl_dtype_name(op->type));
                return 0;
            }
            *st = hcl__comm_stage_out_async(o->q, op->recv, o->issued * o->chunk, n, chan_slot(m, src, dst, q), &ev);
        }
        o->ev[j] = ev;
        if (*st != HCL_SUCCESS) return 0;
        o->issued++, moved = 1;
    }
    while (o->done < o->issued) { /* the chunks whose copies are done, without waiting where the driver can tell */
        const uint64_t q = o->base + o->done;
        const size_t j = q % P2P_SLOTS;
        if (!hcl__comm_stage_done(o->q, &o->ev[j], st)) break;
        if (*st != HCL_SUCCESS) return 0;
        if (send) {
            o->ch->message_bytes[j] = total, o->ch->chunk_bytes[j] = p2p_bytes(o, o->done);
            atomic_store_explicit(&o->ch->sent, q + 1, memory_order_release);
        } else {
            atomic_store_explicit(&o->ch->taken, q + 1, memory_order_release);
        }
        o->done++, moved = 1;
    }
    return moved;
}

/* A recv is done when its last chunk is on its device; a send when its chunks are in the channel and the receiver has
 * taken the first, which it does only after checking that its recv is of the message's size: a send to a recv of
 * another count so fails too (it sees the segment the receiver broke while it waits), instead of returning success and
 * leaving its chunks in the channel for a later recv. */
static int p2p_finished(const p2p_op *o) {
    if (o->done < o->chunks) return 0;
    return o->msg->op->kind != HCL__COLL_SEND ||
           atomic_load_explicit(&o->ch->taken, memory_order_acquire) >= o->base + 1;
}

hcl_status hcl__comm_shm_p2p(const hcl__comm_shm_msg *msgs, size_t n) {
    p2p_op *ops = calloc(n ? n : 1, sizeof *ops);
    if (!ops) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    hcl_status st = HCL_SUCCESS;
    double timeout = 0;
    for (size_t i = 0; i < n && st == HCL_SUCCESS; i++) {
        const hcl__coll *op = msgs[i].op;
        hcl__comm_shm *m = msgs[i].shm;
        const int send = op->kind == HCL__COLL_SEND;
        const uint32_t src = send ? m->rank : op->root, dst = send ? op->root : m->rank;
        p2p_op *o = &ops[i];
        o->msg = &msgs[i];
        o->ch = &m->chan[chan_index(m, src, dst)];
        o->chunk = m->p2p_slot;
        o->chunks = (hcl__coll_bytes(op, op->count) + o->chunk - 1) / o->chunk;
        uint64_t *seq = send ? &m->sent_seq[dst] : &m->sent_seq[m->ranks + src];
        o->base = *seq; /* messages on one channel take consecutive chunk numbers, in the order issued */
        *seq += o->chunks;
        o->q = op->q;
        if (!send) {
            st = hcl__comm_side_queue(&m->side, op->q);
            o->q = &m->side;
        }
        const double t = atomic_load(&msgs[i].comm->timeout);
        timeout = t > timeout ? t : timeout;
    }
    double last = hcl__comm_now_s();
    for (unsigned spins = 0; st == HCL_SUCCESS;) {
        int left = 0, moved = 0;
        for (size_t i = 0; i < n && st == HCL_SUCCESS; i++) {
            p2p_op *o = &ops[i];
            if (p2p_finished(o)) continue;
            left = 1;
            /* an earlier message on the same channel goes first (its chunks come first) */
            int behind = 0;
            for (size_t e = 0; e < i && !behind; e++) behind = ops[e].ch == o->ch && ops[e].done < ops[e].chunks;
            if (!behind) moved |= p2p_step(o, &st);
        }
        if (!left || st != HCL_SUCCESS) break;
        for (size_t i = 0; i < n && !moved && st == HCL_SUCCESS; i++) st = broken_by(msgs[i].shm, msgs[i].op->kind);
        if (st != HCL_SUCCESS) break;
        if (moved) {
            last = hcl__comm_now_s(), spins = 0;
            continue;
        }
        if ((spins & 255) == 255 && hcl__comm_now_s() - last > timeout) {
            size_t i = 0;
            while (i + 1 < n && p2p_finished(&ops[i])) i++;
            const hcl__coll *op = msgs[i].op;
            st = hcl__set_message(HCL_ERROR_TIMEOUT,
                                  "mpi %s on rank %u: no answer from rank %u within %g s; the communicator is broken",
                                  hcl__coll_name(op->kind), msgs[i].shm->rank, op->root, timeout);
        }
        relax(spins++);
    }
    hcl_status done = HCL_SUCCESS; /* every copy waited for, whatever failed */
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < P2P_SLOTS; j++) hcl__comm_stage_wait(ops[i].q, &ops[i].ev[j], &done);
    if (st == HCL_SUCCESS) st = done;
    if (st != HCL_SUCCESS)
        for (size_t i = 0; i < n; i++) shm_break(msgs[i].comm, msgs[i].shm, st);
    free(ops);
    return st;
}
