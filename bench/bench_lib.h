/* bench: the types and functions that the benchmark's files share (all but bench.c's bench_main and options, which
 * use them).
 *
 *   bench.c      bench_main (bench_main.h: the main of bench, main.c, and of bench-comm, main_comm.c), options
 *                (getopt_long; every value and output path checked before any work), device loop
 *   result.c     the names of kernels, types and gemm sets; whether a measure passed; a row's unit and rates
 *   util.c       clock, memory, bounded text copies, text wrapped to the table's width, progress line
 *   noise.c      spread, noisy rows, and when a --compare change is significant
 *   kernels.c    size plans, the timed-run loop, the four kernels and their checks (references and tolerances:
 *                testsupport/hcl_testsupport.h, rule HCL_TS_BENCH)
 *   gemm_sets.c  the gemm shape sets (square, skinny) and the skinny set's summary (median HCL/baseline)
 *   baselines.c  vendor baselines opened with dlopen: library loading, host (OpenBLAS, memcpy), dispatch
 *   baselines_cuda.c, baselines_opencl.c   cuBLAS, CUB, cuMemcpyDtoDAsync; CLBlast, clEnqueueCopyBuffer
 *   launch_time.c  the empty kernel's sources; the alternating timing of launch sides (HCL's and a vendor's)
 *   launch.c     launch cost of an empty kernel (HCL and the raw vendor call); a user kernel built from source
 *   report.c     the table, JSON and CSV
 *   plot.c       the SVG plot
 *   json.c       a small JSON reader and --compare
 *   comm*.c      bench --comm, the communication benchmark (comm.h, comm_lib.h)
 */
#ifndef HCL_BENCH_LIB_H
#define HCL_BENCH_LIB_H

#include <hcl/hcl.h>

#include "hcl_testsupport.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_REPEATS 1000
#define BENCH_MAX_CASES 320
#define BENCH_MAX_DEVICES 32
/* Every line bench prints fits this many columns (ctest tools-bench-width checks it). */
#define BENCH_WIDTH 120
/* A row is noisy when its spread (slowest over fastest timed run) exceeds this; --noise-threshold changes it. */
#define BENCH_NOISE_DEFAULT 1.10

enum { K_VECADD = 0, K_GEMM, K_SOFTMAX, K_REDUCE, K_COUNT };
extern const char *const kernel_names[K_COUNT];

/* The element types a row runs in: f32, TF32 (gemm only: f32 buffers, HCL_COMPUTE_TF32), f16, bf16. */
enum { BT_F32 = 0, BT_TF32, BT_F16, BT_BF16, BT_COUNT };
extern const char *const type_names[BT_COUNT];

/* The gemm shape sets (--gemm-set): the square sizes, the skinny and odd ones (m or n of 1, 7, 127; k of 1; k far
 * above m and n; primes), and a language model's projections (llm: M tokens of 1 to 1024 x N outputs x K inputs).
 * GS_NONE: a row of another kernel, or the one shape of --gemm. GS_DEFAULT: the sets run without --gemm-set. */
enum { GS_SQUARE = 0, GS_SKINNY, GS_LLM, GS_COUNT, GS_NONE = -1 };
#define GS_DEFAULT ((1u << GS_SQUARE) | (1u << GS_SKINNY))
/* An llm row of at most this many rows of C (decode) is judged by the copy rate of the bytes it moves. */
#define GEMM_FEW_ROWS 16
extern const char *const gemm_set_names[GS_COUNT];
/* The buffers' hcl_dtype of a bench type (result.c, as the names). */
hcl_dtype bench_dtype(int type);

/* The gate's default size on a GPU (--gate-bytes): larger than any GPU's last-level cache, and on an H200 about
 * 60 us of reading, longer than the host takes to submit any timed call (cuBLAS's first-run heuristics included). */
#define BENCH_GATE_BYTES ((size_t)256 << 20)

