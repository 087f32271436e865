/* bench: HCL's four built-in kernels (vecadd, gemm, softmax, reduce) on one device or on every device (--all), each
 * result checked against a float64 reference, each row beside a vendor baseline run in the same process on the
 * same buffers (cuBLAS / CUB / cuMemcpyDtoDAsync, CLBlast / clEnqueueCopyBuffer, OpenBLAS / memcpy), plus the
 * launch cost of an empty kernel (HCL and the raw vendor call), a user kernel built from source, and the time from
 * process start to the first finished kernel. Output: a table on stdout, and --json, --csv, --plot (SVG) files;
 * --compare OLD.json prints the ratios against a saved run.
 *
 * This file: bench_main (the main of bench, main.c, and of bench-comm, main_comm.c), the options and the device loop.
 * See bench_lib.h for the others. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"
#include "bench_main.h"
#include "comm.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef BENCH_VERSION
#error "BENCH_VERSION (the project's version, from CMake) must be defined"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/* ---------------------------------------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------------------------------------- */
static void usage(FILE *f) {
    fprintf(
        f,
        "usage: bench [options]\n"
        "       bench-comm [options]   (the same as bench --comm [options]: the communication benchmark below)\n"
        "\n"
        "Runs HCL's built-in kernels (vecadd, gemm, softmax, reduce sum) on a device and prints, per kernel and\n"
        "size, the rate at the median and at the fastest of the timed runs (device time, from the events the calls\n"
        "return), their spread (slowest over fastest run), the same for a vendor baseline run in the same process\n"
        "on the same buffers, their ratio, and whether each output matched a float64 reference computed on the\n"
        "host. Then the launch cost of an empty kernel (HCL and the raw vendor call), a user kernel compiled from\n"
        "source (build time, disk-cache hit or miss, result checked), and the time from process start to the first\n"
        "finished kernel. Options take GNU forms: --scale 0.25, --scale=0.25, or a unique prefix (--rep 5).\n"
        "\n"
        "Devices:\n"
        "  --device SEL        open SEL (\"host\", \"opencl:1\", \"cuda,opencl\"; see hcl_device_open). Default: the\n"
        "                      environment (HCL_BACKEND, HCL_DEVICE), else the first GPU in the library's backend\n"
        "                      order (as --list and hcl-info show it), else host\n"
        "  --all               every device of every available backend, one after the other, then one table of\n"
        "                      kernels x devices with the speedup over the host driver and the largest error of\n"
        "                      each; unavailable backends are listed with the reason\n"
        "  --list              list the devices (name and identity, as hcl-info shows them) and exit\n"
        "  --libs              list the baselines' vendor libraries: which load, from where, or why not; and exit\n"
        "\n"
        "What to run:\n"
        "  --kernels LIST      comma list of vecadd, gemm, softmax, reduce, or all (default: all)\n"
        "  --types LIST        comma list of f32, tf32, f16, bf16, or all (default: all): each kernel in each type\n"
        "                      (tf32: gemm only, where the device's matrix unit has it); rows of another type than\n"
        "                      f32 carry it after the shape (\"4096x4096x4096 bf16\"); 16-bit gemm writes C in its\n"
        "                      type\n"
        "  --quick             small odd shapes (vectors of 1000003, gemm 257x255x129 and 4 skinny shapes,\n"
        "                      softmax 257x1001 and 3x20011, transfers of 64 KiB and 4 MiB), 3 timed runs after 1\n"
        "                      warm-up: about 11 s on a 2-core CPU device once kernels are cached (for CI); with\n"
        "                      --comm: up to 1 MiB, groups of 5 iterations\n"
        "  --repeats N         timed runs per measurement (default 7, 1 to %d; without it a slow case stops after\n"
        "                      about 3 s of timed runs, at least 3)\n"
        "  --warmup N          untimed runs first (default 2, 0 to 100; they absorb kernel builds, CLBlast's\n"
        "                      first-call compile and cuBLAS/CUB initialisation)\n"
        "  --seed N            seed of the random inputs (default: HCL_SEED, else from the clock; always printed)\n"
        "  --no-verify         skip the reference checks (rows then say \"-\" for the check)\n"
        "  --no-baselines      skip the vendor baselines (and the raw vendor launch)\n"
        "  --require-baselines exit 1 when a baseline that belongs to the backend is missing (default: reported)\n"
        "  --no-launch         skip the launch-cost measurement\n"
        "  --no-user-kernel    skip the user kernel built from source\n"
        "  --no-peak           skip the peak section (the copy rate, the f32/f16 FMA-chain peaks, the theoretical\n"
        "                      f32 peak; without it rows have no fraction of peak, except GFLOP/s against a\n"
        "                      theoretical peak)\n"
        "  --no-transfer       skip the transfer section (host-to-device and device-to-host bandwidth)\n"
        "  --no-energy         read no telemetry (power, energy, clocks: docs/telemetry.md)\n"
        "  --energy-window S   a row's energy is read over runs of the same call after its timed runs (without\n"
        "                      their poison fills and gate sums): one, and more while they take less than S seconds\n"
        "                      (default 0.5)\n"
        "  --gate-bytes N      before each timed run, a sum (hcl_reduce) over N bytes of a buffer of its own (the\n"
        "                      gate), so the device is still busy while the host submits the run and its device\n"
        "                      time holds no wait for the host, and so the caches hold none of the run's data and\n"
        "                      nothing to write back (default on a GPU 256M, at most 1/16 of its memory; on a CPU\n"
        "                      device 0: no gate)\n"
        "  --peak, --transfer  run only these sections (either or both): no kernel table, launch or user kernel\n"
        "\n"
        "Sizes (N accepts 1000, 16M = 16*2^20, 1K = 2^10, 2^24). Defaults on a GPU: vecadd and reduce 2^25 and\n"
        "2^28 elements, gemm 1024, 2048, 4096, 8192 (square) and the skinny set, softmax 2^27 elements as rows x\n"
        "32, 256, 1024, 4096, 16384, 32768, 65536, 131072, 262144 columns; on a CPU device: vectors 2^25, gemm 256 to\n"
        "2048 and a smaller skinny set, softmax 2^23 elements over the same columns. Defaults are halved until\n"
        "they fit 45%% of the device's memory and 35%% of the host's (the table says so; gemm dimensions of 128\n"
        "and below are kept).\n"
        "  --scale F           multiply the default element counts by F (gemm: each dimension above 128 by\n"
        "                      F^(1/3))\n"
        "  --vecadd-n N        one vecadd length instead of the defaults\n"
        "  --gemm N|MxNxK      one gemm shape (instead of the sets)\n"
        "  --gemm-set LIST     comma list of square, skinny, llm, or all (default: square,skinny): the gemm\n"
        "                      shapes to run. skinny: m or n of 1, 7, 127; k of 1; k far above m and n (up to\n"
        "                      2^20 on a GPU, 2^18 on a CPU); primes. llm: an 8B model's projections (N x K of\n"
        "                      4096x4096, 1024x4096, 14336x4096, 4096x14336, 128256x4096; a CPU: a quarter) at\n"
        "                      M = 1, 4, 16, 64, 256, 1024 tokens (a CPU: up to 256); their rows' peak column is\n"
        "                      the fraction of the copy rate for the bytes the GEMM moves. After the table, per\n"
        "                      set and type: \"gemm SET: median HCL/baseline over N shapes = X, worst Y\" of the\n"
        "                      rows that have a baseline and pass both checks (llm: and its rows of m <= 16 as a\n"
        "                      fraction of the copy rate, HCL's and the baseline's)\n"
        "  --softmax RxC       one softmax shape (rows x cols)\n"
        "  --reduce-n N        one reduce length\n"
        "\n"
        "Noise: a row's spread is its slowest timed run's time over its fastest (the rate's max/min).\n"
        "  --noise-threshold F a spread above F marks a row noisy (\"*\" after the spread; default %.2f)\n"
        "  --compare OLD.json  print this run's rates against a saved --json run: now/then per matching row, called\n"
        "                      significant only when it lies outside [1/spread, spread] of both runs\n"
        "\n"
        "Output (every path is checked before anything runs: its folder must exist and be writable):\n"
        "  --json FILE         everything as JSON (schema hcl-bench/1: devices, baselines, results with hcl and\n"
        "                      baseline figures, spread, noisy and \"verified\", launch, user_kernel, startup, "
        "summary)\n"
        "  --csv FILE          one line per (device, kernel, shape) and per launch measurement\n"
        "  --plot FILE.svg     bar chart per kernel with axes: HCL and baseline per device at the median, min-max\n"
        "                      whiskers (and the --compare run as ticks)\n"
        "  -v, --verbose       under each row: the first call's time, the median, min and max time, and what was\n"
        "                      checked with the largest error and the tolerance\n"
        "  --trace FILE        a Chrome / Perfetto trace of the run (HCL calls, device work per queue; the same as\n"
        "                      HCL_TRACE=FILE): open it in ui.perfetto.dev or chrome://tracing\n"
        "  --no-progress       no progress line on stderr\n"
        "  -V, --version       print bench's version and exit\n"
        "  -h, --help          print this and exit\n"
        "\n"
        "Rates: vecadd 3*e*n bytes, softmax 2*e*rows*cols, reduce e*n (e: the element's bytes; BabelStream\n"
        "counting), a copy baseline read + write, gemm 2*m*n*k flops. Every run's output is first filled with NaN,\n"
        "so unwritten elements fail the check.\n"
        "Tolerances: vecadd |c-ref|/|ref| <= 2^-23; gemm |c-ref|/sum|a*b| <= min(k+1, 64)*2^-23 (tight enough that\n"
        "TF32 fails up to k of about 10^4; every element up to 2^27 multiply-adds and 2^24 elements of C, else 16\n"
        "whole rows and 16 whole columns); softmax\n"
        "|y-ref|/ref <= (cols+32)*2^-24 (every row up to 2^23 elements, else 64 rows); reduce |s-ref|/sum|x| <=\n"
        "1e-6; copies bit-exact. Baselines are checked against the same reference. Rows of another type round\n"
        "their inputs to it first; a 16-bit output adds its rounding (f16 2^-11, bf16 2^-8 relative; f16 at least\n"
        "2^-24 absolute, its subnormal spacing), TF32 adds 2^-9 relative to sum|a*b|.\n"
        "\n"
        "Baselines (opened with dlopen; a missing one is reported with the reason, never replaced):\n"
        "  cuda    cuBLAS SGEMM (libcublas.so.13/.12, HCL_CUBLAS_LIBRARY; default math mode, no TF32), and for\n"
        "          the typed gemm rows cublasGemmEx (f16, bf16: C of that type; TF32:\n"
        "          CUBLAS_COMPUTE_32F_FAST_TF32), cuMemcpyDtoDAsync, CUB DeviceReduce::Sum (libhcl-bench-cub.so,\n"
        "          HCL_BENCH_CUB_LIBRARY)\n"
        "  opencl  CLBlast SGEMM (libclblast.so.1, HCL_CLBLAST_LIBRARY), clEnqueueCopyBuffer\n"
        "  host    OpenBLAS cblas_sgemm (libopenblas.so.0, HCL_OPENBLAS_LIBRARY), memcpy\n"
        "\n"
        "%s"
        "Exit status: 0 when everything ran and every check passed; 1 when a device could not be opened, a call\n"
        "failed, a check FAILED (HCL's or a baseline's), an output could not be written, or --require-baselines\n"
        "found one missing; 2 on a usage error (an unknown option, a bad value, an output folder that is missing\n"
        "or not writable, a --compare file that cannot be read), reported before anything runs.\n",
        BENCH_MAX_REPEATS, BENCH_NOISE_DEFAULT, comm_usage);
}

