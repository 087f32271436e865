/* An all-reduce across MPI processes with HCL communicators, as hcl/hcl_comm.h describes it: rank 0 makes the id,
 * MPI_Bcast hands it to the others, every rank joins with hcl_comm_create and sums a vector over the ranks.
 *
 *   mpirun -np 2 ./comm_mpi [device selector, default: HCL_BACKEND / the first device]
 *
 * Each rank's vector is x[i] = rank + i / n; the sum over P ranks is P (P - 1) / 2 + P i / n, checked on every rank.
 * Exit status 0 when every rank got it. */
#include <hcl/hcl.h>
#include <hcl/hcl_comm.h>

#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        if (st_ != HCL_SUCCESS) {                                                                                      \
            fprintf(stderr, "rank %d: %s: %s: %s\n", rank, #call, hcl_status_name(st_), hcl_last_message());           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                              \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    hcl_device dev;
    hcl_queue queue;
    CHECK(hcl_device_open(argc > 1 ? argv[1] : NULL, &dev));
    CHECK(hcl_queue_create(dev, &queue));

    /* the id: made on rank 0, handed to the others as plain bytes */
    hcl_comm_id id;
    if (rank == 0) CHECK(hcl_comm_get_id(dev, "mpi", &id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    hcl_comm comm;
    CHECK(hcl_comm_create(dev, (uint32_t)size, (uint32_t)rank, &id, &comm));

    const size_t n = 1 << 20;
    float *x = malloc(n * sizeof *x);
    if (!x) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < n; i++) x[i] = (float)rank + (float)i / (float)n;
    hcl_buffer buf;
    CHECK(hcl_buffer_create(dev, n * sizeof *x, 0, &buf));
    CHECK(hcl_buffer_write(queue, buf, 0, n * sizeof *x, x));
    CHECK(hcl_comm_all_reduce(comm, queue, HCL_DTYPE_F32, HCL_COMM_SUM, n, buf, buf, 0, NULL, NULL)); /* in place */
    CHECK(hcl_comm_finish(comm, queue));
    CHECK(hcl_buffer_read(queue, buf, 0, n * sizeof *x, x));

    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double want = size * (size - 1) / 2.0 + size * (double)i / (double)n;
        if (fabs(x[i] - want) > 1e-5 * (fabs(want) + 1)) bad++;
    }
    hcl_device_info info;
    CHECK(hcl_device_get_info(dev, &info));
    printf("rank %d of %d on %s:%u: all-reduce of %zu floats %s\n", rank, size, info.backend, info.index, n,
           bad ? "WRONG" : "correct");

    free(x);
    CHECK(hcl_buffer_release(buf));
    CHECK(hcl_comm_release(comm));
    CHECK(hcl_queue_release(queue));
    CHECK(hcl_device_release(dev));
    int all_bad = 0, mine = bad != 0;
    MPI_Allreduce(&mine, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_bad;
}
