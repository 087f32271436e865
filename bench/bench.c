/* bench: HCL's four built-in kernels (vecadd, gemm, softmax, reduce) on one device or on every device (--all), each
 * result checked against a float64 reference, each row beside a vendor baseline run in the same process on the
 * same buffers (cuBLAS / CUB / cuMemcpyDtoDAsync, CLBlast / clEnqueueCopyBuffer, OpenBLAS / memcpy), plus the
 * launch cost of an empty kernel (HCL and the raw vendor call), a user kernel built from source, and the time from
 * process start to the first finished kernel. Output: a table on stdout, and --json, --csv, --plot (SVG) files;
 * --compare OLD.json prints the ratios against a saved run.
 *
 * This file: main, the options, the device loop and the progress line. See bench.h for the others. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "bench: out of host memory\n");
        exit(1);
    }
    return p;
}

void copy_text(char *dst, size_t size, const char *src) {
    if (!size) return;
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---------------------------------------------------------------------------------------------------------
 * The progress line on stderr: rewritten in place on a terminal (at most 10 times a second), otherwise one line
 * every 10 s, so a CI log shows that a long run is alive without drowning in it.
 * ------------------------------------------------------------------------------------------------------- */
static struct {
    int enabled, tty, shown;
    double last;
    char prefix[64];
} prog;

void progress(const char *fmt, ...) {
    if (!prog.enabled) return;
    double t = now_s();
    if (t - prog.last < (prog.tty ? 0.1 : 10.0)) return;
    prog.last = t;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (prog.tty) {
        fprintf(stderr, "\r\033[K%s%s%s", prog.prefix, prog.prefix[0] ? " " : "", line);
        prog.shown = 1;
    } else {
        fprintf(stderr, "bench: %s%s%s ...\n", prog.prefix, prog.prefix[0] ? " " : "", line);
    }
    fflush(stderr);
}