typedef struct options {
    const char *selector; /* --device; NULL: the environment */
    int all;              /* --all: every available backend and device */
    int quick;            /* --quick: small sizes, few runs (CI) */
    int list;             /* --list: print the devices and exit */
    int libs;             /* --libs: print the baselines' vendor libraries and exit */
    uint64_t seed;
    int repeats, warmup, repeats_set, verify;
    unsigned kernels;   /* bit mask of 1 << K_* */
    unsigned types;     /* bit mask of 1 << BT_* (--types) */
    unsigned gemm_sets; /* bit mask of 1 << GS_* (--gemm-set) */
    double scale;
    size_t vec_n, gemm_m, gemm_n, gemm_k, sm_rows, sm_cols, red_n; /* 0: the plan's default */
    int baselines;                                                 /* 0: --no-baselines */
    int require_baselines; /* --require-baselines: a missing baseline is an error */
    int launch;            /* 0: --no-launch */
    int user_kernel;       /* 0: --no-user-kernel */
    int progress;          /* 0: --no-progress */
    int verbose;           /* --verbose: each row's times and check detail under it */
    int transfer, peak;    /* the sections (default on; --no-transfer, --no-peak) */
    int sections_only;     /* --transfer or --peak: only the sections named, no kernels, launch or user kernel */
    double noise;          /* --noise-threshold: a spread above it marks a row noisy */
    int energy;            /* 0: --no-energy (no telemetry read at all) */
    double energy_window;  /* --energy-window: a row's energy window is at least this many seconds */
    size_t gate_bytes;     /* --gate-bytes (gate_set: given; else the default, BENCH_GATE_BYTES on a GPU) */
    int gate_set;
    const char *json, *csv, *plot, *compare;
    const char *trace; /* --trace FILE: the run as a Chrome / Perfetto trace (hcl_trace_start, as HCL_TRACE=FILE) */
    /* bench --comm (comm.h): the communication benchmark instead of the kernels */
    int comm, comm_cross, types_set;
    size_t comm_min, comm_max; /* --comm-min-bytes, --comm-max-bytes (comm_max 0: 1 GiB, with --quick 1 MiB) */
    int comm_iters;            /* iterations per timed group (0: 20, with --quick 5) */
    unsigned comm_ops;         /* bit mask of 1 << OP_* (comm_lib.h) */
    const char *comm_engine;   /* NULL: hcl_comm_create_all's default */
    const char *comm_devices;  /* --comm-devices: the ranks' selectors, comma separated (NULL: the backend's) */
} options;

/* The energy of a row's timed runs (energy.c): the device's telemetry over a window that holds the timed runs and,
 * when they take less than --energy-window seconds, more runs of the same call until they do. Read on the device's
 * energy counter at the window's ends where it has one, else integrated from the sampler thread's power readings
 * (method says which); clocks and throttle reasons from the samples the sampler took in the window. */
typedef struct row_energy {
    int measured;      /* 1: the window was read; 0: note says why not */
    char method[32];   /* "energy counter", "power samples" */
    double window_s;   /* wall time of the window */
    double start_unix; /* the window's start, seconds since 1970 (to line it up with nvidia-smi's samples) */
    int runs;          /* calls in it: the timed runs and the extension's */
    double joules;     /* over the window */
    double avg_w;      /* joules / window_s */
    int samples;       /* sampler readings in the window (and one at its end) */
    double sm_min, sm_max, mem_min, mem_max; /* MHz the samples saw; NaN: none known */
    uint32_t throttle;                       /* HCL_THROTTLE_* bits seen in the window */
    int throttle_known;                      /* the source reports throttle reasons */
    char note[128];
} row_energy;

/* A device's telemetry in bench (energy.c): whether rows get energy, and its idle power. */
typedef struct device_energy {
    int active;        /* the device's telemetry has power or an energy counter: rows get energy figures */
    int has_counter;   /* ... an energy counter */
    char source[32];   /* "nvml", ... */
    char detail[256];  /* the library and the match, or why no source serves the device */
    int idle_measured; /* the idle line's figures (NaN where unknown) */
    double idle_w, idle_s, idle_sm, idle_mem, idle_temp;
    char idle_method[32];
    double window_min_s; /* --energy-window */
} device_energy;

