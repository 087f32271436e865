/* The collectives the communicator tests run and the result each rank must hold: test_comm.c (the staged engine, the
 * ranks in one process) and comm_mpi_test.c (the mpi engine, a process a rank). The tolerances stay each test's own:
 * the engines round differently (float32 then one rounding; MPI in the buffer's type at each combine). */
#ifndef HCL_CONF_COMM_CASES_H
#define HCL_CONF_COMM_CASES_H

#include "hcl_testsupport.h"

#include <hcl/hcl_comm.h>

typedef enum { K_ALL_REDUCE, K_REDUCE, K_BROADCAST, K_ALL_GATHER, K_REDUCE_SCATTER, K_SENDRECV } kind;
static const char *const kind_names[] = {"all_reduce", "reduce",         "broadcast",
                                         "all_gather", "reduce_scatter", "send/recv"};
static const char *const op_names[] = {"sum", "prod", "max", "min"};

/* Element i of rank `rank`'s result of collective k over nranks ranks whose inputs are x[0..nranks) (count elements
 * each; nranks x count for reduce-scatter): root's for broadcast, the previous rank's for send/recv, op over the ranks
 * for the reductions, which also set *mag, the sum of the magnitudes (hcl_ts_ref_comm). */
static inline double comm_expected(kind k, hcl_comm_op op, const float *const *x, size_t nranks, size_t rank,
                                   uint32_t root, size_t count, size_t i, double *mag) {
    switch (k) {
    case K_BROADCAST: return x[root][i];
    case K_SENDRECV: return x[(rank + nranks - 1) % nranks][i];
    case K_ALL_GATHER: return x[i / count][i % count];
    default: return hcl_ts_ref_comm(op, x, nranks, k == K_REDUCE_SCATTER ? rank * count + i : i, mag);
    }
}

#endif /* HCL_CONF_COMM_CASES_H */
