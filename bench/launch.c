/* Launch cost, a user kernel built from source, and the time from process start to the first finished kernel.
 *
 * Launch cost: one empty kernel, the same code for both paths: on cuda a hand-written PTX module (loaded through
 * hcl_module_create(HCL_SOURCE_CUDA_BINARY) for HCL and cuModuleLoadData for the raw call), on opencl one OpenCL C
 * source (built through HCL and through clCreateProgramWithSource on HCL's own context), on host a C function
 * (HCL only: there is no vendor call). Microseconds per launch, "submit" (N launches, then one wait, divided by N)
 * and "launch+sync" (every launch waited for). */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* HIP through hiprtc (no vendor call to compare with in bench) */
static const char empty_hip[] = "extern \"C\" __global__ void hcl_bench_empty() { }\n";

static void host_empty(const hcl_host_launch *launch, void *const *args) { (void)launch, (void)args; }

static int hcl_launch_one(const launch_ctx *c, int sync, char *err, size_t err_size) {
    const hcl_dim3 one = {1, 1, 1};
    hcl_status st = hcl_kernel_launch(c->queue, c->kernel, one, one, 0, 0, NULL, 0, NULL, NULL);
    if (st == HCL_SUCCESS && sync) st = hcl_queue_finish(c->queue);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "%s", sync ? "hcl_kernel_launch/hcl_queue_finish" : "hcl_kernel_launch");
        return 1;
    }
    return 0;
}

/* HCL's traced side: each round runs with a trace of its own, into a temporary file that is removed after the round.
 * The trace is started before the round's clock starts, with one untimed launch and finish that join the thread and
 * the queue to it (the tracer's first command on a queue in a trace anchors its clock: a finish and three markers),
 * and stopped (its records formatted and written) after the clock stops. */
static struct {
    char path[4096];
    launch_ctx ctx;
} traced;

static void traced_leave(void) {
    hcl_trace_stop();
    if (traced.path[0]) unlink(traced.path);
    traced.path[0] = '\0';
}

/* Whether HCL's rounds can run traced: not while bench itself is tracing (--trace, HCL_TRACE), as one trace runs at
 * a time; else reason says why not. */
static int can_trace(const options *o, char *reason, size_t size) {
    const char *env = getenv("HCL_TRACE");
    if (o->trace || (env && *env)) {
        snprintf(reason, size, "not measured: bench is traced itself (%s; one trace at a time)",
                 o->trace ? "--trace" : "HCL_TRACE");
        return 0;
    }
    return 1;
}

static int traced_enter(char *err, size_t err_size) {
    const char *dir = getenv("TMPDIR");
    snprintf(traced.path, sizeof traced.path, "%s/hcl-bench-trace-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(traced.path);
    if (fd < 0) {
        snprintf(err, err_size, "no temporary file for the trace (%s): %s", traced.path, strerror(errno));
        traced.path[0] = '\0';
        return 1;
    }
    close(fd);
    hcl_status st = hcl_trace_start(traced.path);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "hcl_trace_start");
        unlink(traced.path);
        traced.path[0] = '\0';
        return 1;
    }
    if (hcl_launch_one(&traced.ctx, 1, err, err_size)) {
        traced_leave();
        return 1;
    }
    return 0;
}

