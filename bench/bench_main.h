/* The entry of the two benchmark programs, in the bench library (bench.c): bench's main (main.c) calls it with comm
 * 0, bench-comm's (main_comm.c) with comm 1, which runs the communication benchmark as bench --comm does. Returns
 * the exit status (bench --help says what each means). */
#ifndef HCL_BENCH_MAIN_H
#define HCL_BENCH_MAIN_H

int bench_main(int argc, char **argv, int comm);

#endif /* HCL_BENCH_MAIN_H */