static int parse_size(const char *s, size_t *out) {
    char *end = NULL;
    errno = 0;
    if (!strncmp(s, "2^", 2)) {
        unsigned long e = strtoul(s + 2, &end, 10);
        if (errno || end == s + 2 || *end || e >= 63) return -1;
        *out = (size_t)1 << e;
        return 0;
    }
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || (shift && v > (SIZE_MAX >> shift))) return -1;
    *out = (size_t)v << shift;
    return 0;
}

/* Split a copy of s in buf at any of seps into at most max tokens: their number, or -1 when s does not fit buf or
 * has more tokens. */
static int split(const char *s, const char *seps, char *buf, size_t size, char **tok, int max) {
    if (strlen(s) >= size) return -1;
    strcpy(buf, s);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, seps, &save); t; t = strtok_r(NULL, seps, &save)) {
        if (n == max) return -1;
        tok[n++] = t;
    }
    return n;
}

static int parse_dims(const char *s, size_t *d, int count) {
    char buf[128], *tok[3];
    int got = split(s, "x", buf, sizeof buf, tok, count);
    for (int i = 0; i < got; i++)
        if (parse_size(tok[i], &d[i]) || !d[i]) return -1;
    if (got == 1 && count == 3) {
        d[1] = d[2] = d[0];
        got = 3;
    }
    return got == count ? 0 : -1;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > lo) || !(v <= hi)) return -1;
    *out = v;
    return 0;
}