void measure_launch(bdev *b, launch_cost *lc) {
    memset(lc, 0, sizeof *lc);
    int gpu = !b->cpu;
    lc->n_submit = b->opt->quick ? 200 : gpu ? 1000 : 500;
    lc->n_sync = b->opt->quick ? 50 : gpu ? 500 : 200;
    static const hcl_host_function host_fn[] = {{"hcl_bench_empty", host_empty}};
    /* The PTX is given with its NUL. */
    hcl_module_source srcs[5] = {
        {HCL_SOURCE_CUDA_BINARY, bench_empty_ptx, strlen(bench_empty_ptx) + 1, NULL},
        {HCL_SOURCE_OPENCL_C, bench_empty_cl, strlen(bench_empty_cl), NULL},
        {HCL_SOURCE_HIP_C, empty_hip, strlen(empty_hip), NULL},
        {HCL_SOURCE_HOST_TABLE, host_fn, 1, NULL},
    };
    const uint32_t nsrcs = bench_vulkan_source(&srcs[4]) ? 5 : 4;
    hcl_module mod = NULL;
    hcl_kernel k = NULL;
    double t0 = now_s();
    hcl_status st = hcl_module_create(b->device, srcs, nsrcs, &mod);
    if (st == HCL_SUCCESS) st = hcl_kernel_create(mod, "hcl_bench_empty", &k);
    lc->hcl_module_s = now_s() - t0;
    if (st == HCL_ERROR_UNSUPPORTED && !mod) { /* the backend takes none of the forms bench carries */
        lc->unsupported = 1;
        snprintf(lc->error, sizeof lc->error, "not measured: bench has no empty-kernel source backend %s takes: %s",
                 b->info.backend, hcl_last_message());
    } else if (st != HCL_SUCCESS) {
        hcl_ts_status_text(lc->error, sizeof lc->error, st, "the empty kernel");
    }
    /* HCL's sides: [0] untraced, [1] traced (when bench is not tracing itself) */
    launch_side hcl[2] = {{.fn = hcl_launch_one, .ctx = {b->queue, k}, .err = lc->error, .err_size = sizeof lc->error},
                          {.fn = hcl_launch_one,
                           .ctx = {b->queue, k},
                           .enter = traced_enter,
                           .leave = traced_leave,
                           .err = lc->traced_reason,
                           .err_size = sizeof lc->traced_reason}};
    traced.ctx = hcl[0].ctx;
    int nhcl = st != HCL_SUCCESS ? 0 : can_trace(b->opt, lc->traced_reason, sizeof lc->traced_reason) ? 2 : 1;
    if (!lc->unsupported && b->opt->baselines) {
        progress("%s:%u launch cost (HCL and vendor)", b->info.backend, b->info.index);
        vendor_launch_cost(b, lc->n_submit, lc->n_sync, hcl, nhcl, lc); /* without HCL's sides when nhcl is 0 */
    } else if (!lc->unsupported) {
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "--no-baselines");
    }
    if (nhcl && !hcl[0].ran && !lc->error[0]) { /* no vendor launch to alternate with */
        progress("%s:%u launch cost (HCL)", b->info.backend, b->info.index);
        time_launches(hcl, nhcl, lc->n_submit, lc->n_sync);
    }
    lc->ran = hcl[0].ran;
    lc->hcl_submit_us = hcl[0].submit_us, lc->hcl_sync_us = hcl[0].sync_us;
    if (nhcl == 2 && (lc->traced_ran = hcl[1].ran))
        lc->traced_submit_us = hcl[1].submit_us, lc->traced_sync_us = hcl[1].sync_us;
    if (k) hcl_kernel_release(k);
    if (mod) hcl_module_release(mod);
}

/* ---------------------------------------------------------------------------------------------------------
 * A user kernel from source: y = a*x + y, as CUDA C (NVRTC), OpenCL C, or a host C function. Whether a build hit
 * HCL's disk cache is seen from the cache folder: a miss stores a new entry there.
 * ------------------------------------------------------------------------------------------------------- */
static void host_axpy(const hcl_host_launch *l, void *const *args) {
    hcl_ts_host_axpy_args p = hcl_ts_host_axpy(args); /* y, x, a, n */
    size_t base = (size_t)l->group_id.x * l->block.x;
    for (size_t i = base; i < base + l->block.x && i < p.n; i++) p.out[i] = p.a * p.in[i] + p.out[i];
}

static const char axpy_cuda[] = "extern \"C\" __global__ void hcl_bench_axpy(float *y, const float *x, float a, "
                                "unsigned int n) {\n"
                                "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                "    if (i < n) y[i] = a * x[i] + y[i];\n"
                                "}\n";
static const char axpy_cl[] = "__kernel void hcl_bench_axpy(__global float *y, __global const float *x, float a, "
                              "uint n) {\n"
                              "    uint i = get_global_id(0);\n"
                              "    if (i < n) y[i] = a * x[i] + y[i];\n"
                              "}\n";

static void cache_folder(const char *backend, char *out, size_t size) {
    const char *env = getenv("HCL_CACHE_DIR");
    if (env && *env)
        snprintf(out, size, "%s/%s", env, backend);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(out, size, "%s/hcl/%s", env, backend);
    else if ((env = getenv("HOME")) && *env)
        snprintf(out, size, "%s/.cache/hcl/%s", env, backend);
    else
        out[0] = '\0';
}

