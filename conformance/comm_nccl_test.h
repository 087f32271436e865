/* hcl-comm-nccl-test (comm_nccl_test.c, comm_nccl_cases.c): the nccl engine on every CUDA device of the machine. */
#ifndef HCL_COMM_NCCL_TEST_H
#define HCL_COMM_NCCL_TEST_H

#include <hcl/hcl.h>
#include <hcl/hcl_comm.h>

#include <stdint.h>

#define CT_MAX_RANKS 16

typedef enum ct_kind { CT_ALL_REDUCE, CT_REDUCE, CT_BROADCAST, CT_ALL_GATHER, CT_REDUCE_SCATTER, CT_SEND_RECV } ct_kind;

/* One collective case: every rank issues it (send/recv: each rank sends to rank + 1 and receives from rank - 1). */
typedef struct ct_case {
    ct_kind kind;
    hcl_dtype type;
    hcl_comm_op op;
    size_t count;
    uint32_t root;
    int in_place;  /* all_reduce, reduce, broadcast: send == recv (on the root for reduce and broadcast) */
    uint64_t seed; /* the inputs: a function of (seed, rank, index) */
} ct_case;

/* The ranks of one communicator: rank r is devices[r], with a queue of its own. */
typedef struct ct_ranks {
    uint32_t n;
    hcl_device dev[CT_MAX_RANKS];
    hcl_queue q[CT_MAX_RANKS];
    hcl_comm comm[CT_MAX_RANKS];
} ct_ranks;

/* The buffers of one rank for one case (send, recv; either may be NULL, or the same). */
typedef struct ct_bufs {
    hcl_buffer send, recv; /* reduce off the root: odd ranks pass a recv, which must keep its poison */
} ct_bufs;

const char *ct_kind_name(ct_kind kind);
const char *ct_op_name(hcl_comm_op op);
/* "all_reduce f16 max count=1009 in-place" */
void ct_case_name(const ct_case *k, char *buf, size_t size);

/* Make rank r's buffers for the case, its inputs uploaded and its outputs poisoned (blocking). On failure the
 * message is in `why` and the buffers made so far are released. Returns 0 on success. */
int ct_prepare(const ct_case *k, uint32_t n, uint32_t r, hcl_device dev, hcl_queue q, ct_bufs *out, char *why,
               size_t why_size);
/* Issue rank r's part of the case on its communicator (send/recv: inside a group of their own unless `grouped`). */
hcl_status ct_issue(const ct_case *k, uint32_t n, uint32_t r, hcl_comm comm, hcl_queue q, const ct_bufs *b,
                    int grouped);
/* Read rank r's outputs back and compare them with the float64 reference. Returns 0 when they hold; else writes
 * the misses into `why`. */
int ct_verify(const ct_case *k, uint32_t n, uint32_t r, hcl_queue q, const ct_bufs *b, char *why, size_t why_size);
void ct_release(ct_bufs *b);

/* The case list: every collective x op x f32/f16/bf16 x count 0, 1, 1009, 2^20 + 3 (and the in-place forms at 1 and
 * 1009), then the large count with sum only (quick: without the large count). Returns the number of cases written
 * (at most max). */
size_t ct_cases(uint32_t n, uint64_t seed, int quick, ct_case *out, size_t max);
/* The large count for n ranks: 2^28 elements (1 GiB of f32) with 2 ranks, less with more so that no buffer exceeds
 * 2 GiB. */
size_t ct_large_count(uint32_t n);
/* Bytes the bus moves per rank for the case, by nccl-tests' formulas (for the bus bandwidth printed). */
double ct_bus_bytes(const ct_case *k, uint32_t n);

#endif /* HCL_COMM_NCCL_TEST_H */
