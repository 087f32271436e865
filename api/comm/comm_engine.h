/* The engines behind communicators (hcl_comm.h). comm.c validates every call and owns the handles, the groups and the
 * broken state; an engine (one file each: comm_nccl.c for nccl and rccl, comm_mpi.c, comm_staged.c) only opens its
 * library, makes its communicators and runs collectives that the core has already checked. Engines never see a wait
 * list: the core queues a marker on the wait list first, so the queue's order carries the dependency, and makes the
 * call's event from a marker after the engine's commands. */
#ifndef HCL_COMM_ENGINE_H
#define HCL_COMM_ENGINE_H

#include "core.h"
#include "hcl/hcl_comm.h"

#include <stddef.h>

/* The collectives, in the order of their numbers (hcl__coll_sig carries them between ranks): X(ID, "name"). */
#define HCL__COLL_KINDS(X)                                                                                             \
    X(ALL_REDUCE, "all_reduce")                                                                                        \
    X(REDUCE, "reduce")                                                                                                \
    X(BROADCAST, "broadcast")                                                                                          \
    X(ALL_GATHER, "all_gather")                                                                                        \
    X(REDUCE_SCATTER, "reduce_scatter")                                                                                \
    X(SEND, "send")                                                                                                    \
    X(RECV, "recv")

typedef enum hcl__coll_kind {
#define HCL__COLL_KIND_ENUM(id, name) HCL__COLL_##id,
    HCL__COLL_KINDS(HCL__COLL_KIND_ENUM)
#undef HCL__COLL_KIND_ENUM
} hcl__coll_kind;

/* One collective of one rank, validated: the buffers exist on the communicator's device and are large enough, count
 * > 0, root/peer < size (peer != rank), type and op valid. */
typedef struct hcl__coll {
    hcl__coll_kind kind;
    hcl_dtype type;
    hcl_comm_op op;    /* reducing kinds */
    size_t count;      /* elements per rank, as the call gives it */
    uint32_t root;     /* reduce, broadcast: the root; send, recv: the peer */
    hcl__buffer *send; /* read; NULL where this rank reads nothing (broadcast off the root, recv) */
    hcl__buffer *recv; /* written; NULL where this rank writes nothing (reduce off the root, send) */
    hcl__queue *q;     /* a queue of the communicator's device */
} hcl__coll;

typedef struct hcl__comm_engine hcl__comm_engine;

typedef struct hcl__comm {
    const hcl__comm_engine *engine;
    hcl_device device; /* the handle it was made with (hcl_comm_get_info) */
    hcl__device *dev;  /* holds a reference */
    uint32_t rank, size;
    _Atomic double timeout; /* seconds */
    atomic_int broken;      /* comm.c: 0, or the status that broke it (hcl__comm_break) */
    char broken_why[512];   /* comm.c: the message of that status */
    void *state;            /* the engine's */
} hcl__comm;

/* This thread's open group as one engine sees it (comm.c keeps one per engine and thread: the engines keep no group
 * state of their own): what the engine recorded in it, items of the engine's own type, and two fields of the engine's.
 * Zeroed when the group begins; comm.c frees the items after the engine's group_end. */
typedef struct hcl__comm_group {
    size_t count, cap; /* items recorded, room for (hcl__comm_group_room) */
    void *items;       /* `first` until the group outgrows it (no allocation in each group) */
    int started;       /* the engine's: it began a group of its library's (nccl: ncclGroupStart) */
    hcl_status failed; /* the engine's: a call it passed on could not be recorded (its group_end fails with it) */
    _Alignas(max_align_t) unsigned char first[256];
} hcl__comm_group;