/* Entries in the cache folder (not counting dot files); -1 when it does not exist. */
static long cache_entries(const char *dir) {
    DIR *d = dir[0] ? opendir(dir) : NULL;
    if (!d) return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

void measure_user_kernel(bdev *b, user_kernel *uk) {
    memset(uk, 0, sizeof *uk);
    int host = !strcmp(b->info.backend, "host");
    snprintf(uk->kind, sizeof uk->kind, "%s",
             !strcmp(b->info.backend, "cuda")     ? "CUDA C (NVRTC)"
             : !strcmp(b->info.backend, "opencl") ? "OpenCL C"
             : !strcmp(b->info.backend, "hip")    ? "HIP C (hiprtc)"
             : host                               ? "host C function table"
             : !strcmp(b->info.backend, "vulkan") ? "Vulkan SPIR-V (GLSL compiled at build time)"
                                                  : "the form the backend takes");
    cache_folder(b->info.backend, uk->cache_dir, sizeof uk->cache_dir);
    static const hcl_host_function host_fn[] = {{"hcl_bench_axpy", host_axpy}};
    hcl_module_source srcs[5] = {
        {HCL_SOURCE_CUDA_C, axpy_cuda, strlen(axpy_cuda), NULL},
        {HCL_SOURCE_OPENCL_C, axpy_cl, strlen(axpy_cl), NULL},
        {HCL_SOURCE_HIP_C, axpy_cuda, strlen(axpy_cuda), NULL}, /* the same text: HIP takes CUDA's syntax here */
        {HCL_SOURCE_HOST_TABLE, host_fn, 1, NULL},
    };
    const uint32_t nsrcs = bench_vulkan_source(&srcs[4]) ? 5 : 4;
    const uint32_t n = 1000003;
    const float a = 0.75f;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    hcl_buffer bx = NULL, by = NULL;
    hcl_module mod[2] = {NULL, NULL};
    hcl_kernel k = NULL;
    hcl_status st = HCL_SUCCESS;
    if (!x || !y || !got) {
        snprintf(uk->error, sizeof uk->error, "out of host memory");
        goto cleanup;
    }
    for (int i = 0; i < 2; i++) {
        progress("%s:%u user kernel (build %d of 2)", b->info.backend, b->info.index, i + 1);
        long before = cache_entries(uk->cache_dir);
        double t0 = now_s();
        st = hcl_module_create(b->device, srcs, nsrcs, &mod[i]);
        uk->create_s[i] = now_s() - t0;
        long after = cache_entries(uk->cache_dir);
        if (st == HCL_ERROR_UNSUPPORTED) {
            snprintf(uk->error, sizeof uk->error, "no user-kernel source in bench that backend %s takes: %s",
                     b->info.backend, hcl_last_message());
            goto cleanup;
        }
        if (st != HCL_SUCCESS) {
            hcl_ts_status_text(uk->error, sizeof uk->error, st, "hcl_module_create");
            goto cleanup;
        }
        if (host)
            snprintf(uk->cache[i], sizeof uk->cache[i], "no compilation (C functions)");
        else if (after < 0)
            snprintf(uk->cache[i], sizeof uk->cache[i], "unknown (no cache folder)");
        else if (after > before)
            snprintf(uk->cache[i], sizeof uk->cache[i], "miss (compiled; a new cache entry was stored)");
        else
            snprintf(uk->cache[i], sizeof uk->cache[i], "hit (no new cache entry)");
    }
    uk->ran = 1;
    /* check the second module's kernel: y = a*x + y */
    uint64_t rng = b->opt->seed ^ 0xA5A5A5A5ull;
    hcl_ts_fill_uniform(&rng, x, n, -0.5f, 0.5f);
    hcl_ts_fill_uniform(&rng, y, n, -0.5f, 0.5f);
    uint32_t block = b->info.max_work_group_size >= 256 ? 256 : (uint32_t)b->info.max_work_group_size;
    if (block == 0) block = 1;
    hcl_arg args[4];
    if ((st = hcl_buffer_create(b->device, n * sizeof(float), 0, &bx)) != HCL_SUCCESS ||
        (st = hcl_buffer_create(b->device, n * sizeof(float), 0, &by)) != HCL_SUCCESS ||
        (st = hcl_buffer_write(b->queue, bx, 0, n * sizeof(float), x)) != HCL_SUCCESS ||
        (st = hcl_buffer_write(b->queue, by, 0, n * sizeof(float), y)) != HCL_SUCCESS ||
        (st = hcl_kernel_create(mod[1], "hcl_bench_axpy", &k)) != HCL_SUCCESS)
        goto failed;
    args[0] = hcl_arg_buffer(by);
    args[1] = hcl_arg_buffer(bx);
    args[2] = hcl_arg_value(&a, sizeof a);
    args[3] = hcl_arg_value(&n, sizeof n);
    hcl_dim3 grid = {(n + block - 1) / block, 1, 1}, blk = {block, 1, 1};
    if ((st = hcl_kernel_launch(b->queue, k, grid, blk, 0, 4, args, 0, NULL, NULL)) != HCL_SUCCESS ||
        (st = hcl_buffer_read(b->queue, by, 0, n * sizeof(float), got)) != HCL_SUCCESS)
        goto failed;
    /* a*x + y with one or two roundings (an FMA is allowed): relative to |a*x| + |y| */
    for (uint32_t i = 0; i < n; i++) {
        double ref = (double)a * x[i] + y[i], scale = fabs((double)a * x[i]) + fabs((double)y[i]);
        double e = fabs((double)got[i] - ref) / (scale > 0 ? scale : 1.0);
        if (isnan(e) || e > uk->err) uk->err = isnan(e) ? INFINITY : e;
    }
    uk->checked = 1;
    uk->failed = !(uk->err <= ldexp(1.0, -22));
    goto cleanup;
failed:
    uk->failed = 1;
    hcl_ts_status_text(uk->error, sizeof uk->error, st, "running the user kernel");
cleanup:
    if (k) hcl_kernel_release(k);
    for (int i = 0; i < 2; i++)
        if (mod[i]) hcl_module_release(mod[i]);
    if (bx) hcl_buffer_release(bx);
    if (by) hcl_buffer_release(by);
    free(x), free(y), free(got);
}

/* ---------------------------------------------------------------------------------------------------------
 * Start-up: open the device, make a queue and buffers, run one small vecadd and wait for it. Measured from
 * main() (CLOCK_MONOTONIC) and from the process start the kernel records (/proc/self/stat field 22, in clock
 * ticks since boot, compared with CLOCK_BOOTTIME: about 10 ms resolution).
 * ------------------------------------------------------------------------------------------------------- */
static int since_exec(double *out_s) {
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char buf[2048];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p) return -1;
    p++;
    unsigned long long start = 0;
    /* after ")": field 3 (state) ... field 22 (starttime) */
    for (int field = 3; field <= 22; field++) {
        while (*p == ' ') p++;
        if (!*p) return -1;
        if (field == 22) start = strtoull(p, NULL, 10);
        while (*p && *p != ' ') p++;
    }
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts)) return -1;
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    *out_s = now - (double)start / (double)hz;
    return 0;
}