/* A comma list of names[] (or "all") as a bit mask over their indices. An unknown or missing name is a usage error
 * that lists the valid names. */
static int parse_names(const char *opt, const char *s, const char *const *names, int count, unsigned *out) {
    char buf[256], *tok[64];
    int n = split(s, ",", buf, sizeof buf, tok, 64);
    unsigned mask = 0;
    const char *bad = n < 0 ? s : NULL;
    for (int i = 0; i < n && !bad; i++) {
        int found = 0;
        for (int k = 0; k < count; k++)
            if (!strcmp(tok[i], names[k])) mask |= 1u << k, found = 1;
        if (!strcmp(tok[i], "all")) mask |= (1u << count) - 1, found = 1;
        if (!found) bad = tok[i];
    }
    if (!bad && mask) {
        *out = mask;
        return 0;
    }
    if (bad)
        fprintf(stderr, "bench: --%s: unknown name '%s'; valid names:", opt, bad);
    else
        fprintf(stderr, "bench: --%s: no name given; valid names:", opt);
    for (int k = 0; k < count; k++) fprintf(stderr, " %s,", names[k]);
    fprintf(stderr, " all (comma-separated)\n");
    return -1;
}

/* Options that only have a long form (getopt_long's value for them). */
enum {
    OPT_DEVICE = 256,
    OPT_KERNELS,
    OPT_TYPES,
    OPT_REPEATS,
    OPT_WARMUP,
    OPT_SEED,
    OPT_SCALE,
    OPT_VECADD_N,
    OPT_GEMM,
    OPT_GEMM_SET,
    OPT_SOFTMAX,
    OPT_REDUCE_N,
    OPT_NOISE,
    OPT_ENERGY_WINDOW,
    OPT_GATE,
    OPT_JSON,
    OPT_CSV,
    OPT_PLOT,
    OPT_COMPARE,
    OPT_TRACE,
    OPT_COMM_MIN,
    OPT_COMM_MAX,
    OPT_COMM_ITERS,
    OPT_COMM_ENGINE,
    OPT_COMM_OPS,
    OPT_COMM_DEVICES
};

