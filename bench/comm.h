/* bench --comm, as bench.c calls it (comm.c; the rest of the communication benchmark: comm_lib.h). */
#ifndef HCL_BENCH_COMM_H
#define HCL_BENCH_COMM_H

#include "comm_lib.h"

/* bench --help's part on --comm. */
extern const char comm_usage[];
/* The --comm options' checks after parsing (and f32 as the default type): 0, or -1 after a message on stderr. */
int comm_check_options(options *o, int sections_only);
/* The whole of bench --comm: returns the number of problems (0: every row ran or was skipped with its reason, and
 * every check passed). */
int comm_main(const options *o, double t_main);

#endif
