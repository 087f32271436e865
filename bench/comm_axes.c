/* bench --comm: the axes of its rows: the collectives (their names, which are --comm-ops's, and nccl-tests' bus
 * bandwidth factor) and the sizes (the list from one size to another, and a size as text). */
#include "comm_lib.h"

const char *const comm_op_names[OP_COUNT] = {"all_reduce", "all_gather", "reduce_scatter",
                                             "broadcast",  "reduce",     "sendrecv"};

double comm_bus_factor(int op, int n) {
    switch (op) {
    case OP_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case OP_ALL_GATHER:
    case OP_REDUCE_SCATTER: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

int comm_sizes(size_t lo, size_t hi, size_t factor, size_t *out, int max) {
    int n = 0;
    for (size_t s = lo; s && s <= hi && n<max; s = s> SIZE_MAX / factor ? 0 : s * factor) out[n++] = s;
    if (n && out[n - 1] != hi && n < max) out[n++] = hi;
    return n;
}

void comm_size_text(size_t bytes, char *out, size_t size) {
    if (bytes >= ((size_t)1 << 30) && bytes % ((size_t)1 << 30) == 0)
        snprintf(out, size, "%zu GiB", bytes >> 30);
    else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, size, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, size, "%zu KiB", bytes >> 10);
    else
        snprintf(out, size, "%zu B", bytes);
}