void measure_startup(const char *selector, double t_main, startup *su) {
    memset(su, 0, sizeof *su);
    enum { N = 4096 };
    float a[N], bb[N], c[N];
    double ref[N];
    for (int i = 0; i < N; i++) a[i] = (float)i * 0.5f, bb[i] = (float)(N - i) * 0.25f;
    hcl_device dev = NULL;
    hcl_queue q = NULL;
    hcl_buffer bufs[3] = {NULL, NULL, NULL};
    hcl_event ev = NULL;
    hcl_device_info info;
    double t0 = now_s();
    hcl_status st = hcl_device_open(selector, &dev);
    double t1 = now_s();
    const char *what = "hcl_device_open";
    if (st != HCL_SUCCESS) goto cleanup;
    what = "queue and buffers";
    if ((st = hcl_device_get_info(dev, &info)) != HCL_SUCCESS || (st = hcl_queue_create(dev, &q)) != HCL_SUCCESS)
        goto cleanup;
    snprintf(su->device, sizeof su->device, "%s:%u %s", info.backend, info.index, info.name);
    for (int i = 0; i < 3; i++)
        if ((st = hcl_buffer_create(dev, sizeof a, 0, &bufs[i])) != HCL_SUCCESS) goto cleanup;
    if ((st = hcl_buffer_write(q, bufs[0], 0, sizeof a, a)) != HCL_SUCCESS ||
        (st = hcl_buffer_write(q, bufs[1], 0, sizeof bb, bb)) != HCL_SUCCESS)
        goto cleanup;
    double t2 = now_s();
    what = "the first hcl_vecadd_f32";
    if ((st = hcl_vecadd_f32(q, N, bufs[0], bufs[1], bufs[2], &ev)) != HCL_SUCCESS ||
        (st = hcl_event_wait(ev)) != HCL_SUCCESS)
        goto cleanup;
    double t3 = now_s();
    su->from_main_s = t3 - t_main;
    su->exec_known = since_exec(&su->from_exec_s) == 0;
    su->open_s = t1 - t0;
    su->setup_s = t2 - t1;
    su->first_kernel_s = t3 - t2;
    su->ran = 1;
    what = "reading the result";
    if ((st = hcl_buffer_read(q, bufs[2], 0, sizeof c, c)) != HCL_SUCCESS) goto cleanup;
    hcl_ts_cmp cmp;
    hcl_ts_cmp_init(&cmp);
    hcl_ts_ref_vecadd(HCL_TS_CONFORMANCE, a, bb, N, ref, NULL);
    su->verified = hcl_ts_compare(&cmp, c, ref, NULL, 0.0, N); /* exact */
    if (!su->verified) snprintf(su->error, sizeof su->error, "the first vecadd gave a wrong result");
cleanup:
    if (st != HCL_SUCCESS) hcl_ts_status_text(su->error, sizeof su->error, st, "%s", what);
    if (ev) hcl_event_release(ev);
    for (int i = 0; i < 3; i++)
        if (bufs[i]) hcl_buffer_release(bufs[i]);
    if (q) hcl_queue_release(q);
    if (dev) hcl_device_release(dev);
}
