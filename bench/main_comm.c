/* bench-comm: the communication benchmark (host <-> device, peer copies, collectives; comm.c), the same as
 * bench --comm: its options are bench's (bench-comm --help). Everything is in the bench library (bench.c:
 * bench_main). */
#include "bench_main.h"

int main(int argc, char **argv) { return bench_main(argc, argv, 1); }