/* One timed thing: HCL's call or a baseline's. */
typedef struct measure {
    char name[64];  /* "HCL", "cuBLAS SGEMM", ... */
    int present;    /* 1: it was run (a baseline that is missing stays 0) */
    int ran;        /* timed runs completed */
    double first_s; /* wall time of the first (warm-up) run: builds, JIT and first-use work included */
    double med_s, min_s, max_s;
    int checked; /* the output was compared with the reference */
    int failed;  /* a call failed or the check did not pass */
    double err, tol;
    char check[96];  /* what was checked: "all 1000x1000", "16 rows + 16 cols", ... */
    char error[320]; /* a failed call, with the vendor's error */
    row_energy energy;
} measure;

/* One (kernel, shape) row. */
typedef struct result {
    int kernel;
    int type; /* BT_*: the shape text carries it too (" bf16" after the dimensions; nothing for f32) */
    int set;  /* GS_*: the gemm set the row belongs to */
    size_t dims[3];
    char shape[64];
    double work;      /* bytes or flops per run of HCL's kernel */
    double base_work; /* the same for the baseline (a copy moves other bytes than the kernel) */
    int is_flops;
    measure hcl, base;
    int base_kind; /* which baseline this row compares with (BASE_*), -1: none */
} result;

/* Baselines. */
enum { BASE_GEMM = 0, BASE_COPY, BASE_REDUCE, BASE_GEMM_TF32, BASE_GEMM_F16, BASE_GEMM_BF16, BASE_COUNT };
typedef struct base_info {
    char name[64];     /* "cuBLAS SGEMM" */
    int applicable;    /* the backend has such a baseline at all */
    int available;     /* it loaded and initialised */
    char library[256]; /* what was opened */
    char version[128];
    char note[512];    /* how it is called (layout, math mode, timing) */
    char reason[1024]; /* why it is not available */
    int threads;       /* host baselines: the threads they run on (0: not said) */
    char corename[64]; /* OpenBLAS: the core type it chose (openblas_get_corename) */
    int generic;       /* OpenBLAS: that core lacks the CPU's AVX2/FMA (a fallback, as Prescott on a modern Xeon) */
} base_info;

typedef struct launch_cost {
    int ran;
    int unsupported; /* bench has no kernel source for this backend: reported, not a failure */
    char error[320];
    int n_submit, n_sync;
    double hcl_submit_us, hcl_sync_us, hcl_module_s;
    char vendor_name[64]; /* "cuLaunchKernel", "clEnqueueNDRangeKernel"; "" on host */
    int vendor_ran;
    double vendor_submit_us, vendor_sync_us, vendor_module_s;
    char vendor_reason[320];
    /* HCL's launches with a trace running (hcl_trace_start into a temporary file, one trace per round, started and
     * stopped outside the timed part), alternating with the rounds above */
    int traced_ran;
    double traced_submit_us, traced_sync_us;
    char traced_reason[320]; /* why not measured (bench is tracing already, or the trace failed) */
    /* the raw launch timed as the tracer times a command: an event before and after it, both read after the wait
     * ("cuLaunchKernel + timing event pair"); "" where bench has none */
    char timed_name[64];
    int timed_ran;
    double timed_submit_us, timed_sync_us;
    char timed_reason[320];
} launch_cost;

typedef struct user_kernel {
    int ran;
    char kind[64];       /* "CUDA C (NVRTC)", "OpenCL C", "host C function table" */
    char cache_dir[512]; /* the folder watched for new cache entries */
    double create_s[2];  /* hcl_module_create, first and second time in this process */
    char cache[2][96];   /* "miss (a new cache entry was stored)", "hit", "no compilation", "unknown ..." */
    int checked, failed;
    double err;
    char error[320];
} user_kernel;

typedef struct startup {
    int ran;
    char device[HCL_NAME_MAX + 48]; /* "cuda:0 NVIDIA H100 80GB HBM3" */
    double from_main_s;             /* main() entry (CLOCK_MONOTONIC) to the first kernel's completion */
    double from_exec_s; /* process start (/proc/self/stat starttime, clock-tick resolution) to the same point */
    int exec_known;
    double open_s, setup_s, first_kernel_s; /* hcl_device_open; queue + buffers + writes; call to completion */
    int verified;
    char error[320];
} startup;

/* The transfer section: host-to-device and device-to-host copies from pageable (malloc) and page-locked
 * (hcl_host_alloc) memory, a few sizes each. */