/* One option's value: 0, or -1 after a message that names the option, the value and what it should be. */
static int parse_value(int code, const char *name, const char *v, options *o) {
    size_t d[3];
    const char *want = NULL;
    switch (code) {
    case OPT_DEVICE:
        if (!*v) want = "a device selector (\"host\", \"opencl:1\", \"cuda,opencl\")";
        o->selector = v;
        break;
    case OPT_KERNELS: return parse_names(name, v, kernel_names, K_COUNT, &o->kernels);
    case OPT_TYPES: return parse_names(name, v, type_names, BT_COUNT, &o->types);
    case OPT_GEMM_SET: return parse_names(name, v, gemm_set_names, GS_COUNT, &o->gemm_sets);
    case OPT_REPEATS:
        if (parse_int(v, 1, BENCH_MAX_REPEATS, &o->repeats)) want = "a whole number from 1 to " STR(BENCH_MAX_REPEATS);
        o->repeats_set = 1;
        break;
    case OPT_WARMUP:
        if (parse_int(v, 0, 100, &o->warmup)) want = "a whole number from 0 to 100";
        break;
    case OPT_SEED: {
        char *end = NULL;
        errno = 0;
        o->seed = strtoull(v, &end, 0);
        if (errno || end == v || *end || *v == '-') want = "a whole number from 0 to 2^64-1";
        break;
    }
    case OPT_SCALE:
        if (parse_double(v, 0.0, 1e6, &o->scale)) want = "a number above 0, at most 1e6";
        break;
    case OPT_NOISE:
        if (parse_double(v, 1.0, 1e6, &o->noise)) want = "a number above 1 (1.10: a 10% spread)";
        break;
    case OPT_ENERGY_WINDOW:
        if (parse_double(v, 0.0, 60.0, &o->energy_window)) want = "seconds from 0 to 60";
        break;
    case OPT_GATE:
        if (parse_size(v, &o->gate_bytes)) want = "a size in bytes (0: no gate; 256M, 1G, 2^28)";
        o->gate_set = 1;
        break;
    case OPT_VECADD_N:
    case OPT_REDUCE_N:
    case OPT_COMM_MIN:
    case OPT_COMM_MAX: {
        const int comm = code == OPT_COMM_MIN || code == OPT_COMM_MAX;
        size_t *n = code == OPT_VECADD_N   ? &o->vec_n
                    : code == OPT_REDUCE_N ? &o->red_n
                    : code == OPT_COMM_MIN ? &o->comm_min
                                           : &o->comm_max;
        if (parse_size(v, n) || !*n)
            want = comm ? "a size in bytes above 0 (8, 1M, 1G, 2^20)" : "a size above 0 (1000003, 16M, 1K, 2^24)";
        break;
    }
    case OPT_GEMM:
        if (parse_dims(v, d, 3))
            want = "N or MxNxK, each above 0 (4096, 67x129x95)";
        else
            o->gemm_m = d[0], o->gemm_n = d[1], o->gemm_k = d[2];
        break;
    case OPT_SOFTMAX:
        if (parse_dims(v, d, 2))
            want = "RxC, rows x columns, each above 0 (33x1001)";
        else
            o->sm_rows = d[0], o->sm_cols = d[1];
        break;
    case OPT_JSON: o->json = v; break;
    case OPT_CSV: o->csv = v; break;
    case OPT_PLOT: o->plot = v; break;
    case OPT_COMPARE: o->compare = v; break;
    case OPT_TRACE: o->trace = v; break;
    case OPT_COMM_ITERS:
        if (parse_int(v, 1, 10000, &o->comm_iters)) want = "a whole number from 1 to 10000";
        break;
    case OPT_COMM_ENGINE:
        if (!*v) want = "an engine's name (nccl, rccl, mpi, staged)";
        o->comm_engine = v;
        break;
    case OPT_COMM_DEVICES:
        if (!*v || *v == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
            want = "a comma list of device selectors (cuda:0,opencl:1)";
        o->comm_devices = v;
        break;
    case OPT_COMM_OPS: return parse_names(name, v, comm_op_names, OP_COUNT, &o->comm_ops);
    default: return -1;
    }
    if (!want) return 0;
    fprintf(stderr, "bench: --%s: bad value '%s': expected %s\n", name, v, want);
    return -1;
}

/* What getopt_long could not take in arg: an unknown option, an ambiguous prefix (with the options it could be), or
 * a value given to an option that takes none. */
static void bad_option(const char *arg, const struct option *longs) {
    if (strncmp(arg, "--", 2) || !arg[2]) {
        fprintf(stderr, "bench: unknown option '%s'\n", arg);
        return;
    }
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int matches = 0, exact = -1;
    for (int i = 0; longs[i].name; i++)
        if (!strncmp(longs[i].name, name, len)) {
            matches++;
            if (strlen(longs[i].name) == len) exact = i;
        }
    if (eq && (exact >= 0 || matches == 1)) {
        fprintf(stderr, "bench: option '%.*s' takes no value: '%s'\n", (int)(len + 2), arg, arg);
    } else if (matches > 1) {
        char text[1024];
        int n = snprintf(text, sizeof text, "bench: ambiguous option '%.*s': it could be", (int)(len + 2), arg);
        for (int i = 0; longs[i].name && n > 0 && (size_t)n < sizeof text; i++)
            if (!strncmp(longs[i].name, name, len))
                n += snprintf(text + n, sizeof text - (size_t)n, " --%s", longs[i].name);
        print_wrapped(stderr, "", "  ", text);
    } else {
        fprintf(stderr, "bench: unknown option '%.*s'\n", (int)(len + 2), arg);
    }
}

/* Parses argv into o with getopt_long. Returns 0; 1 after --help or --version (printed, nothing else to do); -1
 * after a usage error (printed on stderr). */
static int parse_args(int argc, char **argv, options *o) {
    int seed_set = 0, warmup_set = 0, peak_only = 0, transfer_only = 0;
    const struct option longs[] = {
        {"all", no_argument, &o->all, 1},
        {"quick", no_argument, &o->quick, 1},
        {"list", no_argument, &o->list, 1},
        {"libs", no_argument, &o->libs, 1},
        {"no-verify", no_argument, &o->verify, 0},
        {"no-baselines", no_argument, &o->baselines, 0},
        {"require-baselines", no_argument, &o->require_baselines, 1},
        {"no-launch", no_argument, &o->launch, 0},
        {"no-user-kernel", no_argument, &o->user_kernel, 0},
        {"no-progress", no_argument, &o->progress, 0},
        {"no-peak", no_argument, &o->peak, 0},
        {"no-transfer", no_argument, &o->transfer, 0},
        {"peak", no_argument, &peak_only, 1},
        {"transfer", no_argument, &transfer_only, 1},
        {"comm", no_argument, &o->comm, 1},
        {"comm-cross", no_argument, &o->comm_cross, 1},
        {"verbose", no_argument, NULL, 'v'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"kernels", required_argument, NULL, OPT_KERNELS},
        {"only", required_argument, NULL, OPT_KERNELS}, /* the old name of --kernels */
        {"types", required_argument, NULL, OPT_TYPES},
        {"repeats", required_argument, NULL, OPT_REPEATS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"seed", required_argument, NULL, OPT_SEED},
        {"scale", required_argument, NULL, OPT_SCALE},
        {"vecadd-n", required_argument, NULL, OPT_VECADD_N},
        {"gemm", required_argument, NULL, OPT_GEMM},
        {"gemm-set", required_argument, NULL, OPT_GEMM_SET},
        {"softmax", required_argument, NULL, OPT_SOFTMAX},
        {"reduce-n", required_argument, NULL, OPT_REDUCE_N},
        {"noise-threshold", required_argument, NULL, OPT_NOISE},
        {"no-energy", no_argument, &o->energy, 0},
        {"energy-window", required_argument, NULL, OPT_ENERGY_WINDOW},
        {"gate-bytes", required_argument, NULL, OPT_GATE},
        {"json", required_argument, NULL, OPT_JSON},
        {"csv", required_argument, NULL, OPT_CSV},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"compare", required_argument, NULL, OPT_COMPARE},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"comm-min-bytes", required_argument, NULL, OPT_COMM_MIN},
        {"comm-max-bytes", required_argument, NULL, OPT_COMM_MAX},
        {"comm-iters", required_argument, NULL, OPT_COMM_ITERS},
        {"comm-engine", required_argument, NULL, OPT_COMM_ENGINE},
        {"comm-devices", required_argument, NULL, OPT_COMM_DEVICES},
        {"comm-ops", required_argument, NULL, OPT_COMM_OPS},
        {NULL, 0, NULL, 0},
    };
    opterr = 0; /* our own messages, named "bench" rather than argv[0]'s path */
    optind = 1;
    for (;;) {
        int index = -1;
        int c = getopt_long(argc, argv, ":hvV", longs, &index);
        if (c == -1) break;
        const char *arg = argv[optind - 1];
        switch (c) {
        case 0: break; /* a flag, set through its pointer */
        case 'h': usage(stdout); return 1;
        case 'V': printf("hcl bench %s\n", BENCH_VERSION); return 1;
        case 'v': o->verbose = 1; break;
        case ':': fprintf(stderr, "bench: option '%s' needs a value\n", arg); return -1;
        case '?': bad_option(arg, longs); return -1;
        default:
            if (parse_value(c, longs[index].name, optarg, o)) return -1;
            seed_set |= c == OPT_SEED;
            warmup_set |= c == OPT_WARMUP;
            o->types_set |= c == OPT_TYPES;
            break;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bench: unexpected argument '%s' (bench takes options only)\n", argv[optind]);
        return -1;
    }
    if (o->all && o->selector) {
        fprintf(stderr, "bench: --all and --device exclude each other\n");
        return -1;
    }
    if (o->comm && comm_check_options(o, peak_only || transfer_only)) return -1;
    if (peak_only || transfer_only) {
        o->sections_only = 1;
        o->peak = peak_only;
        o->transfer = transfer_only;
    }
    if (o->quick) {
        if (!o->repeats_set) o->repeats = 3;
        if (!warmup_set) o->warmup = 1;
    }
    if (!seed_set) o->seed = hcl_ts_seed(); /* HCL_SEED, else from the clock */
    return 0;
}

