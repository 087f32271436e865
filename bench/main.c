/* bench: HCL's built-in kernels beside the vendor baselines, and with --comm the communication benchmark (the same as
 * bench-comm). Everything is in the bench library (bench.c: bench_main). */
#include "bench_main.h"

int main(int argc, char **argv) { return bench_main(argc, argv, 0); }
