/* bench --comm: the communication benchmark's shared types and functions (every comm*.c; comm.h is its face to
 * bench.c).
 *
 *   comm.c            the run: devices, the host<->device and peer-copy sections, the exit status
 *   comm_axes.c       the collectives' names and bus factor; the sizes and their text
 *   comm_timing.c     the timing of one figure, or of two side by side
 *   comm_coll.c       the collectives over every device of the backend (hcl_comm_create_all), each verified
 *   comm_nccl_base.c  the NVIDIA baselines called directly: NCCL's collectives, cuMemcpyPeerAsync (dlopen)
 *   comm_report.c     the tables' rows, JSON, CSV and the rows of the plot
 *
 * Timing (the same for HCL and for every baseline): a group of --comm-iters iterations is issued back to back and
 * ended by finishing every rank's queue; host wall-clock of the group / iterations is one timed run, and a row
 * shows the median of such groups (after --warmup single iterations), as nccl-tests times -n iterations: --repeats
 * of them, or without it as many as comm_groups gives (more for short groups, fewer for long ones). */
#ifndef HCL_BENCH_COMM_LIB_H
#define HCL_BENCH_COMM_LIB_H

#include <hcl/hcl_comm.h>

#include "bench_lib.h"

#define COMM_MAX_DEVICES 16
#define COMM_MAX_SIZES 40

/* The collectives, in the order they run and print (the names are --comm-ops's). */
enum { OP_ALL_REDUCE = 0, OP_ALL_GATHER, OP_REDUCE_SCATTER, OP_BROADCAST, OP_REDUCE, OP_SENDRECV, OP_COUNT };
extern const char *const comm_op_names[OP_COUNT]; /* comm_axes.c */

/* One device of the run. */
typedef struct comm_dev {
    hcl_device device;
    hcl_queue queue;
    hcl_device_info info;
    char selector[48]; /* "opencl:1" */
} comm_dev;

/* A peer-copy row: src -> dst at one size. */
typedef struct peer_row {
    int src, dst; /* indices into the run's devices */
    int direct;   /* hcl_device_peer_access */
    size_t bytes;
    measure hcl, base; /* base.present: cuMemcpyPeerAsync ran */
    char skipped[320];
} peer_row;

/* A collective row: one op, type and size. */
typedef struct coll_row {
    int op;
    int type;                        /* BT_F32, BT_F16, BT_BF16 */
    size_t bytes;                    /* as nccl-tests counts them (the size column) */
    size_t count;                    /* elements per rank's call (nccl-tests' count: bytes / element size) */
    measure hcl, base;               /* base: NCCL called directly (present when it ran) */
    double algbw, busbw, base_busbw; /* GB/s at the median */
    char skipped[320];
} coll_row;

typedef struct comm_run {
    const options *opt;
    comm_dev devs[COMM_MAX_DEVICES];
    int ndevs;              /* every opened device: the selected backend's first, then (--comm-cross) the others' */
    int nranks;             /* the ranks, devs[0 .. nranks): the selected backend's devices or --comm-devices */
    int sel;                /* the selected device (section 1), an index into devs */
    char engine[32];        /* the communicator's engine ("" before it was made) */
    char coll_skipped[512]; /* why no collective ran (the communicator could not be made), "" otherwise */
    int coll_failed;        /* ... and it was an error (not an absent engine or one that does not serve the devices) */
    char base_note[512];    /* what the NCCL baseline is, or why there is none */
    char peer_note[512];    /* what the peer baseline is, or why there is none */
    device_run *xfer_runs;  /* the transfer sections (reusing sections.c): the selected device's, or each rank's */
    int nxfer;              /* with --comm-devices (every rank's link measured) */
    int xfer_dev[COMM_MAX_DEVICES]; /* xfer_runs[i] is of devs[xfer_dev[i]] */
    peer_row *peers;
    int npeers, cap_peers;
    coll_row *colls;
    int ncolls, cap_colls;
    uint64_t rng;
} comm_run;

