/* hcl-comm-nccl-test: the nccl engine (api/comm/comm_nccl.c) through the public API (hcl/hcl_comm.h).
 *
 *   hcl-comm-nccl-test info    anywhere: nccl and rccl are listed by hcl_comm_engine_get_info, available with their
 *                              library and version, or unavailable with a reason that names what was tried (and,
 *                              when HCL_NCCL_LIBRARY names a file that does not exist, that file and the variable).
 *   hcl-comm-nccl-test fake    where libnccl.so.2 is installed but no GPU driver, with HCL_CUDA_LIBRARY naming the
 *                              test's stand-in for libcuda (ctest sets it): NCCL loads and reports its version, an
 *                              empty group opens and closes, and nccl named for a host device gives
 *                              HCL_ERROR_UNSUPPORTED.
 *   hcl-comm-nccl-test list [ranks [--quick]]   prints the cases `gpu` runs for that many ranks, running nothing.
 *   hcl-comm-nccl-test gpu [--quick]
 *                              NCCL and two or more CUDA devices: nccl named for a host device (UNSUPPORTED); one
 *                              communicator over every CUDA device (hcl_comm_create_all), one thread issuing every
 *                              rank's part in a group: every collective x op x f32/f16/bf16 x count 0, 1, 1009,
 *                              2^20 + 3 (and the in-place forms), then 2^28 elements (1 GiB of f32) with sum (not
 *                              with --quick), each checked on every rank against a float64 reference; the same
 *                              collectives with a thread per device (hcl_comm_get_id + hcl_comm_create); a stalled
 *                              peer (rank 0's hcl_comm_finish gives HCL_ERROR_TIMEOUT within twice the timeout, and
 *                              the communicator stays broken); a rank that never joins (rank 0's hcl_comm_create
 *                              gives HCL_ERROR_TIMEOUT within twice HCL_COMM_TIMEOUT).
 * A line per case (PASS, FAIL with the reason, SKIP with the reason). Exit status: 0 when every case that ran passed,
 * 1 on any failure, 77 when nothing could run (the reason printed). A watchdog ends the program (status 1) when a
 * case runs past its limit, naming it. HCL_SEED repeats a run's inputs (the seed is printed). */
#define _GNU_SOURCE 1 /* setenv, pthread_barrier under -std=c11 */
#include "comm_nccl_test.h"

#include "hcl_testsupport.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SKIPPED 77

static int g_failures, g_passes;