enum { XFER_H2D = 0, XFER_D2H, XFER_DIRS };
enum { XMEM_PAGEABLE = 0, XMEM_PINNED, XMEM_KINDS };
#define XFER_MAX_SIZES 16 /* bench --comm: 4 KiB to 1 GiB by factors of 4 */
typedef struct transfer_row {
    int dir, mem;
    size_t bytes;
    measure m; /* device time of hcl_buffer_write_async / hcl_buffer_read_async; checked bit for bit */
} transfer_row;
typedef struct transfer_result {
    int ran;
    char pinned_note[200]; /* what hcl_host_alloc gives on this backend */
    transfer_row rows[XFER_DIRS * XMEM_KINDS * XFER_MAX_SIZES];
    int nrows;
    char error[320];
} transfer_result;

/* The peak section (clpeak's figures): the device's copy rate, its FMA rate in f32 (and f16 where it computes
 * f16), and the theoretical f32 rate from its clock and units where bench knows the units' width. */
typedef struct peak_rate {
    int ran;           /* timed */
    char skipped[320]; /* why it did not run ("" when it ran or failed) */
    char kernel[64];   /* "OpenCL C mad, float", "CUDA C fmaf (NVRTC)", "host C avx512 FMA", ... */
    double work;       /* flops (or bytes for the copy) per run */
    measure m;
} peak_rate;
typedef struct peak_result {
    int ran;
    peak_rate copy; /* work in bytes, read + write; m.name: which copy */
    peak_rate fp32, fp16;
    double theoretical_gflops; /* f32; 0 unknown */
    char theoretical_how[320]; /* how it was computed, or why it is unknown */
} peak_result;

/* One device of the run (or one unavailable backend, for the report). */
typedef struct device_run {
    char selector[48];
    int opened;      /* 1: it was opened and benchmarked */
    int unavailable; /* a backend that is not available: error holds the reason */
    char error[HCL_REASON_MAX + 64];
    hcl_device_info info;
    base_info bases[BASE_COUNT];
    result results[BENCH_MAX_CASES];
    int nresults;
    char plan_note[256]; /* "scaled down to fit ...", "CPU sizes", ... */
    size_t gate_bytes;   /* the gate's sum before each timed run (0: none; gate_note says why) */
    char gate_note[HCL_REASON_MAX + 96];
    launch_cost launch;
    user_kernel uk;
    transfer_result xfer;
    peak_result peak;
    device_energy energy;
    double wall_s;
} device_run;

/* What a device is being run with (kernels.c, baselines.c, launch.c). */
struct baselines;
typedef struct bdev {
    hcl_device device;
    hcl_queue queue;
    hcl_device_info info;
    const options *opt;
    uint64_t rng; /* hcl_ts_splitmix64 state, from the seed */
    int cpu;
    struct baselines *bl;
    device_run *run;
    struct bench_sampler *sampler; /* energy.c's sampler thread (NULL: no telemetry) */
    int energy_rows;               /* 1 while the kernel rows run: run_timed measures their energy */
    hcl_buffer gate;               /* run->gate_bytes summed before each timed run (--gate-bytes; NULL: no gate) */
    hcl_buffer gate_sum;           /* the gate's sum (one float) */
} bdev;

/* A planned case. */
typedef struct bcase {
    int kernel;
    size_t d[3];
    int type; /* BT_* */
    int set;  /* GS_* */
} bcase;

/* result.c (and the names under the enums above) */
/* 1 when m ran, nothing failed and its check (if any) passed. */
int measure_ok(const measure *m);
const char *unit_of(const result *r);
/* Rate at the median run (0 when it did not run); rate_at: at another of the measure's times (min_s: the best). */
double rate_of(const result *r, const measure *m);
double rate_at(const result *r, const measure *m, double seconds);

/* util.c */
double now_s(void);
/* calloc that exits the process (status 1) when the host is out of memory. */
void *xcalloc(size_t count, size_t size);
/* Copy text, cut to fit (always NUL-terminated). */
void copy_text(char *dst, size_t size, const char *src);
/* Print text as lines of at most BENCH_WIDTH columns, broken at spaces: the first line starts with first, the
 * others with indent. A word longer than a line (a long path) is printed whole. */
