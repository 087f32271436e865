/* HCL communicators: collectives across devices and processes, shaped like NCCL.
 *
 * A communicator joins `size` ranks, one device each, to run collectives (all-reduce, reduce, broadcast, all-gather,
 * reduce-scatter, send/recv) on the ranks' queues. HCL runs them on a real engine, opened with dlopen when first
 * needed and listed by hcl_comm_engine_get_info (and hcl-info) with the reason when absent:
 *   nccl    NVIDIA's NCCL (libnccl.so.2): cuda devices; device memory and streams handed to NCCL directly.
 *   rccl    AMD's RCCL (librccl.so.1): hip devices, the same way.
 *   mpi     Open MPI (libmpi.so.40): one rank per process, any backend; each collective is staged through host
 *           memory (device -> host, MPI on the host buffers, host -> device).
 *   staged  several devices of one process, any backends mixed (hcl_comm_create_all): the ranks' data is staged
 *           through host memory and combined there; no library needed.
 * Two ways to make communicators, as in NCCL:
 *   - one rank per process (or per thread): one rank calls hcl_comm_get_id and hands the id to the others by its own
 *     means (the example does it with MPI_Bcast); every rank then calls hcl_comm_create with its device, the number
 *     of ranks, its rank and the id.
 *   - every rank in one process: hcl_comm_create_all over a list of devices; one thread then issues each collective
 *     for every rank between hcl_comm_group_start and hcl_comm_group_end (or one thread per rank issues its own).
 * Collectives take a queue of the communicator's device, a wait list of that device's events and may return an
 * event, like every other queued call. nccl and rccl queue the collective and return; mpi and staged run it on
 * the host and return when it is done (at hcl_comm_group_end inside a group), their events then already complete.
 * Buffers are used from offset 0; send == recv is the in-place form (all-reduce, reduce, broadcast). Element types
 * are hcl_dtype (f32, f16, bf16); reductions of f16 and bf16 compute in float32 on the staged paths and as the
 * engine does on nccl/rccl.
 * Failures: an engine error, or a rank that stops answering, gives an error status on the other ranks within the
 * communicator's timeout (hcl_comm_set_timeout), never a hang; the communicator is then broken (aborted), and every
 * later collective on it returns the same status. */
#ifndef HCL_HCL_COMM_H
#define HCL_HCL_COMM_H

#include "hcl/hcl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hcl_comm_s *hcl_comm;

/* The id that makes ranks of different processes one communicator: plain bytes, to be copied between processes
 * as they are. It names its engine. */
#define HCL_COMM_ID_BYTES 128
typedef struct hcl_comm_id {
    char engine[16];                        /* "nccl", "rccl" or "mpi" */
    unsigned char bytes[HCL_COMM_ID_BYTES]; /* the engine's own id (NCCL's ncclUniqueId; mpi: random bytes) */
} hcl_comm_id;

/* Reduction operators. */
typedef enum hcl_comm_op { HCL_COMM_SUM = 0, HCL_COMM_PROD = 1, HCL_COMM_MAX = 2, HCL_COMM_MIN = 3 } hcl_comm_op;
#define HCL_COMM_OP_COUNT 4

/* An engine as hcl_comm_engine_get_info describes it. */
typedef struct hcl_comm_engine_info {
    char name[32];               /* "nccl", "rccl", "mpi", "staged" */
    char backends[64];           /* the backends whose devices it serves: "cuda", "hip", "any" */
    int available;               /* its library opened and answered */
    char library[HCL_NAME_MAX];  /* the library file it opened, or "" */
    char version[HCL_NAME_MAX];  /* the library's version, or "" */
    char reason[HCL_REASON_MAX]; /* when not available: why (the dlerror text and the names tried) */
} hcl_comm_engine_info;

/* Number of engines HCL knows (nccl, rccl, mpi, staged). Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT
 * (out_count NULL). */
HCL_API hcl_status hcl_comm_engine_count(uint32_t *out_count);
/* Describe engine `index`, opening its library on first use. Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT
 * (out_info NULL), HCL_ERROR_DEVICE_NOT_FOUND (index out of range). */
HCL_API hcl_status hcl_comm_engine_get_info(uint32_t index, hcl_comm_engine_info *out_info);