static void report(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(const char *tag, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("%-5s ", tag);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    if (strcmp(tag, "FAIL") == 0) g_failures++;
    if (strcmp(tag, "PASS") == 0) g_passes++;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the watchdog: a case that runs past its limit ends the program, named ---- */

static pthread_mutex_t g_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static double g_deadline; /* 0: nothing watched */
static char g_watched[256];

static void *watchdog(void *arg) {
    (void)arg;
    for (;;) {
        sleep(1);
        pthread_mutex_lock(&g_watch_lock);
        if (g_deadline > 0 && now_s() > g_deadline) {
            fprintf(stderr, "FAIL  HANG: '%s' ran past its limit; ending the test\n", g_watched);
            fflush(stdout);
            _exit(1);
        }
        pthread_mutex_unlock(&g_watch_lock);
    }
    return NULL;
}

static void watch(const char *what, double seconds) {
    pthread_mutex_lock(&g_watch_lock);
    snprintf(g_watched, sizeof g_watched, "%s", what);
    g_deadline = seconds > 0 ? now_s() + seconds : 0;
    pthread_mutex_unlock(&g_watch_lock);
}

/* ---- engines ---- */

static int engine_info(const char *name, hcl_comm_engine_info *out) {
    uint32_t count = 0;
    hcl_comm_engine_count(&count);
    for (uint32_t i = 0; i < count; i++)
        if (hcl_comm_engine_get_info(i, out) == HCL_SUCCESS && strcmp(out->name, name) == 0) return 1;
    return 0;
}

static int mode_info(void) {
    const char *names[] = {"nccl", "rccl"};
    const char *files[] = {"libnccl.so.2", "librccl.so.1"};
    const char *titles[] = {"NCCL ", "RCCL "};
    for (int e = 0; e < 2; e++) {
        hcl_comm_engine_info info;
        if (!engine_info(names[e], &info)) {
            report("FAIL", "engine %s is not listed by hcl_comm_engine_get_info", names[e]);
            continue;
        }
        if (info.available) {
            const int ok = info.library[0] && strncmp(info.version, titles[e], 5) == 0;
            report(ok ? "PASS" : "FAIL", "engine %s: available, library '%s', version '%s'", names[e], info.library,
                   info.version);
            continue;
        }
        /* the reason must say what was tried: the engine's library, or the GPU library it needed */
        const int named = strstr(info.reason, files[e]) || strstr(info.reason, "libcuda.so.1") ||
                          strstr(info.reason, "libamdhip64") || strstr(info.reason, "_LIBRARY");
        const int ok = info.reason[0] && named && !strstr(info.reason, "not in this build");
        report(ok ? "PASS" : "FAIL", "engine %s: unavailable, reason: %s", names[e], info.reason);
    }
    const char *override = getenv("HCL_NCCL_LIBRARY");
    if (override && override[0] && access(override, F_OK) != 0) {
        hcl_comm_engine_info info;
        const int ok = engine_info("nccl", &info) && !info.available && strstr(info.reason, override) &&
                       strstr(info.reason, "HCL_NCCL_LIBRARY");
        report(ok ? "PASS" : "FAIL", "HCL_NCCL_LIBRARY=%s (absent): the reason names it and the variable", override);
    }
    return g_failures ? 1 : 0;
}

/* nccl named for a host device: HCL_ERROR_UNSUPPORTED (with the engine available) naming the device's backend. */
static void check_host_refused(hcl_device host, hcl_device cuda) {
    hcl_comm_id id;
    hcl_status st = hcl_comm_get_id(host, "nccl", &id);
    report(st == HCL_ERROR_UNSUPPORTED && strstr(hcl_last_message(), "host") ? "PASS" : "FAIL",
           "hcl_comm_get_id(host device, \"nccl\"): %s: %s", hcl_status_name(st), hcl_last_message());
    memset(&id, 0, sizeof id);
    snprintf(id.engine, sizeof id.engine, "nccl");
    hcl_comm comm = NULL;
    st = hcl_comm_create(host, 2, 0, &id, &comm);
    report(st == HCL_ERROR_UNSUPPORTED ? "PASS" : "FAIL", "hcl_comm_create(host device, an nccl id): %s: %s",
           hcl_status_name(st), hcl_last_message());
    hcl_device both[2] = {cuda ? cuda : host, host};
    hcl_comm comms[2] = {NULL, NULL};
    const uint32_t n = cuda ? 2 : 1;
    st = hcl_comm_create_all(n, cuda ? both : &both[1], "nccl", comms);
    report(st == HCL_ERROR_UNSUPPORTED && strstr(hcl_last_message(), "host") ? "PASS" : "FAIL",
           "hcl_comm_create_all(%s, \"nccl\"): %s: %s", cuda ? "{cuda device, host device}" : "{host device}",
           hcl_status_name(st), hcl_last_message());
}

static int mode_fake(void) {
    if (!getenv("HCL_CUDA_LIBRARY")) {
        printf("SKIP  fake: HCL_CUDA_LIBRARY names no stand-in for libcuda (ctest sets it)\n");
        return SKIPPED;
    }
    hcl_comm_engine_info info;
    if (!engine_info("nccl", &info)) return report("FAIL", "engine nccl is not listed"), 1;
    if (!info.available) {
        if (!strstr(info.reason, "opened, but not")) { /* libnccl itself did not open: nothing to test here */
            printf("SKIP  fake: no NCCL library here: %s\n", info.reason);
            return SKIPPED;
        }
        return report("FAIL", "nccl with a stand-in libcuda: unavailable: %s", info.reason), 1;
    }
    report(strncmp(info.version, "NCCL 2.", 7) == 0 && info.library[0] ? "PASS" : "FAIL",
           "nccl with a stand-in libcuda: available, library '%s', version '%s'", info.library, info.version);
    hcl_status st = hcl_comm_group_start(); /* with nccl open: an empty group (no NCCL call), nested */
    hcl_status inner = hcl_comm_group_start(), inner_end = hcl_comm_group_end();
    hcl_status end = hcl_comm_group_end(), extra = hcl_comm_group_end();
    report(st == HCL_SUCCESS && inner == HCL_SUCCESS && inner_end == HCL_SUCCESS && end == HCL_SUCCESS &&
                   extra == HCL_ERROR_INVALID_ARGUMENT
               ? "PASS"
               : "FAIL",
           "an empty nested group with nccl open: start %s, start %s, end %s, end %s, an end too many %s",
           hcl_status_name(st), hcl_status_name(inner), hcl_status_name(inner_end), hcl_status_name(end),
           hcl_status_name(extra));
    hcl_device host = NULL;
    if ((st = hcl_device_open("host", &host)) != HCL_SUCCESS)
        return report("FAIL", "hcl_device_open(host): %s: %s", hcl_status_name(st), hcl_last_message()), 1;
    check_host_refused(host, NULL);
    hcl_device_release(host);
    return g_failures ? 1 : 0;
}

/* ---- the GPU cases ---- */

/* One communicator over every device, one thread issuing every rank's part between group start and end. */
static void run_single(ct_ranks *R, const ct_case *cases, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const ct_case *k = &cases[i];
        char name[160], why[2048] = "";
        ct_case_name(k, name, sizeof name);
        watch(name, 600);
        ct_bufs b[CT_MAX_RANKS];
        memset(b, 0, sizeof b);
        int bad = 0;
        for (uint32_t r = 0; r < R->n && !bad; r++)
            bad = ct_prepare(k, R->n, r, R->dev[r], R->q[r], &b[r], why, sizeof why);
        double t0 = now_s(), t1 = t0;
        hcl_status st = HCL_SUCCESS;
        if (!bad) {
            st = hcl_comm_group_start();
            for (uint32_t r = 0; r < R->n && st == HCL_SUCCESS; r++)
                st = ct_issue(k, R->n, r, R->comm[r], R->q[r], &b[r], 1);
            hcl_status end = hcl_comm_group_end();
            if (st == HCL_SUCCESS) st = end;
            for (uint32_t r = 0; r < R->n && st == HCL_SUCCESS; r++) st = hcl_comm_finish(R->comm[r], R->q[r]);
            t1 = now_s();
            if (st != HCL_SUCCESS)
                bad = 1, snprintf(why, sizeof why, "%s: %s", hcl_status_name(st), hcl_last_message());
        }
        for (uint32_t r = 0; r < R->n && !bad; r++) bad = ct_verify(k, R->n, r, R->q[r], &b[r], why, sizeof why);
        for (uint32_t r = 0; r < R->n; r++) ct_release(&b[r]);
        if (bad) {
            report("FAIL", "create_all: %s: %s", name, why);
        } else {
            const double s = t1 - t0, bus = ct_bus_bytes(k, R->n);
            report("PASS", "create_all: %s (%.3f ms issue to finish%s%.1f%s)", name, s * 1e3,
                   k->count >= (1u << 20) ? ", bus bandwidth " : "", k->count >= (1u << 20) ? bus / s / 1e9 : 0,
                   k->count >= (1u << 20) ? " GB/s" : "");
        }
    }
    watch("", 0);
}

/* A thread per rank, each with its own communicator made by hcl_comm_create. */
typedef struct mt_shared {
    ct_ranks *R;
    hcl_comm_id id;
    const ct_case *cases;
    size_t count;
    pthread_barrier_t barrier;
    hcl_status created[CT_MAX_RANKS];
    int bad[CT_MAX_RANKS];
    char why[CT_MAX_RANKS][1024];
    hcl_status stall[CT_MAX_RANKS]; /* the stalled-peer case: each rank's status, and how long it took */
    double stall_s[CT_MAX_RANKS];
    hcl_status after; /* rank 0's next collective on the broken communicator */
    char stall_why[CT_MAX_RANKS][512];
} mt_shared;

typedef struct mt_arg {
    mt_shared *S;
    uint32_t rank;
} mt_arg;

#define STALL_TIMEOUT 3.0

/* Rank 0 issues an all-reduce that rank 1 joins only after rank 0 gave up: rank 0's finish must time out; rank 1's
 * partner is then gone (its own finish gives an error or, at worst, times out too). Ranks above 1 do nothing. */
static void mt_stall(mt_shared *S, uint32_t r) {
    ct_ranks *R = S->R;
    ct_case k = {CT_ALL_REDUCE, HCL_DTYPE_F32, HCL_COMM_SUM, (size_t)1 << 20, 0, 0, 7};
    ct_bufs b;
    char why[256];
    S->stall[r] = HCL_SUCCESS;
    if (r > 1 || ct_prepare(&k, R->n, r, R->dev[r], R->q[r], &b, why, sizeof why) != 0) {
        pthread_barrier_wait(&S->barrier);
        pthread_barrier_wait(&S->barrier);
        return;
    }
    hcl_comm_set_timeout(R->comm[r], STALL_TIMEOUT);
    if (r == 1) pthread_barrier_wait(&S->barrier); /* rank 1 waits until rank 0 gave up */
    const double t0 = now_s();
    hcl_status st = ct_issue(&k, R->n, r, R->comm[r], R->q[r], &b, 0);
    if (st == HCL_SUCCESS) st = hcl_comm_finish(R->comm[r], R->q[r]);
    S->stall_s[r] = now_s() - t0;
    S->stall[r] = st;
    snprintf(S->stall_why[r], sizeof S->stall_why[r], "%s", hcl_last_message());
    if (r == 0) {
        S->after = ct_issue(&k, R->n, r, R->comm[r], R->q[r], &b, 0);
        pthread_barrier_wait(&S->barrier);
    }
    pthread_barrier_wait(&S->barrier);
    if (st == HCL_SUCCESS) hcl_queue_finish(R->q[r]);
    ct_release(&b);
}

static void *mt_rank(void *arg) {
    mt_shared *S = ((mt_arg *)arg)->S;
    const uint32_t r = ((mt_arg *)arg)->rank;
    ct_ranks *R = S->R;
    S->created[r] = hcl_comm_create(R->dev[r], R->n, r, &S->id, &R->comm[r]);
    if (S->created[r] == HCL_SUCCESS) hcl_comm_set_timeout(R->comm[r], 120);
    pthread_barrier_wait(&S->barrier);
    for (uint32_t q = 0; q < R->n; q++)
        if (S->created[q] != HCL_SUCCESS) return NULL;
    for (size_t i = 0; i < S->count; i++) {
        const ct_case *k = &S->cases[i];
        ct_bufs b;
        S->bad[r] = ct_prepare(k, R->n, r, R->dev[r], R->q[r], &b, S->why[r], sizeof S->why[r]);
        if (!S->bad[r]) {
            hcl_status st = ct_issue(k, R->n, r, R->comm[r], R->q[r], &b, 0);
            if (st == HCL_SUCCESS) st = hcl_comm_finish(R->comm[r], R->q[r]);
            if (st != HCL_SUCCESS)
                S->bad[r] = 1, snprintf(S->why[r], sizeof S->why[r], "%s: %s", hcl_status_name(st), hcl_last_message());
            else
                S->bad[r] = ct_verify(k, R->n, r, R->q[r], &b, S->why[r], sizeof S->why[r]);
            ct_release(&b);
        }
        if (pthread_barrier_wait(&S->barrier) == PTHREAD_BARRIER_SERIAL_THREAD) {
            char name[160];
            ct_case_name(k, name, sizeof name);
            int bad = 0;
            for (uint32_t q = 0; q < R->n; q++)
                if (S->bad[q]) bad = 1, report("FAIL", "thread per rank: %s: rank %u: %s", name, q, S->why[q]);
            if (!bad) report("PASS", "thread per rank: %s", name);
        }
        pthread_barrier_wait(&S->barrier);
    }
    mt_stall(S, r);
    return NULL;
}

static void run_threads(ct_ranks *R, const ct_case *all, size_t all_count, int stall) {
    static mt_shared S; /* large: not on the stack */
    memset(&S, 0, sizeof S);
    S.R = R;
    hcl_status st = hcl_comm_get_id(R->dev[0], NULL, &S.id);
    if (st != HCL_SUCCESS) {
        report("FAIL", "hcl_comm_get_id(cuda device 0, NULL): %s: %s", hcl_status_name(st), hcl_last_message());
        return;
    }
    if (strcmp(S.id.engine, "nccl") != 0) report("FAIL", "hcl_comm_get_id on a cuda device: engine '%s'", S.id.engine);
    /* a part of the matrix: f32 and bf16, sum and max, counts 1009 and 2^20 + 3, every collective */
    static ct_case cases[256];
    for (size_t i = 0; i < all_count && S.count < 256; i++) {
        const ct_case *k = &all[i];
        if (k->type != HCL_DTYPE_F16 && (k->op == HCL_COMM_SUM || k->op == HCL_COMM_MAX) && !k->in_place &&
            (k->count == 1009 || k->count == ((size_t)1 << 20) + 3))
            cases[S.count++] = *k;
    }
    S.cases = cases;
    pthread_barrier_init(&S.barrier, NULL, R->n);
    pthread_t threads[CT_MAX_RANKS];
    mt_arg args[CT_MAX_RANKS];
    watch("the thread-per-rank cases (hcl_comm_create on every thread, then each case)", 120 + 60.0 * (double)S.count);
    for (uint32_t r = 0; r < R->n; r++) {
        args[r] = (mt_arg){&S, r};
        pthread_create(&threads[r], NULL, mt_rank, &args[r]);
    }
    for (uint32_t r = 0; r < R->n; r++) pthread_join(threads[r], NULL);
    watch("", 0);
    pthread_barrier_destroy(&S.barrier);
    int created = 1;
    for (uint32_t r = 0; r < R->n; r++)
        if (S.created[r] != HCL_SUCCESS)
            created = 0, report("FAIL", "thread per rank: hcl_comm_create rank %u of %u: %s", r, R->n,
                                hcl_status_name(S.created[r]));
    if (created && stall) {
        const int ok0 =
            S.stall[0] == HCL_ERROR_TIMEOUT && S.stall_s[0] <= 2 * STALL_TIMEOUT + 1 && S.after == HCL_ERROR_TIMEOUT;
        report(ok0 ? "PASS" : "FAIL",
               "stalled peer: rank 0's all_reduce + hcl_comm_finish gave %s after %.2f s "
               "(timeout %.0f s), its next collective %s: %s",
               hcl_status_name(S.stall[0]), S.stall_s[0], STALL_TIMEOUT, hcl_status_name(S.after), S.stall_why[0]);
        /* Rank 1 must come back within the timeout; success is possible too (measured on two H100s: NCCL completed
         * rank 1's all-reduce at once from what rank 0 had sent over NVLink before its abort), so only a hang or a
         * late return fails. */
        const int ok1 = S.stall_s[1] <= 2 * STALL_TIMEOUT + 1;
        report(ok1 ? "PASS" : "FAIL",
               "stalled peer: rank 1, joining after rank 0 aborted, came back with %s after %.2f s (no hang): %s",
               hcl_status_name(S.stall[1]), S.stall_s[1], S.stall[1] == HCL_SUCCESS ? "" : S.stall_why[1]);
    } else if (!stall) {
        report("SKIP", "stalled peer: HCL_NCCL_BLOCKING=1 makes blocking communicators, whose launch may wait for the "
                       "peer without a timeout");
    }
    for (uint32_t r = 0; r < R->n; r++)
        if (R->comm[r]) hcl_comm_release(R->comm[r]), R->comm[r] = NULL;
}

/* Rank 0 of 2 joins; rank 1 never does. */
static void check_join_timeout(hcl_device dev) {
    const char *blocking = getenv("HCL_NCCL_BLOCKING");
    if (blocking && strcmp(blocking, "1") == 0) {
        report("SKIP", "join timeout: HCL_NCCL_BLOCKING=1 makes hcl_comm_create wait without a timeout");
        return;
    }
    const double timeout = 3.0;
    char *saved = getenv("HCL_COMM_TIMEOUT") ? strdup(getenv("HCL_COMM_TIMEOUT")) : NULL;
    setenv("HCL_COMM_TIMEOUT", "3", 1);
    hcl_comm_id id;
    hcl_comm comm = NULL;
    hcl_status st = hcl_comm_get_id(dev, "nccl", &id);
    watch("join timeout: rank 0 of 2 alone in hcl_comm_create", 4 * timeout + 30);
    const double t0 = now_s();
    if (st == HCL_SUCCESS) st = hcl_comm_create(dev, 2, 0, &id, &comm);
    const double took = now_s() - t0;
    watch("", 0);
    const int ok = st == HCL_ERROR_TIMEOUT && took >= timeout * 0.9 && took <= 2 * timeout + 1;
    report(ok ? "PASS" : "FAIL",
           "join timeout: rank 0 of 2, rank 1 never joins: %s after %.2f s (HCL_COMM_TIMEOUT=3): %s",
           hcl_status_name(st), took, hcl_last_message());
    if (comm) hcl_comm_release(comm);
    if (saved)
        setenv("HCL_COMM_TIMEOUT", saved, 1), free(saved);
    else
        unsetenv("HCL_COMM_TIMEOUT");
}

static int mode_gpu(int quick) {
    hcl_comm_engine_info info;
    if (!engine_info("nccl", &info) || !info.available) {
        printf("SKIP  gpu: engine nccl unavailable: %s\n", info.reason);
        return SKIPPED;
    }
    uint32_t backends = 0, cuda_devices = 0;
    hcl_backend_count(&backends);
    for (uint32_t i = 0; i < backends; i++) {
        hcl_backend_info b;
        if (hcl_backend_get_info(i, &b) == HCL_SUCCESS && strcmp(b.name, "cuda") == 0 && b.available)
            cuda_devices = b.device_count;
    }
    if (cuda_devices < 2) {
        printf("SKIP  gpu: %u CUDA devices (the nccl cases need 2 or more)\n", cuda_devices);
        return SKIPPED;
    }
    ct_ranks R;
    memset(&R, 0, sizeof R);
    R.n = cuda_devices < CT_MAX_RANKS ? cuda_devices : CT_MAX_RANKS;
    for (uint32_t r = 0; r < R.n; r++) {
        char sel[32];
        snprintf(sel, sizeof sel, "cuda:%u", r);
        hcl_status st = hcl_device_open(sel, &R.dev[r]);
        if (st == HCL_SUCCESS) st = hcl_queue_create(R.dev[r], &R.q[r]);
        if (st != HCL_SUCCESS)
            return report("FAIL", "opening %s: %s: %s", sel, hcl_status_name(st), hcl_last_message()), 1;
        hcl_device_info di;
        hcl_device_get_info(R.dev[r], &di);
        printf("rank %u: %s '%s'\n", r, sel, di.name);
    }
    const uint64_t seed = hcl_ts_seed();
    printf("engine nccl: %s, %s; %u ranks; seed %llu (HCL_SEED=%llu repeats the inputs)\n", info.library, info.version,
           R.n, (unsigned long long)seed, (unsigned long long)seed);
    hcl_device host = NULL;
    if (hcl_device_open("host", &host) == HCL_SUCCESS) {
        check_host_refused(host, R.dev[0]);
        hcl_device_release(host);
    }
    static ct_case cases[1024];
    const size_t count = ct_cases(R.n, seed, quick, cases, sizeof cases / sizeof cases[0]);
    hcl_status st = hcl_comm_create_all(R.n, R.dev, NULL, R.comm);
    hcl_comm_info ci;
    if (st == HCL_SUCCESS) st = hcl_comm_get_info(R.comm[0], &ci);
    if (st != HCL_SUCCESS || strcmp(ci.engine, "nccl") != 0) {
        report("FAIL", "hcl_comm_create_all over %u cuda devices: %s: %s", R.n, hcl_status_name(st),
               st == HCL_SUCCESS ? ci.engine : hcl_last_message());
    } else {
        report("PASS", "hcl_comm_create_all over %u cuda devices: engine %s", R.n, ci.engine);
        run_single(&R, cases, count);
    }
    for (uint32_t r = 0; r < R.n; r++)
        if (R.comm[r]) hcl_comm_release(R.comm[r]), R.comm[r] = NULL;
    const char *blocking = getenv("HCL_NCCL_BLOCKING");
    run_threads(&R, cases, count, !(blocking && strcmp(blocking, "1") == 0));
    check_join_timeout(R.dev[0]);
    for (uint32_t r = 0; r < R.n; r++) {
        hcl_queue_release(R.q[r]);
        hcl_device_release(R.dev[r]);
    }
    return g_failures ? 1 : 0;
}

/* The case list for n ranks, without running anything: what `gpu` will run, and how much. */
static int mode_list(uint32_t n, int quick) {
    static ct_case cases[1024];
    const size_t count = ct_cases(n, 1, quick, cases, sizeof cases / sizeof cases[0]);
    double bytes = 0;
    for (size_t i = 0; i < count; i++) {
        char name[160];
        ct_case_name(&cases[i], name, sizeof name);
        printf("%s\n", name);
        bytes += (double)cases[i].count * (double)hcl_dtype_size(cases[i].type);
    }
    printf("%zu cases for %u ranks (%.1f GiB of inputs per rank in all)\n", count, n, bytes / (1 << 30));
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    setenv("HCL_COMM_TIMEOUT", "120", 0); /* a stuck case fails in minutes, not the default 300 s */
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    pthread_detach(dog);
    int rc;
    if (strcmp(mode, "info") == 0)
        rc = mode_info();
    else if (strcmp(mode, "fake") == 0)
        rc = mode_fake();
    else if (strcmp(mode, "gpu") == 0)
        rc = mode_gpu(argc > 2 && strcmp(argv[2], "--quick") == 0);
    else if (strcmp(mode, "list") == 0)
        return mode_list(argc > 2 ? (uint32_t)atoi(argv[2]) : 2, argc > 3 && strcmp(argv[3], "--quick") == 0);
    else {
        fprintf(stderr, "usage: %s info | fake | gpu [--quick] | list [ranks [--quick]]\n", argv[0]);
        return 2;
    }
    printf("%s: %d passed, %d failed%s\n", mode, g_passes, g_failures, rc == SKIPPED ? " (skipped)" : "");
    return rc;
}