void print_wrapped(FILE *f, const char *first, const char *indent, const char *text);
/* A rate in at most 7 characters with 3 to 4 significant digits ("712345", "1234.5", "12.34", "0.0123"; "-" for
 * none). */
void format_rate(char *out, size_t size, double v);
/* JSON values for the reports: a string (quotes, backslashes and control characters escaped), a number (null for NaN
 * and infinities, which JSON lacks), and a field after an object's first, `, "key": value`. */
void json_str(FILE *f, const char *s);
void json_num(FILE *f, double v);
void json_field_num(FILE *f, const char *key, double v);
void json_field_str(FILE *f, const char *key, const char *s);
/* A CSV number cell after the row's previous cells: ",<%.6g>", or "," (an empty cell) for NaN and infinities. */
void csv_num(FILE *f, double v);
/* A report file (--json, --csv, --plot) opened for writing; NULL, with "bench: cannot write <path>" on stderr, when it
 * cannot be. */
FILE *report_open(const char *path);
/* Close a report file: nonzero when a write to it or the close failed. */
int report_close(FILE *f);
/* print_wrapped of a printf format (the text cut at 2047 bytes). */
void print_wrappedf(FILE *f, const char *first, const char *indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The progress line on stderr: rewritten in place on a terminal (at most 10 times a second), otherwise one line
 * every 10 s. progress_start turns it on (bench --no-progress leaves it off); progress_prefix sets the text before
 * each line ("[device 1/2, case 3/40]"); progress_done clears a line shown on a terminal. */
void progress_start(int enabled);
void progress_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_done(void);

/* noise.c */
/* Sort n numbers in ascending order. */
void sort_doubles(double *v, size_t n);
/* Sort the m->ran (at least 1) timed runs in times and set m's min_s, max_s and med_s (the middle run, or the mean of
 * the middle two). */
void measure_summarize(measure *m, double *times);
/* How many timed runs a row keeps once its first took run_s: `repeats`, or without --repeats (repeats_set 0) fewer,
 * at least 3, when they would take more than about 3 s. */
int repeats_within_budget(double run_s, int repeats, int repeats_set);
/* bench --comm: how many groups a row times, given its first group of every figure (first_pair_s, seconds):
 * --repeats when given; else the default, fewer (at least 3) past about 3 s in all, or more (up to 201, not with
 * --quick) for short groups, as many as fill about 0.3 s. */
int comm_groups(const options *o, double first_pair_s);
/* Slowest over fastest timed run (max_s / min_s); NaN when fewer than 2 runs or the times are not positive. */
double spread_of(int runs, double min_s, double max_s);
/* 1 when spread exceeds threshold (a NaN spread is never noisy). */
int is_noisy(double spread, double threshold);
/* --compare's verdict on one row. */
typedef enum {
    CMP_NOISE = 0, /* the ratio lies within [1/spread, spread] of one run or both */
    CMP_FASTER,    /* now/then above both runs' spread */
    CMP_SLOWER,    /* now/then below 1/spread of both runs */
    CMP_NO_SPREAD, /* a run had fewer than 2 timed runs: its noise is unknown, so nothing is called significant */
    CMP_NO_RATE    /* a rate is missing or zero */
} cmp_verdict;
/* The verdict on ratio = rate now / rate then, given each run's spread: significant only when the ratio lies
 * outside [1/spread, spread] of both runs (strictly), i.e. the change exceeds the noise of each. */
cmp_verdict compare_verdict(double ratio, double spread_old, double spread_new);
/* "faster (significant)", "slower (significant)", "within noise", "spread unknown", "no rate". */
const char *verdict_text(cmp_verdict v);

/* kernels.c */
int plan_cases(const options *o, const hcl_device_info *info, bcase *out, int max, char *note, size_t note_size);
void format_shape(const bcase *c, char *out, size_t size);
/* Run one case: HCL, then the baseline, both checked against one reference. */
void run_case(bdev *b, const bcase *c, result *r);
/* One timed run of something: its time in *out_s; 0, or 1 with m->error filled. */
typedef int (*one_run_fn)(bdev *b, void *ctx, double *out_s, measure *m);
/* The warm-up and timed runs of fn (--warmup, --repeats; without --repeats at most about 3 s of timed runs, at least
 * 3), each after filling `out` (when not NULL) with the 32-bit poison; fills m's times. Returns 0, or 1 after a
 * failure (m->error, m->failed). */
int run_timed(bdev *b, const char *what, one_run_fn fn, void *ctx, hcl_buffer out, size_t out_bytes, uint32_t poison,
              measure *m);
/* On a CPU device: a pause that lets spinning worker threads (OpenMP, OpenBLAS, PoCL) go to sleep. */
void settle_cpu(const bdev *b);

/* energy.c: the device's telemetry during a run (hcl_telemetry.h). energy_start finds the device's source, starts
 * the sampler thread (every 20 ms on a GPU, 250 ms on a CPU, so it takes no time from the timed runs' thread), reads
 * the idle power over a second and prints the "energy:" line; with no source it prints why and does nothing more.
 * run_timed calls energy_window after the last timed run: it runs fn once and more times while the window is shorter
 * than --energy-window (runs of the call alone: no poison fills or gate sums in the window), then fills m->energy
 * (returns 1 when such a run failed, with m->error; m->energy all zero where no energy is read). energy_stop ends the
 * thread. */
void energy_start(bdev *b);
void energy_stop(bdev *b);
int energy_window(bdev *b, one_run_fn fn, void *ctx, measure *m);
/* energy_report.c: a row's energy line under it in the table (only where the device has telemetry), its JSON
 * ("energy": {...} or null; the device's "telemetry" object) and CSV cells (ENERGY_CSV_COLUMNS after the others). */
void print_energy_line(const device_run *dr, const result *r);
void json_energy(FILE *f, const result *r, const measure *m);
void json_device_energy(FILE *f, const device_run *dr);
#define ENERGY_CSV_HEADER                                                                                              \
    ",energy_method,energy_window_s,energy_runs,energy_j,avg_power_w,energy_per_run_j,work_per_joule,"                 \
    "work_per_joule_unit,sm_clock_min_mhz,sm_clock_max_mhz,mem_clock_min_mhz,mem_clock_max_mhz,throttled,"             \
    "throttle_reasons,idle_power_w"
#define ENERGY_CSV_COLUMNS 15
void csv_energy(FILE *f, const device_run *dr, const result *r); /* NULL r: empty cells */
/* Work per joule of a measure (GB/J or GFLOP/J: its median rate over the window's average power); NaN unknown. */
double energy_per_joule(const result *r, const measure *m);

/* gemm_sets.c */
/* The default shapes of a gemm set (GS_*) for a CPU or a GPU device, or the --quick ones: their number, at most max,
 * written as {m, n, k} triples to out. */
int gemm_set_shapes(int set, int cpu, int quick, size_t (*out)[3], int max);
/* A gemm set's summary of a device in one type (BT_*): the median and the worst of HCL's rate over the baseline's
 * across its rows that have both and passed their checks (NaN when none has; worst_shape: that row's shape), how
 * many such rows, how many lacked a ratio, and the baseline's name (the first row's). For the llm set, its rows of
 * m <= GEMM_FEW_ROWS that passed: HCL's fraction of the copy rate for the bytes they move (peak_fraction), median
 * and worst, and the baseline's median (NaN when none). Returns 0 when the device has no row of that set and type
 * (nothing to summarise). gemm_skinny_summary: the skinny set's f32 rows (the JSON's gemm_skinny). */
typedef struct gemm_summary {
    int shapes, missing;
    double median_ratio, worst_ratio;
    char worst_shape[64];
    char baseline[64];
    int few;
    double copy_median, copy_worst, base_copy_median;
} gemm_summary;
int gemm_set_summary(const device_run *dr, int set, int type, gemm_summary *out);
int gemm_skinny_summary(const device_run *dr, gemm_summary *out);
/* The summary lines after a device's table: one per set (skinny, llm) and type that has rows. */
void print_gemm_summary(const device_run *dr);

/* baselines_host.c: the host driver's thread count (from the "N threads" of its backend version, else
 * omp_get_max_threads()); how says where it came from (may be NULL). */
int host_threads(char *how, size_t size);

/* baselines.c: open what this backend's baselines need; fills b->run->bases. */
void baselines_open(bdev *b);
void baselines_close(bdev *b);
/* --libs: which vendor libraries load (and why not), without a device. */
void baselines_print_libs(void);
/* One run each, timed by the vendor's own events (device time), or the wall clock on host. Return 0 on success;
 * on failure, fill m->error. */
int base_gemm_run(bdev *b, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C, double *out_s,
                  measure *ms);
/* The typed GEMM baselines (kind BASE_GEMM_TF32/F16/BF16): C = A * B in the row's type (C f32 for TF32). */
int base_gemm_typed_run(bdev *b, int kind, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C,
                        double *out_s, measure *ms);
int base_copy_run(bdev *b, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, measure *ms);
int base_reduce_run(bdev *b, hcl_buffer in, hcl_buffer out, size_t n, double *out_s, measure *ms);
/* Raw vendor launch cost of the same empty kernel (launch.c calls it; baselines.c owns the vendor symbols). */

/* launch_time.c */
extern const char bench_empty_ptx[]; /* the empty kernel, hcl_bench_empty, as PTX (sm_75 and newer) */
extern const char bench_empty_cl[];  /* ... and as OpenCL C */
/* bench's user kernels (hcl_bench_empty, hcl_bench_axpy, hcl_bench_peak_f32) as one Vulkan SPIR-V module (vulkan_kernels.comp): 1 and the
 * source in *out where bench was built with glslangValidator and spirv-link, else 0 (vulkan_spirv.c). */
int bench_vulkan_source(hcl_module_source *out);
/* The empty kernel of one API and where it is launched: a cl_kernel on a cl_command_queue, a CUfunction on a
 * CUstream, an hcl_kernel on an hcl_queue. */
typedef struct launch_ctx {
    void *queue, *kernel;
} launch_ctx;
/* One launch of the empty kernel; with sync, wait for it too. Returns 0 on success. */
typedef int (*launch_fn)(const launch_ctx *c, int sync, char *err, size_t err_size);
/* One side of the launch-cost comparison: its launch, and what each of its rounds runs in (enter before, leave after;
 * NULL: nothing; CUDA's raw side makes HCL's context current there, as an application that uses the context would
 * have it, while HCL's side runs as an application calls it). */
typedef struct launch_side {
    launch_fn fn;
    launch_ctx ctx;
    int (*enter)(char *err, size_t err_size);
    void (*leave)(void);
    double submit_us, sync_us; /* out */
    int ran;                   /* out: 1 when timed */
    char *err;                 /* where its failure is written */
    size_t err_size;
} launch_side;
#define LAUNCH_SIDES_MAX 4 /* HCL, HCL traced, the raw call, the raw call timed */
#define LAUNCH_WARMUP 50   /* launches of each side's warm-up round (then one wait) */
/* The most launches a side makes before a wait in time_launches (n_submit, or the warm-up round's). */
int launches_before_wait(int n_submit);
/* Microseconds per launch of each side (count 1 to LAUNCH_SIDES_MAX): n_submit launches then one wait, and n_sync launches each
 * waited for, the median of 7 such rounds; the sides' rounds alternate (a b, b a, a b, ...), so that the drift of a
 * machine over the measurement (rounds here differed by up to 30%) falls on both. A side that fails stops; the
 * other goes on. */
void time_launches(launch_side *sides, int count, int n_submit, int n_sync);
/* For a vendor's launch op: its raw side, and its timed side (timed NULL: none; its err is lc->timed_reason), timed
 * beside HCL's nhcl sides hcl[] (0: the raw ones alone; hcl[0] untraced, hcl[1] traced): the raw figures into lc
 * (vendor_*, timed_*), HCL's into hcl[]. */
void time_raw_beside(launch_side *hcl, int nhcl, const launch_side *raw, const launch_side *timed, int n_submit,
                     int n_sync, launch_cost *lc);
/* baselines.c: the raw vendor launch (and its timed form) timed together with HCL's nhcl sides hcl[] (their rounds
 * alternate; nhcl 0: the raw ones alone); HCL's sides are left untimed (ran 0) when there is no vendor launch. */
void vendor_launch_cost(bdev *b, int n_submit, int n_sync, launch_side *hcl, int nhcl, launch_cost *lc);

/* launch.c */
void measure_launch(bdev *b, launch_cost *lc);
void measure_user_kernel(bdev *b, user_kernel *uk);
void measure_startup(const char *selector, double t_main, startup *su);

/* sections.c: the transfer and peak sections */
void measure_transfer(bdev *b, transfer_result *t);
/* The same at the given sizes (ascending; at most XFER_MAX_SIZES, the largest dropped while they exceed half the
 * device's largest buffer or an eighth of its memory). */
void measure_transfer_sizes(bdev *b, transfer_result *t, const size_t *sizes, int n);
void measure_peak(bdev *b, peak_result *p);
/* Peak f32 GFLOP/s from the device's clock and units (0 when unknown); how says which figures were used, or why
 * not. */
double theoretical_fp32(const hcl_device_info *i, char *how, size_t size);

/* sections_report.c: printing, JSON and the fraction of peak of a row */
void print_peak(const device_run *dr, const options *o);
void print_transfer(const device_run *dr, const options *o);
/* A row's HCL median rate as a fraction of the device's peak: GB/s rows against the measured copy rate, GFLOP/s rows
 * against the theoretical f32 peak, else the measured FMA peak. NaN when there is no basis; *basis says which
 * (or why none). */
double peak_fraction(const device_run *dr, const result *r, const char **basis);
/* The baseline's median rate of a gemm row of the llm set as a fraction of the copy rate, for the bytes the GEMM must
 * move (gemm_min_bytes); NaN when the baseline did not pass or the copy was not measured. */
double base_copy_fraction(const device_run *dr, const result *r);
void json_sections(FILE *f, const device_run *dr, double noise);

/* report.c */
void print_header(const bdev *b, const device_run *dr);
void print_table_header(void);
void print_row(const device_run *dr, const result *r, const options *o);
/* After a device's table: how many rows were noisy. */
void print_table_footer(const device_run *dr, const options *o);
void print_device_extras(const device_run *dr);
void print_startup(const startup *su);
void print_matrix(const device_run *runs, int nruns, const options *o);
int write_json(const char *path, const options *o, const startup *su, const device_run *runs, int nruns, double total_s,
               int failures);
int write_csv(const char *path, const device_run *runs, int nruns, double noise);

/* A flattened result row, as loaded from an old JSON (json.c) or made from this run; --compare and --plot use
 * these. */
typedef struct flat_row {
    char backend[32];
    char device[HCL_NAME_MAX];
    char identity[80];
    char kernel[16];
    char shape[64];
    char unit[16];
    double rate;      /* HCL at the median; 0: did not run */
    double best_rate; /* HCL at its fastest timed run; worst_rate at its slowest (0: unknown) */
    double worst_rate;
    double spread;    /* HCL's slowest over fastest run time; NaN: unknown (fewer than 2 runs) */
    double base_rate; /* 0: none */
    double base_best, base_worst, base_spread; /* the same figures of the baseline */
    char base_name[64];
    int verified;
    double per_joule, avg_w; /* HCL's work per joule and the window's average power (0: not measured) */
    char per_joule_unit[16]; /* "GFLOP/J", "GB/J" */
    int throttled;           /* the device throttled during the row */
} flat_row;
int flatten_runs(const device_run *runs, int nruns, flat_row **out, int *count);
/* energy_report.c: a row's energy figures into its flat row (for --plot). */
void energy_flat(flat_row *f, const result *r);
/* A saved --json run's rows (*out: the caller frees it): each result's median, best and worst rate and spread, of
 * HCL and the baseline, taken from its times (so files older than the spread fields give them too). Returns 0, or 1
 * with err filled (the file cannot be opened, is not JSON, or not a bench file). */
int load_json_rows(const char *path, flat_row **out, int *count, char *err, size_t err_size);
/* Print ratios new/old, each with its verdict (compare_verdict); returns the number of rows matched. */
int print_compare(const char *old_path, const flat_row *old_rows, int nold, const flat_row *rows, int nrows);
const flat_row *find_old(const flat_row *old_rows, int nold, const flat_row *r);

/* plot.c */
/* The SVG plot; title is printed as given (bench passes no path in it, only a file's base name). */
int write_svg(const char *path, const flat_row *rows, int nrows, const flat_row *old_rows, int nold, const char *title,
              double noise);

#endif /* HCL_BENCH_LIB_H */