/* Make a new communicator id for ranks on `device`'s backend, on one rank; hand it to every other rank.
 * engine: NULL for the backend's engine (cuda: nccl, hip: rccl, others: mpi), or an engine's name.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (out_id NULL, an unknown engine name, the
 * staged engine, which has no id), HCL_ERROR_UNSUPPORTED (the engine does not serve the device's backend),
 * HCL_ERROR_BACKEND_UNAVAILABLE (its library is absent: the reason is in the message), HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_comm_get_id(hcl_device device, const char *engine, hcl_comm_id *out_id);
/* Join rank `rank` (0 <= rank < size) of the communicator of `id`, on `device`; every rank calls it with the same
 * id and size, and it returns when all have joined (or the timeout set by HCL_COMM_TIMEOUT, default 300 s, passed).
 * The caller owns the communicator (hcl_comm_release); it holds a reference on the device. mpi: one rank per
 * process, and every process of MPI_COMM_WORLD takes part in the call (HCL initialises MPI if the program has not).
 * While HCL holds an mpi communicator, MPI_COMM_WORLD's and MPI_COMM_SELF's error handlers are MPI_ERRORS_RETURN
 * (Open MPI reports errors of non-blocking collectives through MPI_COMM_WORLD's, and its default would abort the job):
 * the program's own MPI calls on them then return errors too. HCL puts the program's handlers back when it releases
 * its last mpi communicator, unless a timeout or an MPI error left a request with MPI (its error may still come).
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (size 0, rank >= size, id NULL or not
 * valid, out_comm NULL), HCL_ERROR_UNSUPPORTED (the id's engine does not serve the device), HCL_ERROR_TIMEOUT,
 * HCL_ERROR_BACKEND_UNAVAILABLE, HCL_ERROR_VENDOR, HCL_ERROR_OUT_OF_MEMORY. */
HCL_API hcl_status hcl_comm_create(hcl_device device, uint32_t size, uint32_t rank, const hcl_comm_id *id,
                                   hcl_comm *out_comm);
/* Make one communicator of `count` ranks over `devices` (rank i on devices[i], a device at most once) in this
 * process: out_comms[i] is rank i's (owned by the caller; release each). engine: NULL picks nccl when every device
 * is a cuda device, rccl when every one is a hip device, else staged; naming nccl or rccl for devices of another or
 * of mixed backends gives HCL_ERROR_UNSUPPORTED with the reason. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE,
 * HCL_ERROR_INVALID_ARGUMENT (count 0, devices or out_comms NULL, a device twice, an unknown engine),
 * HCL_ERROR_UNSUPPORTED, HCL_ERROR_BACKEND_UNAVAILABLE, HCL_ERROR_VENDOR, HCL_ERROR_OUT_OF_MEMORY. */
HCL_API hcl_status hcl_comm_create_all(uint32_t count, const hcl_device *devices, const char *engine,
                                       hcl_comm *out_comms);
/* Release a communicator. Collectives queued on it must have finished. Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_HANDLE. */
HCL_API hcl_status hcl_comm_release(hcl_comm comm);

/* What a communicator is. */
typedef struct hcl_comm_info {
    uint32_t rank, size;
    char engine[32];   /* the engine's name */
    hcl_device device; /* the rank's device (not a new reference) */
    double timeout;    /* seconds (hcl_comm_set_timeout) */
} hcl_comm_info;
/* Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (out_info NULL). */
HCL_API hcl_status hcl_comm_get_info(hcl_comm comm, hcl_comm_info *out_info);
/* How long a collective (and hcl_comm_finish) waits for the other ranks before it gives up with HCL_ERROR_TIMEOUT
 * and breaks the communicator; `seconds` > 0 (the default is HCL_COMM_TIMEOUT from the environment, else 300).
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (seconds not > 0 or not finite). */
HCL_API hcl_status hcl_comm_set_timeout(hcl_comm comm, double seconds);
/* Block until every command on `queue` (a queue of the communicator's device) has finished, watching the
 * communicator: when its engine reports an error (a rank died, a network failure) or its timeout passes first, the
 * communicator is aborted and the call fails. Use it instead of hcl_queue_finish where a collective might never
 * finish. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_DEVICE_MISMATCH, HCL_ERROR_TIMEOUT,
 * HCL_ERROR_VENDOR (the engine's error named). */
HCL_API hcl_status hcl_comm_finish(hcl_comm comm, hcl_queue queue);

/* Group the collectives that one thread issues for several ranks (or several collectives of one rank), as
 * ncclGroupStart/End do: between them collectives are only recorded, and out_event must be NULL (take an event with
 * hcl_queue_marker after hcl_comm_group_end); hcl_comm_group_end issues them all (and, on the mpi and staged engines,
 * runs them to completion). Groups nest; the outermost end issues. Per thread.
 * Returns HCL_SUCCESS; group_end: HCL_ERROR_INVALID_ARGUMENT (no group open), and the first failing collective's
 * status (every collective of the group is attempted). */
HCL_API hcl_status hcl_comm_group_start(void);
HCL_API hcl_status hcl_comm_group_end(void);