void progress_done(void) {
    if (prog.tty && prog.shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        prog.shown = 0;
        prog.last = 0.0;
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------------------------------------- */
static void usage(FILE *f) {
    fprintf(
        f,
        "usage: bench [options]\n"
        "\n"
        "Runs HCL's built-in kernels (vecadd, gemm, softmax, reduce sum) on a device and prints, per kernel and size, "
        "the\n"
        "device time of the timed runs (median, min, max, from the events the calls return), the rate at the median,\n"
        "the same figure for a vendor baseline run in the same process on the same buffers, their ratio, and whether\n"
        "each output matched a float64 reference computed on the host. Then the launch cost of an empty kernel (HCL "
        "and\n"
        "the raw vendor call), a user kernel compiled from source (build time, disk-cache hit or miss, result "
        "checked),\n"
        "and the time from process start to the first finished kernel.\n"
        "\n"
        "Devices:\n"
        "  --device SEL        open SEL (\"host\", \"opencl:1\", \"cuda,opencl\"; see hcl_device_open). Default: the\n"
        "                      environment (HCL_BACKEND, HCL_DEVICE), else the first GPU in the library's backend\n"
        "                      order (as --list and hcl-info show it), else host\n"
        "  --all               every device of every available backend, one after the other, then one table of\n"
        "                      kernels x devices with the speedup over the host driver and the largest error of each;\n"
        "                      unavailable backends are listed with the reason\n"
        "  --list              list the devices (name and identity, as hcl-info shows them) and exit\n"
        "  --libs              list the baselines' vendor libraries: which load, from where, or why not; and exit\n"
        "\n"
        "What to run:\n"
        "  --kernels LIST      comma list of vecadd, gemm, softmax, reduce (default: all)\n"
        "  --types LIST        comma list of f32, tf32, f16, bf16 (default: all): each kernel in each type (tf32:\n"
        "                      gemm only, where the device's matrix unit has it); rows of another type than f32\n"
        "                      carry it after the shape (\"4096x4096x4096 bf16\"); 16-bit gemm writes C in its type\n"
        "  --quick             small odd shapes, 3 timed runs after 1 warm-up: about 30 s on PoCL (for CI)\n"
        "  --repeats N         timed runs per measurement (default 7, at most %d; without it a slow case stops after\n"
        "                      about 3 s of timed runs, at least 3)\n"
        "  --warmup N          untimed runs first (default 2; they absorb kernel builds, CLBlast's first-call compile\n"
        "                      and cuBLAS/CUB initialisation)\n"
        "  --seed N            seed of the random inputs (default: HCL_SEED, else from the clock; always printed)\n"
        "  --no-verify         skip the reference checks (rows then say \"not checked\")\n"
        "  --no-baselines      skip the vendor baselines (and the raw vendor launch)\n"
        "  --require-baselines exit 1 when a baseline that belongs to the backend is missing (default: reported only)\n"
        "  --no-launch         skip the launch-cost measurement\n"
        "  --no-user-kernel    skip the user kernel built from source\n"
        "  --no-progress       no progress line on stderr\n"
        "\n"
        "Sizes (N accepts 1000, 16M = 16*2^20, 1K = 2^10, 2^24). Defaults on a GPU: vecadd and reduce 2^25 and 2^28\n"
        "elements, gemm 1024, 2048, 4096, 8192 (square), softmax 2^27 elements as rows x 256, 1024, 4096, 16384, "
        "32768,\n"
        "65536, 131072, 262144 columns; on a CPU device: vectors 2^25, gemm 256 to 2048, softmax 2^23 elements over "
        "the same columns.\n"
        "Defaults are halved until they fit 45%% of the device's memory and 35%% of the host's (the table says so).\n"
        "  --scale F           multiply the default element counts by F (gemm: each dimension by F^(1/3))\n"
        "  --vecadd-n N        one vecadd length instead of the defaults\n"
        "  --gemm N|MxNxK      one gemm shape\n"
        "  --softmax RxC       one softmax shape (rows x cols)\n"
        "  --reduce-n N        one reduce length\n"
        "\n"
        "Output:\n"
        "  --json FILE         everything as JSON (schema hcl-bench/1: devices, baselines, results with hcl and "
        "baseline\n"
        "                      figures and \"verified\", launch, user_kernel, startup, summary)\n"
        "  --csv FILE          one line per (device, kernel, shape) and per launch measurement\n"
        "  --compare OLD.json  print this run's rates against a saved --json run (now/then per matching row)\n"
        "  --plot FILE.svg     bar chart per kernel: HCL and baseline per device (and the --compare run as ticks)\n"
        "\n"
        "Rates: vecadd 3*e*n bytes, softmax 2*e*rows*cols, reduce e*n (e: the element's bytes; BabelStream counting),\n"
        "a copy baseline read + write, gemm 2*m*n*k flops. Every run's output is first filled with NaN, so unwritten "
        "elements fail the "
        "check.\n"
        "Tolerances: vecadd |c-ref|/|ref| <= 2^-23; gemm |c-ref|/sum|a*b| <= min(k+1, 64)*2^-23 (tight enough that\n"
        "TF32 fails; every element up to 2^27 multiply-adds, else 16 whole rows and 16 whole columns); softmax\n"
        "|y-ref|/ref <= (cols+32)*2^-24 (every row up to 2^23 elements, else 64 rows); reduce |s-ref|/sum|x| <= 1e-6;\n"
        "copies bit-exact. Baselines are checked against the same reference. Rows of another type round their inputs\n"
        "to it first; a 16-bit output adds its rounding (f16 2^-11, bf16 2^-8 relative; f16 at least 2^-24\n"
        "absolute, its subnormal spacing), TF32 adds 2^-9 relative to sum|a*b|.\n"
        "\n"
        "Baselines (opened with dlopen; a missing one is reported with the reason, never replaced):\n"
        "  cuda    cuBLAS SGEMM (libcublas.so.13/.12, HCL_CUBLAS_LIBRARY; default math mode, no TF32), and for\n"
        "          the typed gemm rows cublasGemmEx (f16, bf16: C of that type; TF32: CUBLAS_COMPUTE_32F_FAST_TF32),\n"
        "          cuMemcpyDtoDAsync, CUB DeviceReduce::Sum (libhcl-bench-cub.so, HCL_BENCH_CUB_LIBRARY)\n"
        "  opencl  CLBlast SGEMM (libclblast.so.1, HCL_CLBLAST_LIBRARY), clEnqueueCopyBuffer\n"
        "  host    OpenBLAS cblas_sgemm (libopenblas.so.0, HCL_OPENBLAS_LIBRARY), memcpy\n"
        "\n"
        "Exit status: 0 when everything ran and every check passed; 1 when a device could not be opened, a call "
        "failed,\n"
        "a check FAILED (HCL's or a baseline's), or --require-baselines found one missing; 2 on a usage error.\n",
        BENCH_MAX_REPEATS);
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
        if (parse_size(tok[i], &d[i])) return -1;
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

/* A comma list of names[] (or "all") as a bit mask over their indices; -1 when a name is unknown or none given */
static int parse_names(const char *s, const char *const *names, int count, unsigned *out) {
    char buf[128], *tok[64];
    int n = split(s, ",", buf, sizeof buf, tok, 64);
    unsigned mask = 0;
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < count; k++)
            if (!strcmp(tok[i], names[k])) mask |= 1u << k, found = 1;
        if (!strcmp(tok[i], "all")) mask |= (1u << count) - 1, found = 1;
        if (!found) return -1;
    }
    if (n < 0 || !mask) return -1;
    *out = mask;
    return 0;
}

static int parse_args(int argc, char **argv, options *o) {
    int seed_set = 0, warmup_set = 0;
    static const struct {
        const char *name;
        size_t off;
        int value;
    } flags[] = {
        {"--all", offsetof(options, all), 1},
        {"--quick", offsetof(options, quick), 1},
        {"--list", offsetof(options, list), 1},
        {"--libs", offsetof(options, libs), 1},
        {"--no-verify", offsetof(options, verify), 0},
        {"--no-baselines", offsetof(options, baselines), 0},
        {"--require-baselines", offsetof(options, require_baselines), 1},
        {"--no-launch", offsetof(options, launch), 0},
        {"--no-user-kernel", offsetof(options, user_kernel), 0},
        {"--no-progress", offsetof(options, progress), 0},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        int is_flag = 0;
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
            if (!strcmp(a, flags[f].name)) {
                *(int *)((char *)o + flags[f].off) = flags[f].value;
                is_flag = 1;
            }
        if (is_flag) continue;
        if (i + 1 >= argc) {
            fprintf(stderr, "bench: unknown option or missing value: '%s'\n", a);
            return -1;
        }
        const char *v = argv[++i];
        int bad = 0;
        if (!strcmp(a, "--device")) {
            o->selector = v;
        } else if (!strcmp(a, "--kernels") || !strcmp(a, "--only")) {
            bad = parse_names(v, kernel_names, K_COUNT, &o->kernels);
        } else if (!strcmp(a, "--types")) {
            bad = parse_names(v, type_names, BT_COUNT, &o->types);
        } else if (!strcmp(a, "--repeats")) {
            bad = parse_int(v, 1, BENCH_MAX_REPEATS, &o->repeats);
            o->repeats_set = 1;
        } else if (!strcmp(a, "--warmup")) {
            bad = parse_int(v, 0, 100, &o->warmup);
            warmup_set = 1;
        } else if (!strcmp(a, "--seed")) {
            char *end = NULL;
            errno = 0;
            o->seed = strtoull(v, &end, 0);
            bad = errno || end == v || *end;
            seed_set = 1;
        } else if (!strcmp(a, "--scale")) {
            char *end = NULL;
            o->scale = strtod(v, &end);
            bad = end == v || *end || !(o->scale > 0.0) || o->scale > 1e6;
        } else if (!strcmp(a, "--vecadd-n")) {
            bad = parse_size(v, &o->vec_n) || o->vec_n == 0;
        } else if (!strcmp(a, "--reduce-n")) {
            bad = parse_size(v, &o->red_n) || o->red_n == 0;
        } else if (!strcmp(a, "--gemm")) {
            size_t d[3];
            bad = parse_dims(v, d, 3) || !d[0] || !d[1] || !d[2];
            if (!bad) o->gemm_m = d[0], o->gemm_n = d[1], o->gemm_k = d[2];
        } else if (!strcmp(a, "--softmax")) {
            size_t d[2];
            bad = parse_dims(v, d, 2) || !d[0] || !d[1];
            if (!bad) o->sm_rows = d[0], o->sm_cols = d[1];
        } else if (!strcmp(a, "--json")) {
            o->json = v;
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--plot")) {
            o->plot = v;
        } else if (!strcmp(a, "--compare")) {
            o->compare = v;
        } else {
            fprintf(stderr, "bench: unknown option '%s'\n", a);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "bench: bad value for %s: '%s'\n", a, v);
            return -1;
        }
    }
    if (o->all && o->selector) {
        fprintf(stderr, "bench: --all and --device exclude each other\n");
        return -1;
    }
    if (o->quick) {
        if (!o->repeats_set) o->repeats = 3;
        if (!warmup_set) o->warmup = 1;
    }
    if (!seed_set) o->seed = hcl_ts_seed(); /* HCL_SEED, else from the clock */
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
    bad += o->launch && !dr->launch.ran && !dr->launch.unsupported;
    bad += o->user_kernel && (dr->uk.failed || (!dr->uk.ran && strcmp(dr->uk.kind, "none")));
    if (o->require_baselines && o->baselines) {
        for (int k = 0; k < BASE_COUNT; k++)
            if (dr->bases[k].applicable && !dr->bases[k].available) {
                printf("bench: --require-baselines: %s is missing: %s\n", dr->bases[k].name, dr->bases[k].reason);
                bad++;
            }
        if (o->launch && dr->launch.vendor_name[0] && !dr->launch.vendor_ran) {
            printf("bench: --require-baselines: raw %s not measured: %s\n", dr->launch.vendor_name,
                   dr->launch.vendor_reason);
            bad++;
        }
    }
    return bad;
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
        printf("bench: cannot run device %s: %s\n\n", dr->selector[0] ? dr->selector : "(from the environment)",
               dr->error);
        if (b.device) hcl_device_release(b.device);
        return;
    }
    dr->opened = 1;
    dr->info = b.info;
    b.cpu = b.info.type == HCL_DEVICE_TYPE_CPU;
    snprintf(dr->selector, sizeof dr->selector, "%s:%u", b.info.backend, b.info.index);
    bcase cases[BENCH_MAX_CASES];
    int ncases = plan_cases(o, &b.info, cases, BENCH_MAX_CASES, dr->plan_note, sizeof dr->plan_note);
    progress("%s: opening the baselines", dr->selector);
    baselines_open(&b);
    settle_cpu(&b); /* opening OpenBLAS starts its threads */
    progress_done();
    print_header(&b, dr);
    print_table_header();
    for (int i = 0; i < ncases; i++) {
        snprintf(prog.prefix, sizeof prog.prefix, "[device %d/%d, case %d/%d]", index + 1, total, i + 1, ncases);
        run_case(&b, &cases[i], &dr->results[dr->nresults]);
        progress_done();
        print_row(&dr->results[dr->nresults]);
        dr->nresults++;
    }
    snprintf(prog.prefix, sizeof prog.prefix, "[device %d/%d]", index + 1, total);
    if (o->launch) measure_launch(&b, &dr->launch);
    if (o->user_kernel) measure_user_kernel(&b, &dr->uk);
    progress_done();
    print_device_extras(dr);
    baselines_close(&b);
    st = hcl_queue_release(b.queue);
    if (st == HCL_SUCCESS)
        st = hcl_device_release(b.device);
    else
        hcl_device_release(b.device);
    if (st != HCL_SUCCESS)
        printf("error: releasing %s: %s: %s\n", dr->selector, hcl_status_name(st), hcl_last_message());
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