/* An engine's functions. nccl and rccl share one set: `self`, or comm->engine, is the engine called (its lib). */
typedef struct hcl__comm_engine_ops {
    /* Open the library (comm.c calls it once, under its lock): on success fill info->library and info->version; on
     * failure return a status and write info->reason. NULL: nothing to open. */
    hcl_status (*load)(const hcl__comm_engine *self, hcl_comm_engine_info *info);
    /* HCL_SUCCESS when it can serve this device, else HCL_ERROR_UNSUPPORTED with a message that says why. May be
     * called before load (hcl_comm_create_all asks it first): it must not need the library. NULL: it serves every
     * device (its data goes through host memory). */
    hcl_status (*serves)(const hcl__comm_engine *self, const hcl__device *dev);
    /* A new id (HCL_COMM_ID_BYTES) for ranks on dev's backend. */
    hcl_status (*get_id)(const hcl__comm_engine *self, hcl__device *dev, unsigned char *out_id);
    /* Join comm->rank of comm->size on comm->dev (set by the core, as are the timeout and engine); set comm->state. */
    hcl_status (*create)(hcl__comm *comm, const unsigned char *id);
    /* Make one communicator of `count` ranks in this process: comms[i] has dev, rank i, size count, the timeout and the
     * engine set; set each state. */
    hcl_status (*create_all)(uint32_t count, hcl__comm *const *comms);
    /* Free comm->state (the collectives on it have finished, or it is broken). */
    void (*destroy)(hcl__comm *comm);
    /* Queue (nccl, rccl) or run (mpi, staged) one collective after the commands already on op->q. Inside a group
     * (hcl__comm_group_of is not NULL) it may only record it. A failure that leaves the communicator unusable (timeout,
     * a rank gone, an engine error) calls hcl__comm_break. */
    hcl_status (*run)(hcl__comm *comm, const hcl__coll *op);
    /* This thread's outermost group ends: issue or run what g holds (the engine's collectives of the group). */
    hcl_status (*group_end)(const hcl__comm_engine *self, hcl__comm_group *g);
    /* hcl_comm_finish: wait for q watching the communicator (errors, timeout); NULL: the queue's plain finish. */
    hcl_status (*finish)(hcl__comm *comm, hcl__queue *q);
} hcl__comm_engine_ops;

struct hcl__comm_engine {
    const char *name;     /* "nccl" */
    const char *backends; /* the backends it serves, for hcl_comm_engine_info: "cuda" */
    int has_id;           /* hcl_comm_get_id / hcl_comm_create work with it */
    void *lib;            /* the engine's own (nccl, rccl: which library) */
    const hcl__comm_engine_ops *ops;
};

HCL__HIDDEN extern const hcl__comm_engine hcl__comm_nccl, hcl__comm_rccl, hcl__comm_mpi, hcl__comm_staged;

/* Mark a communicator broken by `status` (not HCL_SUCCESS) with the current thread message, keep the first cause, and
 * return `status`: every later collective on it fails with that status and message. */
HCL__HIDDEN hcl_status hcl__comm_break(hcl__comm *comm, hcl_status status);
/* This thread's group of engine e (which then takes part: comm.c calls its group_end at the group's end), or NULL
 * outside a group. */
HCL__HIDDEN hcl__comm_group *hcl__comm_group_of(const hcl__comm_engine *e);
/* Room in g for one more item of `size` bytes, which the engine then writes at index g->count++ (a failure leaves g
 * as it was: HCL_ERROR_OUT_OF_MEMORY with a message). */
HCL__HIDDEN hcl_status hcl__comm_group_room(hcl__comm_group *g, size_t size);
/* The element size of a type, and the bytes of `count` elements (the core has checked that they fit). */
static inline size_t hcl__coll_bytes(const hcl__coll *op, size_t count) { return count * hcl_dtype_size(op->type); }

/* ---- what the engines share (comm_host.c): the clock of timeouts, host staging and reductions ---- */
/* Seconds on the monotonic clock (for timeouts: differences only). */
HCL__HIDDEN double hcl__comm_now_s(void);
/* The first failure among the calls a group's end runs (each may set a message of its own): note each call's status;
 * the result is HCL_SUCCESS, or the first failure with its message set again. Starts zeroed. */