/* An output path bench will write at the end: checked now, so a typo does not cost the whole run. It must not be
 * empty or a folder; an existing file must be writable; otherwise its folder must exist and be writable. Returns
 * 0, or -1 after a message. */
static int check_output(const char *opt, const char *path) {
    struct stat st;
    const char *why = NULL;
    char dir[4096];
    if (!*path) {
        why = "the path is empty";
    } else if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            why = "it is a folder";
        else if (access(path, W_OK))
            why = "the file is not writable";
    } else if (errno != ENOENT) {
        why = strerror(errno);
    } else {
        copy_text(dir, sizeof dir, path);
        char *slash = strrchr(dir, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
        if (stat(dir, &st) != 0)
            why = "its folder does not exist";
        else if (!S_ISDIR(st.st_mode))
            why = "its folder is not a folder";
        else if (access(dir, W_OK | X_OK))
            why = "its folder is not writable";
    }
    if (!why) return 0;
    fprintf(stderr, "bench: --%s %s: cannot write there: %s\n", opt, path, why);
    return -1;
}

/* Every output path, and that no two outputs name one file. */
static int check_outputs(const options *o) {
    const char *names[] = {"json", "csv", "plot", "trace"}, *paths[] = {o->json, o->csv, o->plot, o->trace};
    for (int i = 0; i < 4; i++) {
        if (!paths[i]) continue;
        if (check_output(names[i], paths[i])) return -1;
        for (int j = 0; j < i; j++)
            if (paths[j] && !strcmp(paths[i], paths[j])) {
                fprintf(stderr, "bench: --%s and --%s name the same file: %s\n", names[j], names[i], paths[i]);
                return -1;
            }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * --list: the devices as hcl-info names them, from the opened device (so a test can hold both to one answer)
 * ------------------------------------------------------------------------------------------------------- */
static int list_devices(void) {
    uint32_t count = 0;
    hcl_status st = hcl_device_count(&count);
    if (st != HCL_SUCCESS) {
        fprintf(stderr, "bench: hcl_device_count: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    printf("Devices (%" PRIu32 "):\n", count);
    for (uint32_t i = 0; i < count; i++) {
        hcl_device_info by_index, opened;
        if ((st = hcl_device_get_info_by_index(i, &by_index)) != HCL_SUCCESS) {
            printf("  [%" PRIu32 "] hcl_device_get_info_by_index failed: %s: %s\n", i, hcl_status_name(st),
                   hcl_last_message());
            continue;
        }
        char sel[64];
        snprintf(sel, sizeof sel, "%s:%u", by_index.backend, by_index.index);
        hcl_device dev = NULL;
        const hcl_device_info *show = &by_index;
        const char *note = " (from hcl_device_get_info_by_index: the device could not be opened)";
        if (hcl_device_open(sel, &dev) == HCL_SUCCESS && hcl_device_get_info(dev, &opened) == HCL_SUCCESS) {
            show = &opened;
            note = "";
        }
        if (dev) hcl_device_release(dev);
        printf("  [%" PRIu32 "] %s:%" PRIu32 "  %s\n", i, show->backend, show->index, show->name);
        printf("        identity:            %s%s\n", show->identity, note);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * One device
 * ------------------------------------------------------------------------------------------------------- */
static int count_failures(const options *o, const device_run *dr) {
    int bad = 0;
    for (int i = 0; i < dr->nresults; i++) {
        const result *r = &dr->results[i];
        bad += !measure_ok(&r->hcl) || (o->verify && !r->hcl.checked);
        bad += r->base.present && (!measure_ok(&r->base) || (o->verify && !r->base.checked));
    }
    if (!o->sections_only) {
        bad += o->launch && !dr->launch.ran && !dr->launch.unsupported;
        bad += o->user_kernel && (dr->uk.failed || (!dr->uk.ran && strcmp(dr->uk.kind, "none")));
    }
    /* the sections: every figure that was not skipped ran and was checked */
    const peak_rate *pk[3] = {&dr->peak.copy, &dr->peak.fp32, &dr->peak.fp16};
    for (int i = 0; i < 3 && dr->peak.ran; i++)
        bad += !pk[i]->skipped[0] && !(pk[i]->ran && pk[i]->m.checked && measure_ok(&pk[i]->m));
    for (int i = 0; i < dr->xfer.nrows; i++) bad += !(dr->xfer.rows[i].m.checked && measure_ok(&dr->xfer.rows[i].m));
    bad += o->transfer && !dr->xfer.ran;
    if (o->require_baselines && o->baselines) {
        for (int k = 0; k < BASE_COUNT; k++)
            if (dr->bases[k].applicable && !dr->bases[k].available) {
                print_wrappedf(stdout, "", "  ", "bench: --require-baselines: %s is missing: %s", dr->bases[k].name,
                               dr->bases[k].reason);
                bad++;
            }
        if (o->launch && dr->launch.vendor_name[0] && !dr->launch.vendor_ran) {
            print_wrappedf(stdout, "", "  ", "bench: --require-baselines: raw %s not measured: %s",
                           dr->launch.vendor_name, dr->launch.vendor_reason);
            bad++;
        }
    }
    return bad;
}

static void gate_close(bdev *b) {
    if (b->gate) hcl_buffer_release(b->gate);
    if (b->gate_sum) hcl_buffer_release(b->gate_sum);
    b->gate = b->gate_sum = NULL;
}

/* The gate (--gate-bytes): its buffer (zeros) and its sum's, or none (a CPU device by default; or when they cannot be
 * made, said in the device's header line). */
static void gate_open(bdev *b) {
    device_run *dr = b->run;
    size_t bytes = b->opt->gate_set ? b->opt->gate_bytes : b->cpu ? 0 : BENCH_GATE_BYTES;
    if (!b->opt->gate_set && b->info.global_mem_bytes && bytes > b->info.global_mem_bytes / 16)
        bytes = (size_t)(b->info.global_mem_bytes / 16);
    bytes = bytes / 4 * 4; /* whole floats: the sum reads f32 */
    if (bytes == 0) {
        snprintf(dr->gate_note, sizeof dr->gate_note, "none (%s)",
                 b->opt->gate_set ? "--gate-bytes 0" : "a CPU device");
        return;
    }
    /* read, never written after this first fill: a fill as the gate left its dirty lines in the cache for the run
     * to write back (the 2^25 f16 reduce on an H200 read 0.77 of the copy behind it, 0.81 without a gate) */
    const uint32_t zero = 0;
    hcl_status st = hcl_buffer_create(b->device, bytes, 0, &b->gate);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(b->device, sizeof(float), 0, &b->gate_sum);
    if (st == HCL_SUCCESS) st = hcl_buffer_fill(b->queue, b->gate, 0, bytes, &zero, sizeof zero);
    if (st != HCL_SUCCESS) {
        snprintf(dr->gate_note, sizeof dr->gate_note, "none (its %zu-byte buffer: %s: %s)", bytes, hcl_status_name(st),
                 hcl_last_message());
        gate_close(b);
        return;
    }
    dr->gate_bytes = bytes;
    snprintf(dr->gate_note, sizeof dr->gate_note, "a sum over %.0f MiB (hcl_reduce, f32) before each timed run",
             bytes / 1048576.0);
}

static void run_device(const options *o, device_run *dr, int index, int total) {
    double t0 = now_s();
    bdev b;
    memset(&b, 0, sizeof b);
    b.opt = o;
    b.run = dr;
    b.rng = o->seed;
    hcl_status st = hcl_device_open(dr->selector[0] ? dr->selector : NULL, &b.device);
    if (st == HCL_SUCCESS) st = hcl_device_get_info(b.device, &b.info);
    if (st == HCL_SUCCESS) st = hcl_queue_create(b.device, &b.queue);
    if (st != HCL_SUCCESS) {
        snprintf(dr->error, sizeof dr->error, "%s: %s", hcl_status_name(st), hcl_last_message());
        print_wrappedf(stdout, "", "  ", "bench: cannot run device %s: %s",
                       dr->selector[0] ? dr->selector : "(from the environment)", dr->error);
        printf("\n");
        if (b.device) hcl_device_release(b.device);
        return;
    }
    dr->opened = 1;
    dr->info = b.info;
    b.cpu = b.info.type == HCL_DEVICE_TYPE_CPU;
    snprintf(dr->selector, sizeof dr->selector, "%s:%u", b.info.backend, b.info.index);
    gate_open(&b);
    bcase cases[BENCH_MAX_CASES];
    int ncases = plan_cases(o, &b.info, cases, BENCH_MAX_CASES, dr->plan_note, sizeof dr->plan_note);
    progress("%s: opening the baselines", dr->selector);
    baselines_open(&b);
    settle_cpu(&b); /* opening OpenBLAS starts its threads */
    progress_done();
    print_header(&b, dr);
    energy_start(&b); /* the sampler thread, the idle power and its line */
    progress_prefix("[device %d/%d]", index + 1, total);
    if (o->peak) { /* first: the rows' fractions of peak need it */
        measure_peak(&b, &dr->peak);
        progress_done();
        print_peak(dr, o);
    }
    if (!o->sections_only) {
        print_table_header();
        b.energy_rows = 1;
        for (int i = 0; i < ncases; i++) {
            progress_prefix("[device %d/%d, case %d/%d]", index + 1, total, i + 1, ncases);
            run_case(&b, &cases[i], &dr->results[dr->nresults]);
            progress_done();
            print_row(dr, &dr->results[dr->nresults], o);
            dr->nresults++;
        }
        b.energy_rows = 0;
        print_table_footer(dr, o);
    }
    progress_prefix("[device %d/%d]", index + 1, total);
    if (o->transfer) {
        measure_transfer(&b, &dr->xfer);
        progress_done();
        print_transfer(dr, o);
    }
    if (!o->sections_only) {
        if (o->launch) measure_launch(&b, &dr->launch);
        if (o->user_kernel) measure_user_kernel(&b, &dr->uk);
        progress_done();
        print_device_extras(dr);
    }
    energy_stop(&b);
    baselines_close(&b);
    gate_close(&b);
    st = hcl_queue_release(b.queue);
    if (st == HCL_SUCCESS)
        st = hcl_device_release(b.device);
    else
        hcl_device_release(b.device);
    if (st != HCL_SUCCESS)
        print_wrappedf(stdout, "", "  ", "error: releasing %s: %s: %s", dr->selector, hcl_status_name(st),
                       hcl_last_message());
    dr->wall_s = now_s() - t0;
    printf("\n%s: %.1f s\n\n", dr->selector, dr->wall_s);
}

/* --all: every device of every available backend, and each unavailable backend with its reason. */
static int all_devices(device_run *runs, int max) {
    int n = 0;
    uint32_t count = 0;
    if (hcl_backend_count(&count) != HCL_SUCCESS) return 0;
    for (uint32_t i = 0; i < count && n < max; i++) {
        hcl_backend_info bi;
        if (hcl_backend_get_info(i, &bi) != HCL_SUCCESS) continue;
        if (!bi.available || bi.device_count == 0) {
            device_run *dr = &runs[n++];
            snprintf(dr->selector, sizeof dr->selector, "%s", bi.name);
            dr->unavailable = 1;
            copy_text(dr->error, sizeof dr->error, bi.available ? "no device" : bi.reason);
            continue;
        }
        for (uint32_t d = 0; d < bi.device_count && n < max; d++)
            snprintf(runs[n++].selector, sizeof runs[0].selector, "%s:%u", bi.name, d);
    }
    return n;
}

int bench_main(int argc, char **argv, int comm) {
    double t_main = now_s();
    options o = {.comm = comm,
                 .repeats = 7,
                 .warmup = 2,
                 .verify = 1,
                 .kernels = (1u << K_COUNT) - 1,
                 .types = (1u << BT_COUNT) - 1,
                 .gemm_sets = GS_DEFAULT,
                 .scale = 1.0,
                 .baselines = 1,
                 .launch = 1,
                 .user_kernel = 1,
                 .progress = 1,
                 .transfer = 1,
                 .peak = 1,
                 .noise = BENCH_NOISE_DEFAULT,
                 .energy = 1,
                 .energy_window = 0.5,
                 .comm_min = 8,
                 .comm_ops = (1u << OP_COUNT) - 1};
    int parsed = parse_args(argc, argv, &o);
    if (parsed > 0) return 0; /* --help, --version */
    /* every usage error before any work: options, output paths, and the saved run of --compare */
    flat_row *rows = NULL, *old_rows = NULL;
    int nrows = 0, nold = 0;
    if (!parsed) parsed = check_outputs(&o);
    if (!parsed && o.compare) {
        char err[600];
        if (load_json_rows(o.compare, &old_rows, &nold, err, sizeof err)) {
            fprintf(stderr, "bench: --compare: %s\n", err);
            parsed = -1;
        }
    }
    if (parsed) {
        fprintf(stderr, "run 'bench --help' for the options\n");
        return 2;
    }
    if (o.list || o.libs) {
        free(old_rows);
        if (o.list) return list_devices();
        baselines_print_libs();
        return 0;
    }
    progress_start(o.progress);
    if (o.trace) {
        hcl_status st = hcl_trace_start(o.trace);
        if (st != HCL_SUCCESS) {
            fprintf(stderr, "bench: --trace %s: %s: %s\n", o.trace, hcl_status_name(st), hcl_last_message());
            free(old_rows);
            return 2;
        }
    }
    if (o.comm) { /* the communication benchmark (comm.c) instead of the kernels */
        int bad = comm_main(&o, t_main);
        if (o.trace && hcl_trace_stop() != HCL_SUCCESS) {
            printf("bench: --trace %s: %s\n", o.trace, hcl_last_message());
            bad++;
        }
        return bad ? 1 : 0;
    }

    /* the time to the first kernel comes first, before anything else has loaded a driver */
    startup su;
    measure_startup(o.all ? NULL : o.selector, t_main, &su);
    if (!su.ran && !o.all) {
        fprintf(stderr, "bench: cannot open device %s: %s\n", o.selector ? o.selector : "(from the environment)",
                su.error);
        free(old_rows);
        return 1;
    }

    const char *env_be = getenv("HCL_BACKEND"), *env_dev = getenv("HCL_DEVICE");
    char line[1024];
    printf("hcl bench %s\n", BENCH_VERSION);
    if (o.all)
        printf("selected:  --all (every device of every available backend)\n");
    else if (o.selector)
        printf("selected:  --device %s\n", o.selector);
    else
        printf("selected:  HCL_BACKEND=%s HCL_DEVICE=%s\n", env_be ? env_be : "(unset)", env_dev ? env_dev : "(unset)");
    printf("seed:      %" PRIu64 " (--seed to repeat)\n", o.seed);
    snprintf(line, sizeof line,
             "%d warm-up (discarded) + %d timed per measurement%s; outputs filled with NaN before each run", o.warmup,
             o.repeats, o.repeats_set ? "" : " (fewer, at least 3, past about 3 s)");
    print_wrapped(stdout, "runs:      ", "           ", line);
    snprintf(line, sizeof line,
             "median, best = rate at the median and at the fastest of the timed runs (device time: HCL's events, the "
             "baseline's own vendor events); spread = slowest / fastest run, * = noisy (spread above %.2f, "
             "--noise-threshold); check = ok or FAILED against a float64 reference (the errors: --verbose, --json, "
             "--csv); HCL/base = ratio of the median rates",
             o.noise);
    print_wrapped(stdout, "columns:   ", "           ", line);
    print_startup(&su);
    printf("\n");
    fflush(stdout);

    static device_run runs[BENCH_MAX_DEVICES];
    int nruns = 1;
    if (o.all)
        nruns = all_devices(runs, BENCH_MAX_DEVICES);
    else if (o.selector)
        snprintf(runs[0].selector, sizeof runs[0].selector, "%s", o.selector);
    int runnable = 0;
    for (int d = 0; d < nruns; d++) runnable += !runs[d].unavailable;
    int failures = 0, done = 0;
    for (int d = 0; d < nruns; d++) {
        if (runs[d].unavailable) {
            print_wrappedf(stdout, "==== ", "     ", "%s: unavailable: %s", runs[d].selector, runs[d].error);
            printf("\n");
            continue;
        }
        if (o.all) printf("==== %s\n", runs[d].selector);
        run_device(&o, &runs[d], done++, runnable);
        if (!runs[d].opened)
            failures++;
        else
            failures += count_failures(&o, &runs[d]);
    }
    progress_done();
    if (!done) {
        printf("bench: no device to run\n");
        failures++;
    }
    if (o.all) print_matrix(runs, nruns, &o);
    if (su.error[0] || (su.ran && !su.verified)) failures++;

    flatten_runs(runs, nruns, &rows, &nrows);
    if (o.compare) print_compare(o.compare, old_rows, nold, rows, nrows);
    double total = now_s() - t_main;
    int out_bad = 0;
    if (o.json) out_bad |= write_json(o.json, &o, &su, runs, nruns, total, failures);
    if (o.csv) out_bad |= write_csv(o.csv, runs, nruns, o.noise);
    if (o.plot) {
        /* the saved run by its file's base name only: a plot is shared, the folders of the machine are not */
        const char *old_name = o.compare ? strrchr(o.compare, '/') : NULL;
        old_name = old_name ? old_name + 1 : o.compare;
        char title[160];
        snprintf(title, sizeof title, "hcl bench %s%s%s", BENCH_VERSION, o.compare ? " vs " : "",
                 o.compare ? old_name : "");
        out_bad |= write_svg(o.plot, rows, nrows, old_rows, nold, title, o.noise);
    }
    free(rows);
    free(old_rows);
    if (o.trace && hcl_trace_stop() != HCL_SUCCESS) {
        printf("bench: --trace %s: %s\n", o.trace, hcl_last_message());
        out_bad = 1;
    }
    if (out_bad) {
        printf("bench: an output file could not be written\n");
        failures++;
    }
    if (failures)
        printf("\nbench: FAILED (%d problem%s, see above) in %.1f s\n", failures, failures == 1 ? "" : "s", total);
    else if (!o.verify)
        printf("\nbench: everything ran (results not checked: --no-verify) in %.1f s\n", total);
    else
        printf("\nbench: everything ran and every result was verified in %.1f s\n", total);
    return failures ? 1 : 0;
}