int main(int argc, char **argv) {
    double t_main = now_s();
    options o = {.repeats = 7,
                 .warmup = 2,
                 .verify = 1,
                 .kernels = (1u << K_COUNT) - 1,
                 .types = (1u << BT_COUNT) - 1,
                 .scale = 1.0,
                 .baselines = 1,
                 .launch = 1,
                 .user_kernel = 1,
                 .progress = 1};
    if (parse_args(argc, argv, &o)) {
        fprintf(stderr, "run 'bench --help' for the options\n");
        return 2;
    }
    if (o.list) return list_devices();
    if (o.libs) {
        baselines_print_libs();
        return 0;
    }
    prog.enabled = o.progress;
    prog.tty = isatty(STDERR_FILENO);

    /* the time to the first kernel comes first, before anything else has loaded a driver */
    startup su;
    measure_startup(o.all ? NULL : o.selector, t_main, &su);
    if (!su.ran && !o.all) {
        fprintf(stderr, "bench: cannot open device %s: %s\n", o.selector ? o.selector : "(from the environment)",
                su.error);
        return 1;
    }

    const char *env_be = getenv("HCL_BACKEND"), *env_dev = getenv("HCL_DEVICE");
    printf("hcl bench: HCL %d.%d.%d\n", HCL_VERSION_MAJOR, HCL_VERSION_MINOR, HCL_VERSION_PATCH);
    if (o.all)
        printf("selected:  --all (every device of every available backend)\n");
    else if (o.selector)
        printf("selected:  --device %s\n", o.selector);
    else
        printf("selected:  HCL_BACKEND=%s HCL_DEVICE=%s\n", env_be ? env_be : "(unset)", env_dev ? env_dev : "(unset)");
    printf("seed:      %" PRIu64 " (--seed to repeat)\n", o.seed);
    printf("runs:      %d warm-up (discarded) + %d timed per measurement%s; output filled with NaN before each run\n",
           o.warmup, o.repeats, o.repeats_set ? "" : " (fewer, at least 3, past about 3 s)");
    printf("columns:   first = wall time of the first call (builds and first-use work included); median/min/max = "
           "device time of the\n           timed runs (HCL's events; the baseline's own vendor events); rates at "
           "the median; HCL/base = ratio of rates\n");
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
            printf("==== %s: unavailable: %s\n\n", runs[d].selector, runs[d].error);
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
    if (o.all) print_matrix(runs, nruns);
    if (su.error[0] || (su.ran && !su.verified)) failures++;

    flat_row *rows = NULL, *old_rows = NULL;
    int nrows = 0, nold = 0;
    flatten_runs(runs, nruns, &rows, &nrows);
    if (o.compare) {
        char err[512];
        if (load_json_rows(o.compare, &old_rows, &nold, err, sizeof err)) {
            printf("bench: --compare: %s\n", err);
            failures++;
        } else {
            print_compare(o.compare, old_rows, nold, rows, nrows);
        }
    }
    double total = now_s() - t_main;
    int out_bad = 0;
    if (o.json) out_bad |= write_json(o.json, &o, &su, runs, nruns, total, failures);
    if (o.csv) out_bad |= write_csv(o.csv, runs, nruns);
    if (o.plot) {
        char title[160];
        snprintf(title, sizeof title, "hcl bench %d.%d.%d%s%s", HCL_VERSION_MAJOR, HCL_VERSION_MINOR, HCL_VERSION_PATCH,
                 o.compare ? " vs " : "", o.compare ? o.compare : "");
        out_bad |= write_svg(o.plot, rows, nrows, old_rows, nold, title);
    }
    free(rows);
    free(old_rows);
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