typedef struct hcl__comm_first_failure {
    hcl_status status;
    char why[512];
} hcl__comm_first_failure;
HCL__HIDDEN void hcl__comm_first_note(hcl__comm_first_failure *f, hcl_status st);
HCL__HIDDEN hcl_status hcl__comm_first_result(const hcl__comm_first_failure *f);
/* Host memory reused across collectives: grown on demand, page-locked from a device's driver (host_alloc) where it
 * has one, else aligned memory; it holds a reference on that device while it lives. */
typedef struct hcl__comm_host_mem {
    void *ptr;
    size_t size;
    hcl__device *dev; /* whose driver gave ptr (host_free), or NULL: aligned_alloc */
} hcl__comm_host_mem;
/* Make mem hold at least `bytes` (its old contents are not kept); dev: whose driver to ask for page-locked memory
 * (NULL: plain memory). HCL_ERROR_OUT_OF_MEMORY with a message naming the size. */
HCL__HIDDEN hcl_status hcl__comm_host_reserve(hcl__comm_host_mem *mem, hcl__device *dev, size_t bytes);
HCL__HIDDEN void hcl__comm_host_free(hcl__comm_host_mem *mem);
/* Blocking copies between a buffer of q's device and host memory, after everything already on q. */
HCL__HIDDEN hcl_status hcl__comm_stage_in(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes, void *host);
HCL__HIDDEN hcl_status hcl__comm_stage_out(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes,
                                           const void *host);
/* The same started without waiting: *out_event is the command's native event on q's driver (NULL when bytes is 0);
 * the host memory must stay until hcl__comm_stage_wait has waited for it. Copies on several devices' queues so run at
 * once. */
HCL__HIDDEN hcl_status hcl__comm_stage_in_async(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes,
                                                void *host, void **out_event);
HCL__HIDDEN hcl_status hcl__comm_stage_out_async(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes,
                                                 const void *host, void **out_event);
/* Wait for and release an event of q's driver (NULL does nothing), set *event NULL; a failure is kept in *st unless
 * *st already holds one. */
HCL__HIDDEN void hcl__comm_stage_wait(hcl__queue *q, void **event, hcl_status *st);
/* The same if the command is done (or failed, or the driver cannot tell without waiting: then it waits): 1; else 0,
 * leaving *event. */
HCL__HIDDEN int hcl__comm_stage_done(hcl__queue *q, void **event, hcl_status *st);
/* acc[i] = op(acc[i], src[i]) for n elements of `type` at src, computed in float32 (f32: acc is float too, and the
 * loop is the one gcc vectorises). first: acc[i] = src[i] widened. */
HCL__HIDDEN void hcl__comm_reduce_f32(hcl_comm_op op, float *acc, const void *src, hcl_dtype type, size_t n, int first);
/* The same with both sides in `type` (inout[i] = op(inout[i], in[i]), float32 arithmetic, one rounding): what an
 * MPI user op over 16-bit elements does. */
HCL__HIDDEN void hcl__comm_reduce_typed(hcl_comm_op op, hcl_dtype type, void *inout, const void *in, size_t n);
/* acc = op over ranks of in[r * stride ..) (n elements of `type` each, r < ranks), in float32 (f32's first two ranks in
 * one pass), on up to max_threads of the host's cores (OpenMP, where the build has it; at most 8 measured best on two
 * H100s' 32-core host: 11.5 GB/s against 8.7 with 32 for a 4 MiB chunk). */
HCL__HIDDEN void hcl__comm_combine_ranks(hcl_comm_op op, hcl_dtype type, float *acc, const unsigned char *in,
                                         size_t stride, uint32_t ranks, size_t n, int max_threads);
/* A queue of q's device beside q, for what the host writes to the device while q reads from it (copies on one queue
 * take turns; on two, a link carries both directions at once): made in *side on first use (side->native NULL), then
 * ordered after the commands already on q (a marker on q that it waits for). Free with hcl__comm_side_queue_free. */
HCL__HIDDEN hcl_status hcl__comm_side_queue(hcl__queue *side, hcl__queue *q);
HCL__HIDDEN void hcl__comm_side_queue_free(hcl__queue *side);
/* Device memory an engine keeps: make *b hold at least `bytes` on dev (a smaller one is freed first: every command that
 * used it was waited for); a failure's message is prefixed with `what`. Free with hcl__comm_scratch_free (nothing held:
 * nothing done). */