/* comm_axes.c */
/* The sizes from lo to hi by factor (hi itself last when the factors miss it): their number. */
int comm_sizes(size_t lo, size_t hi, size_t factor, size_t *out, int max);
void comm_size_text(size_t bytes, char *out, size_t size);
/* The nccl-tests bus bandwidth factor of op over n ranks. */
double comm_bus_factor(int op, int n);

/* comm_timing.c */
/* One timed figure: warm-up single iterations, then --repeats groups of --comm-iters iterations of fn, each group
 * ended by fn's finish; m gets the median, min and max time per iteration. Returns 0, or 1 with m->error. */
typedef int (*comm_iter_fn)(void *ctx, int finish, char *err, size_t err_size);
int comm_timed(const options *o, const char *what, comm_iter_fn fn, void *ctx, measure *m);
/* Up to two figures timed together (HCL and its baseline): the warm-ups of each, then their groups alternating (a b,
 * b a, a b, ...), so that a drift of the machine during the row falls on both. Returns a bit mask of the failed ones
 * (bit k: t[k], its m->error set). */
typedef struct comm_timing {
    const char *what;
    comm_iter_fn fn;
    void *ctx;
    measure *m;
} comm_timing;
int comm_timed_pair(const options *o, const comm_timing *t, int count);

/* comm_coll.c */
void comm_collectives(comm_run *cr);
void comm_print_coll_header(void);
void comm_print_coll_row(const comm_run *cr, const coll_row *r);

/* comm_nccl_base.c: NCCL and libcuda opened with dlopen, on CUDA devices only. Each returns 0, or 1 with the
 * reason in err. */
typedef struct nccl_base nccl_base;
/* Open libnccl.so.2 and make one communicator over the devices (ncclCommInitAll), from their CUcontexts; rank i's
 * send[i] and recv[i] (as device addresses) and devs[i].queue (as a CUstream) are what every collective uses, their
 * native handles read here once, so that a timed iteration is NCCL's calls alone. */
int nccl_base_open(const comm_dev *devs, int n, const hcl_buffer *send, const hcl_buffer *recv, nccl_base **out,
                   char *note, size_t note_size);
void nccl_base_close(nccl_base *nb);
/* Issue op for every rank on its stream, in one ncclGroupStart/End; root 0 for broadcast and reduce. */
int nccl_base_issue(nccl_base *nb, int op, hcl_dtype type, size_t count, char *err, size_t err_size);
/* cuMemcpyPeerAsync from src's buffer to dst's on src's stream (libcuda); finish: cuStreamSynchronize after it. */
typedef struct cuda_peer cuda_peer;
int cuda_peer_open(cuda_peer **out, char *note, size_t note_size);
void cuda_peer_close(cuda_peer *cp);
/* Bind the pair the copies use: the contexts, src's and dst's buffers, src's stream, peer access enabled where the
 * devices can reach each other; done once per pair, outside the timed copies. */
int cuda_peer_bind(cuda_peer *cp, const comm_dev *dst, hcl_buffer dbuf, const comm_dev *src, hcl_buffer sbuf, char *err,
                   size_t err_size);
/* cuMemcpyPeerAsync of bytes over the bound pair, with the source's context pushed; finish: cuStreamSynchronize. */
int cuda_peer_copy(cuda_peer *cp, size_t bytes, int finish, char *err, size_t err_size);

/* comm_report.c */
int comm_write_json(const char *path, const comm_run *cr, double total_s, int failures);
int comm_write_csv(const char *path, const comm_run *cr);
/* The plot's rows: one per collective row that ran (kernel = the op, shape = size and type, rate = busbw). */
int comm_flat_rows(const comm_run *cr, flat_row **out, int *count);
/* The slowest page-locked host <-> device link of the ranks (each rank's H2D and D2H at its largest transfer size):
 * 1 and its transfer section (index into xfer_runs), direction (XFER_*), size and GB/s; 0 unless every rank's link
 * was measured (--comm-devices). */
int comm_slowest_link(const comm_run *cr, int *out_x, int *out_dir, size_t *out_bytes, double *out_gbs);

#endif