/* The collectives. Common rules: `comm` and `queue` of the same device (HCL_ERROR_DEVICE_MISMATCH otherwise); buffers
 * of that device, large enough for what the call reads and writes (HCL_ERROR_OUT_OF_RANGE, the sizes named); count
 * elements of `type` (0 is valid and moves nothing); `root`/`peer` < size; the wait list of the queue's device; an
 * event (out_event may be NULL) that completes when this rank's part is done. Buffers are handles: one that the call
 * reads or writes on this rank and that is NULL, released or not a buffer is HCL_ERROR_INVALID_HANDLE, as in hcl.h;
 * one that it does not use there (noted at each call) may be NULL. Every argument is checked before an engine sees
 * the call. Every rank of the communicator must issue the same collectives in the same order with the same count,
 * type, op and root: the staged and mpi engines check that before any data moves, and ranks whose calls differ all
 * get HCL_ERROR_INVALID_ARGUMENT naming what differs (staged: the communicator is then broken; mpi: it stays
 * usable); nccl and rccl do not check (such a call may never finish: hcl_comm_finish). A count of 0 never reaches an
 * engine, so ranks that give 0 where the others do not are not told; the others time out.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE (comm, queue, a buffer used here, a wait-list event),
 * HCL_ERROR_INVALID_ARGUMENT (type or op unknown, root/peer out of range, out_event inside a group, send == recv where
 * no in-place form exists, ranks whose calls differ), HCL_ERROR_OUT_OF_RANGE, HCL_ERROR_DEVICE_MISMATCH,
 * HCL_ERROR_UNSUPPORTED (a type the engine cannot reduce), HCL_ERROR_TIMEOUT, HCL_ERROR_VENDOR (the engine's error
 * named), and the status that broke the communicator earlier. */

/* recv[i] = op over ranks of send[i], i < count, on every rank. */
HCL_API hcl_status hcl_comm_all_reduce(hcl_comm comm, hcl_queue queue, hcl_dtype type, hcl_comm_op op, size_t count,
                                       hcl_buffer send, hcl_buffer recv, uint32_t num_wait, const hcl_event *wait_list,
                                       hcl_event *out_event);
/* recv[i] = op over ranks of send[i] on rank `root` only (recv is not touched, and may be NULL, elsewhere). */
HCL_API hcl_status hcl_comm_reduce(hcl_comm comm, hcl_queue queue, hcl_dtype type, hcl_comm_op op, uint32_t root,
                                   size_t count, hcl_buffer send, hcl_buffer recv, uint32_t num_wait,
                                   const hcl_event *wait_list, hcl_event *out_event);
/* recv = root's send on every rank (send is read on the root only, and may be NULL elsewhere). */
HCL_API hcl_status hcl_comm_broadcast(hcl_comm comm, hcl_queue queue, hcl_dtype type, uint32_t root, size_t count,
                                      hcl_buffer send, hcl_buffer recv, uint32_t num_wait, const hcl_event *wait_list,
                                      hcl_event *out_event);
/* recv[r * count + i] = rank r's send[i]: recv holds size * count elements. */
HCL_API hcl_status hcl_comm_all_gather(hcl_comm comm, hcl_queue queue, hcl_dtype type, size_t count, hcl_buffer send,
                                       hcl_buffer recv, uint32_t num_wait, const hcl_event *wait_list,
                                       hcl_event *out_event);
/* recv[i] = op over ranks of send[rank * count + i]: send holds size * count elements, recv count. */
HCL_API hcl_status hcl_comm_reduce_scatter(hcl_comm comm, hcl_queue queue, hcl_dtype type, hcl_comm_op op, size_t count,
                                           hcl_buffer send, hcl_buffer recv, uint32_t num_wait,
                                           const hcl_event *wait_list, hcl_event *out_event);
/* Send count elements of `buffer` to rank `peer`, which receives them with hcl_comm_recv into its buffer. A rank
 * may not send to itself. Inside a group, a send and a recv between two ranks may be issued in either order; outside
 * one, a send may wait for its recv (two ranks that both send to each other first may wait for each other until the
 * timeout). A send and a recv of different sizes fail the recv with HCL_ERROR_INVALID_ARGUMENT (mpi through MPI
 * messages: HCL_ERROR_VENDOR, MPI_ERR_TRUNCATE, where the recv is shorter) and break the communicator; the send fails
 * too on the staged engine and on the mpi engine through shared memory (through MPI messages, MPI may have taken a
 * short send before the recv looked). */
HCL_API hcl_status hcl_comm_send(hcl_comm comm, hcl_queue queue, hcl_dtype type, size_t count, hcl_buffer buffer,
                                 uint32_t peer, uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event);
HCL_API hcl_status hcl_comm_recv(hcl_comm comm, hcl_queue queue, hcl_dtype type, size_t count, hcl_buffer buffer,
                                 uint32_t peer, uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event);

#ifdef __cplusplus
}
#endif
#endif /* HCL_HCL_COMM_H */