HCL__HIDDEN hcl_status hcl__comm_scratch_reserve(hcl__buffer *b, hcl__device *dev, size_t bytes, const char *what);
HCL__HIDDEN void hcl__comm_scratch_free(hcl__buffer *b);
/* n floats -> `type` at dst (f32: a copy). */
HCL__HIDDEN void hcl__comm_narrow(hcl_dtype type, const float *src, void *dst, size_t n);
/* ---- the mpi engine's shared-memory path (comm_shm.c) ---- */
typedef struct hcl__comm_shm hcl__comm_shm;
/* Make (create: rank 0; the name must be new) or map (the others, after rank 0 made it) the segment `name` of a
 * communicator of `ranks` ranks (2 to 64) on one host, and page-lock it with dev's driver where it can (a refusal
 * leaves it pageable and is logged). HCL_ERROR_UNSUPPORTED (no such segment, not this communicator's) or
 * HCL_ERROR_OUT_OF_MEMORY (no room in /dev/shm) with a message; the caller then uses MPI messages. */
HCL__HIDDEN hcl_status hcl__comm_shm_open(const char *name, int create, uint32_t ranks, uint32_t rank, hcl__device *dev,
                                          hcl__comm_shm **out);
/* Remove the name (rank 0, once every rank mapped it or gave up): the mappings stay. */
HCL__HIDDEN void hcl__comm_shm_unlink(const char *name);
/* Unmap this rank's view (NULL does nothing); the other ranks' stay valid. */
HCL__HIDDEN void hcl__comm_shm_close(hcl__comm_shm *shm);
/* Run one collective (not send/recv) of comm's rank through the segment, after the commands already on op->q; returns
 * when this rank's part is done. A timeout or failure breaks comm and the segment (every other rank's wait then fails
 * with that cause). */
HCL__HIDDEN hcl_status hcl__comm_shm_run(hcl__comm *comm, hcl__comm_shm *shm, const hcl__coll *op);
/* Whether send/recv of shm's communicator go through it (up to 16 ranks); else through MPI messages. */
HCL__HIDDEN int hcl__comm_shm_has_p2p(const hcl__comm_shm *shm);
/* Run sends and recvs (each of a communicator whose shm has send/recv) together, each after the commands already on its
 * queue; returns when all are done. A timeout, a failure, or a send and recv of different sizes breaks every one's
 * communicator and segment. */
typedef struct hcl__comm_shm_msg {
    hcl__comm *comm;
    hcl__comm_shm *shm;
    const hcl__coll *op;
} hcl__comm_shm_msg;
HCL__HIDDEN hcl_status hcl__comm_shm_p2p(const hcl__comm_shm_msg *msgs, size_t n);
/* What every rank of a collective must give alike (hcl_comm.h: the same collective, count, type, op and root; the core
 * sets op to SUM where the kind does not reduce, and root to 0 where it has none), in a form that shared memory and an
 * MPI reduction can carry. */
typedef struct hcl__coll_sig {
    int32_t kind, type, op, root;
    uint64_t count;
} hcl__coll_sig;
HCL__HIDDEN hcl__coll_sig hcl__coll_sig_of(const hcl__coll *op);
/* Write the fields in which a and b differ to out ("count 1000 on this rank, 999 on rank 1; root ..." with a_where and
 * b_where saying whose each is) and return how many differ (0: they agree, out is ""). */
HCL__HIDDEN int hcl__coll_sig_diff(const hcl__coll_sig *a, const hcl__coll_sig *b, const char *a_where,
                                   const char *b_where, char *out, size_t size);
/* "all_reduce", "send", ... */
HCL__HIDDEN const char *hcl__coll_name(hcl__coll_kind kind);
HCL__HIDDEN const char *hcl__comm_op_name(hcl_comm_op op);

#endif /* HCL_COMM_ENGINE_H */
